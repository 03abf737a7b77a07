"""Speaks replies: TTS chunks into the call's playout stream, one utterance at a time, cancellable on barge-in.

The policy says how a reply is voiced (`voice_segments`: e.g. the Kazakh line of a bilingual greeting in the kk
voice); the silence the TTS puts around the line is trimmed (`media/trim.py`) so the playout carries the voice
only and "the bot is speaking" ends with its last voiced frame. A streamed utterance (`open`, `feed`, `finish`)
is spoken piece by piece as its text arrives (a model's answer, sentence by sentence): one utterance, one TTS
request per piece, each piece synthesised while the one before plays. `hold_next(until, unless)`: utterances
started from now are synthesised at once but their first frame waits in the playout stream until `until`, and
then for as long as `unless()` says the caller may be starting to speak (an early-ended turn's reply,
`early_turn.py`), until `hold_next(None)`; the stream checks it at every tick and right after the caller's
frames are read, so the reply goes out in the slot whose caller frame let it go.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Callable

import numpy as np

from ai_operator.media.playout import Hold, PlayoutStream
from ai_operator.media.trim import SilenceTrimmer
from ai_operator.speech.tts import LineTTS

_EMPTY = np.zeros(0, dtype=np.int16)
HOLD_MAX_S = 0.3  # past its time, a held first frame waits while `unless()` holds it, no longer than this: a
# caller's line that says nothing by then is let go
VoiceSegments = Callable[[str, str], list[tuple[str, str]]]


class Speaker:
    """Streams one reply at a time from a TTS adapter into `stream`; `cut()` stops it at once."""

    def __init__(
        self,
        stream: PlayoutStream,
        tts: LineTTS,
        voice_segments: VoiceSegments,
        *,
        on_error: Callable[[str, Exception], None],
    ) -> None:
        self.stream = stream
        self.tts = tts
        self._segments = voice_segments
        self._on_error = on_error
        self._task: asyncio.Task[None] | None = None
        self._active: str | None = None  # the utterance allowed into the stream; a cut one never is again
        self._count = 0
        self.first_chunk_ms: dict[str, float] = {}
        self._pieces: dict[str, asyncio.Queue[str | None]] = {}
        self._hold_until: float | None = None  # for the utterances started: their first frame not before (monotonic)
        self._hold_unless: Callable[[], bool] | None = None
        self._hold_confirmed: Callable[[], bool] | None = None

    def hold_next(self, until: float | None, unless: Callable[[], bool] | None = None,
                  confirmed: Callable[[], bool] | None = None) -> None:
        """Utterances started from now are synthesised at once, but their first frame goes out no sooner than
        `until` and, after it, not while `unless()` (for `HOLD_MAX_S` at most), nor before `confirmed()` (however
        long: a reply decided on a streaming partial waits for the final transcript to say the same); None: no
        hold."""
        self._hold_until, self._hold_unless, self._hold_confirmed = until, unless, confirmed

    def say(self, text: str, language: str, *, cache: bool) -> str:
        """Start speaking `text`; returns the utterance id. A previous utterance still playing is cut first."""
        return self._start(_single(text), language, cache)

    def open(self, language: str) -> str:
        """Start a streamed utterance (`feed` its text, then `finish`); a previous one still playing is cut first."""
        pieces: asyncio.Queue[str | None] = asyncio.Queue()
        utterance_id = self._start(_drain(pieces), language, False)
        self._pieces[utterance_id] = pieces
        return utterance_id

    def feed(self, utterance_id: str, text: str) -> bool:
        """More text of a streamed utterance; False when it was cut (or finished): nothing more of it is said."""
        pieces = self._pieces.get(utterance_id)
        if pieces is None or self._active != utterance_id:
            return False
        pieces.put_nowait(text)
        return True

    def finish(self, utterance_id: str) -> None:
        """No more text for this streamed utterance: it ends when what it has is spoken."""
        pieces = self._pieces.pop(utterance_id, None)
        if pieces is not None:
            pieces.put_nowait(None)

    def is_active(self, utterance_id: str) -> bool:
        return self._active == utterance_id

    def _start(self, texts: AsyncIterator[str], language: str, cache: bool) -> str:
        self.cut()
        self._count += 1
        utterance_id = f"u{self._count}"
        self._active = utterance_id
        self._task = asyncio.create_task(self._run(utterance_id, texts, language, cache, self._hold_until))
        return utterance_id

    async def _run(self, utterance_id: str, texts: AsyncIterator[str], language: str, cache: bool,
                   hold: float | None = None) -> None:
        first = True
        trimmer = SilenceTrimmer()
        try:
            async for text in texts:
                if first:
                    t0 = time.perf_counter()  # the first chunk counts from the first text
                for part, voice in self._segments(text, language):
                    async for chunk in self.tts.stream(part, voice, cache=cache):
                        if self._active != utterance_id:
                            # cut: cancellation alone is not enough (Python 3.11's wait_for can swallow it), so a
                            # cut utterance never reaches the stream again, whatever its task still does
                            return
                        voiced = trimmer.push(chunk)
                        if voiced.size == 0:
                            continue
                        held: Hold | None = None
                        if first:
                            self.first_chunk_ms[utterance_id] = (time.perf_counter() - t0) * 1000
                            first = False
                            if hold is not None:  # past its time too: `unless` is asked all the same
                                held = self._holding(hold)
                        self.stream.enqueue(voiced, utterance_id, final=False, hold=held)
            if not first and self._active == utterance_id:
                self.stream.enqueue(trimmer.end(), utterance_id, final=True)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # TTS failure: the line is lost, the call goes on
            self._on_error(utterance_id, exc)
            if not first and self._active == utterance_id:
                self.stream.enqueue(_EMPTY, utterance_id, final=True)
            return
        if first:  # nothing audible came out: the line never plays
            self._on_error(utterance_id, RuntimeError("the TTS produced no audible audio"))

    def _holding(self, until: float) -> Hold:
        """The playout stream's hold of a first frame (True: not yet): until `until`, then while `unless()` says
        so, for `HOLD_MAX_S` at most. Checked at the pacer's ticks and right after its receive pass, so the frame
        goes out in the very slot whose caller frame ended the hold."""

        def held(now: float) -> bool:
            if now < until or not self._confirmed():
                return True
            unless = self._hold_unless
            return unless is not None and now < until + HOLD_MAX_S and unless()

        return held

    def _confirmed(self) -> bool:
        confirmed = self._hold_confirmed
        return confirmed is None or confirmed()

    def cut(self) -> str | None:
        """Stop synthesis and playout now (barge-in); returns the utterance that was playing, if any."""
        self._active = None
        self._pieces.clear()
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None
        return self.stream.flush()

    @property
    def busy(self) -> bool:
        """Synthesising or playing."""
        return (self._task is not None and not self._task.done()) or self.stream.speaking or self.stream.queued_utterances > 0


async def _single(text: str) -> AsyncIterator[str]:
    yield text


async def _drain(pieces: asyncio.Queue[str | None]) -> AsyncIterator[str]:
    while (text := await pieces.get()) is not None:
        yield text
