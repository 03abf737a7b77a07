"""The speaker: a reply cut by a new one (barge-in, a DTMF answer over the greeting) never reaches the playout
again, even when its synthesis task does not stop at once (Python 3.11's wait_for can swallow a cancellation);
the silence around a line is trimmed."""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import AsyncIterator

import numpy as np

from ai_operator.daemon.speaker import Speaker
from ai_operator.media.codecs import get_codec
from ai_operator.media.playout import PlayoutStream
from tests.support.wait import eventually

VOICE = np.full(800, 3000, dtype=np.int16)  # 100 ms of "voice"
SILENCE = np.zeros(3200, dtype=np.int16)  # 400 ms of trailing silence


class StubbornTTS:
    """Streams chunks slowly and ignores cancellation, like a generator whose await swallowed it."""

    def __init__(self) -> None:
        self.yielded: dict[str, int] = {}

    async def stream(self, text: str, language: str, *, cache: bool = True) -> AsyncIterator[np.ndarray]:
        for _ in range(10):
            with contextlib.suppress(asyncio.CancelledError):  # swallowed
                await asyncio.sleep(0.01)
            self.yielded[text] = self.yielded.get(text, 0) + 1
            yield VOICE

    async def prewarm(self, lines: list[tuple[str, str]]) -> int:
        return 0


class OneLineTTS:
    async def stream(self, text: str, language: str, *, cache: bool = True) -> AsyncIterator[np.ndarray]:
        yield np.concatenate([SILENCE, VOICE, SILENCE])

    async def prewarm(self, lines: list[tuple[str, str]]) -> int:
        return 0


def queued_ids(stream: PlayoutStream) -> list[str]:
    return [u.id for u in stream._queue]


async def test_a_cut_reply_never_reaches_the_stream_again() -> None:
    stream = PlayoutStream(get_codec("ulaw"), lambda b: None)
    tts = StubbornTTS()
    speaker = Speaker(stream, tts, lambda text, lang: [(text, lang)], on_error=lambda *_: None)
    first = speaker.say("greeting", "ru", cache=True)
    await eventually(lambda: tts.yielded.get("greeting", 0) >= 2, what="the greeting streaming")
    second = speaker.say("answer", "ru", cache=True)
    await eventually(lambda: tts.yielded.get("answer", 0) == 10, what="the answer synthesised")
    await eventually(lambda: tts.yielded.get("greeting", 0) >= 3, what="the greeting's task running on")
    assert first != second and set(queued_ids(stream)) == {second}


async def test_the_silence_around_a_line_is_trimmed() -> None:
    """What goes out on the wire is the voice plus at most 40 ms on each side, in whole 20 ms frames."""
    codec = get_codec("ulaw")
    sent: list[bytes] = []
    stream = PlayoutStream(codec, sent.append)
    speaker = Speaker(stream, OneLineTTS(), lambda text, lang: [(text, lang)], on_error=lambda *_: None)
    speaker.say("line", "ru", cache=True)
    await eventually(lambda: stream._queue and stream._queue[-1].final, what="the line queued")
    k = 0
    while stream.queued_utterances:
        stream.tick(k, float(k) * 0.02, 0.0)
        k += 1
    audio = np.concatenate([codec.decode(packet[12:]) for packet in sent])
    frames = -(-(VOICE.size + 2 * 320) // 160)
    assert VOICE.size <= audio.size <= frames * 160
    assert np.count_nonzero(np.abs(audio.astype(np.int32) - 3000) < 200) >= VOICE.size  # the voice, whole


class LateTTS:
    """Its first chunk comes only when `ready` is set: a reply synthesised after its hold time has passed."""

    def __init__(self) -> None:
        self.ready = asyncio.Event()

    async def stream(self, text: str, language: str, *, cache: bool = True) -> AsyncIterator[np.ndarray]:
        await self.ready.wait()
        yield VOICE

    async def prewarm(self, lines: list[tuple[str, str]]) -> int:
        return 0


async def test_a_held_reply_ready_after_its_time_still_waits_while_the_caller_may_be_speaking() -> None:
    """An early-ended turn's reply whose first chunk comes after its hold time (a slow decision or TTS) still waits
    while `unless()` says the caller may be going on (found through the real Asterisk: the reply to "сколько стоит
    роуминг" began as the caller went on "за границей" after a 300 ms pause)."""
    sent: list[bytes] = []
    stream = PlayoutStream(get_codec("ulaw"), sent.append)
    tts = LateTTS()
    speaker = Speaker(stream, tts, lambda text, lang: [(text, lang)], on_error=lambda *_: None)
    asked: list[bool] = []
    caller_going_on = True

    def unless() -> bool:
        asked.append(caller_going_on)
        return caller_going_on

    until = time.monotonic()
    speaker.hold_next(until, unless)  # its time has passed by the time the chunk comes
    answer = speaker.say("answer", "ru", cache=True)
    tts.ready.set()
    await eventually(lambda: queued_ids(stream) == [answer], what="the reply queued, held")
    past = until + 0.01  # the ticks' clock: past its time, well inside HOLD_MAX_S however slow this box is
    for k in range(3):  # the pacer's ticks: the held line stays quiet while the caller may be speaking
        stream.tick(k, past + k * 0.02, 0.0)
    assert not sent and asked and all(asked)
    caller_going_on = False
    stream.tick(3, past + 0.06, 0.0)
    assert len(sent) == 1  # let go at the first tick after the caller stopped
