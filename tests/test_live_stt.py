"""Live transcripts (`daemon/live_stt.py`) with real espeak-ng speech, real webrtcvad and a real Realtime
transcription websocket (the local server): one stream per utterance, fed frame by frame as the segmenter keeps
them, each on its own socket or all on the call's one (`connection`); a pause the caller spoke on after is a
commit, not a second request, and the utterance is heard whole, once; an utterance taken late (the call was busy
while the next one began) still has its own stream, settled before the next one's audio goes on the socket."""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np
import pytest

from ai_operator.daemon.live_stt import LiveTranscript
from ai_operator.media.frames import FRAME_S, SAMPLE_RATE
from ai_operator.media.vad import UtteranceEnded
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.speech.openai_realtime_stt import OpenAIRealtimeSTT
from ai_operator.speech.wav import decode_wav
from tests.support.wait import eventually
from tests.test_media_speech import frames_of, noise, segmenter, speak

PAUSE_S = 0.3
WORD_S = 0.25  # the script: one word per this much audio


def words_for(samples: int) -> str:
    return " ".join(f"w{i}" for i in range(max(1, int(samples / SAMPLE_RATE / WORD_S))))


def script(wav: bytes, _fields: dict[str, Any]) -> str:
    return words_for(len(decode_wav(wav)[0]))


async def run(fake: FakeOpenAI, signal: np.ndarray, *, take_at_end: bool = False,
              shared: bool = False) -> tuple[list[str | None], list[UtteranceEnded], list[str]]:
    outcomes: list[str] = []
    stt = OpenAIRealtimeSTT(api_key=fake.api_key, base_url=fake.base_url, model="m", timeout_s=10)
    connection = stt.connection() if shared else None

    async def open_stream() -> Any:
        return await (connection or stt).open("ru")

    live = LiveTranscript(240, open_stream, outcomes.append, forced=lambda _ended: False, connection=connection,
                          language=lambda: "ru")
    seg = segmenter()
    ended: list[UtteranceEnded] = []
    taken: list[str | None] = []
    for i, frame in enumerate(frames_of(signal)):
        for ev in seg.feed(frame, (i + 1) * FRAME_S):
            if isinstance(ev, UtteranceEnded):
                ended.append(ev)
                if not take_at_end:
                    taken.append(await live.take(ev))
        live.frame(seg)
        await asyncio.sleep(0)  # the stream is fed while frames arrive
    for ev in ended if take_at_end else ():
        taken.append(await live.take(ev))
    await live.aclose()
    return taken, ended, outcomes


@pytest.fixture(scope="module")
def words() -> tuple[np.ndarray, np.ndarray]:
    return speak("я живу в городе"), speak("караганда")


def sockets(fake: FakeOpenAI) -> list[dict[str, Any]]:
    return [r for r in fake.requests if r["path"] == "/v1/realtime"]


@pytest.mark.parametrize("shared", [False, True], ids=["socket-per-utterance", "socket-per-call"])
async def test_a_pause_spoken_on_after_is_a_commit_and_the_utterance_is_heard_whole(words, shared: bool) -> None:
    first, second = words
    pause = np.zeros(int(PAUSE_S * SAMPLE_RATE), dtype=np.int16)
    async with FakeOpenAI() as fake:
        fake.transcripts = script
        taken, ended, outcomes = await run(fake, np.concatenate((noise(8000), first, pause, second,
                                                                 noise(16000, seed=1))), shared=shared)
        sessions = sockets(fake)
    assert len(ended) == 1  # 300 ms is a pause, not the end of the utterance
    assert taken == [words_for(len(ended[0].audio))]  # the whole utterance, once: no words lost or doubled
    assert outcomes == ["used"]
    assert len(sessions) == 1  # one stream: the pause cost no second request
    kinds = [kind for kind, _ in sessions[0]["events"]]
    assert kinds.count("input_audio_buffer.commit") == 2  # at each pause (the one in it, the one before its end)


@pytest.mark.parametrize("shared", [False, True], ids=["socket-per-utterance", "socket-per-call"])
async def test_an_utterance_taken_after_the_next_one_began_keeps_its_own_stream(words, shared: bool) -> None:
    first, second = words
    gap = noise(8000, seed=2)  # a full second: two utterances
    async with FakeOpenAI(latency="cloud") as fake:  # transcripts come late, and in any order
        fake.transcripts = script
        taken, ended, outcomes = await run(fake, np.concatenate((noise(8000), first, gap, second,
                                                                 noise(16000, seed=1))), take_at_end=True,
                                           shared=shared)
        await eventually(lambda: all("closed" in s for s in sockets(fake)), what="the sockets closed")
    assert len(ended) == 2
    assert taken == [words_for(len(e.audio)) for e in ended]  # each its own words: none of the other's
    assert outcomes == ["used", "used"]
    assert len(sockets(fake)) == (1 if shared else 2)


async def test_without_a_stream_for_it_the_turn_transcribes_it_whole(words) -> None:
    async with FakeOpenAI() as fake:
        fake.transcripts = script
        outcomes: list[str] = []
        live = LiveTranscript(240, lambda: None, outcomes.append, forced=lambda _e: False)
        audio = np.concatenate((words[0], noise(4000)))
        ended = UtteranceEnded(audio, 1.0, 2.0, 2.6, False)
        assert await live.take(ended) is None  # never fed: hearing.py transcribes it as a whole
        assert outcomes == []
