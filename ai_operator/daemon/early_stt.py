"""Speculative transcripts: the utterance so far goes to STT at a short pause, not at its end.

The end of an utterance is `VAD_END_SILENCE_MS` of silence (600 ms); most utterances are over long before that.
At `VAD_EARLY_STT_MS` of silence (240 ms) `EarlyTranscript.frame` starts transcribing the utterance as it would
end there. When the utterance does end with no more speech (its last speech frame is the same), `take` hands
that transcript on (awaiting what is left of it): the turn waits for STT from the pause, not from the end, so a
batch STT of 300-500 ms is mostly hidden inside the end-of-turn silence. When the caller went on, the transcript
is dropped: an extra STT request, counted (`ai_operator_early_stt_total{outcome="wasted"}`). `on_ready` hears of a
transcript as soon as it is made (while its pause still runs): `early_turn.py` may end the turn there when the
policy says it is complete; nothing is said or recorded from a transcript otherwise.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any, Protocol

import numpy as np
import structlog

from ai_operator.media.frames import FRAME_MS
from ai_operator.media.vad import UtteranceEnded
from ai_operator.providers.health import watch_call

Transcribe = Callable[[np.ndarray], Coroutine[Any, Any, str]]
Count = Callable[[str], None]  # outcome: used | wasted | failed


class Segmenter(Protocol):
    in_speech: bool

    @property
    def silent_frames(self) -> int: ...

    def audio_so_far(self) -> tuple[np.ndarray, float]: ...


def call_counter(call: Any) -> Count:
    """Counts an outcome of a `daemon.call.Call`'s early transcripts, in /metrics and the call's summary."""
    counter = call.svc.metrics.early_stt_total

    def count(outcome: str) -> None:
        counter.labels(outcome=outcome).inc()
        counts = call.summary.setdefault("early_stt", {})
        counts[outcome] = counts.get(outcome, 0) + 1

    return count


class EarlyTranscript:
    """One call's speculative transcript (at most one in flight: a new pause replaces an older one)."""

    def __init__(self, pause_ms: int, transcribe: Transcribe, count: Count, frame_ms: int = FRAME_MS) -> None:
        self.pause_frames = -(-pause_ms // frame_ms) if pause_ms > 0 else 0
        self._transcribe = transcribe
        self._count = count
        self._task: asyncio.Task[str] | None = None
        self._key: tuple[float, int] | None = None  # (last speech frame's time, samples) of the audio sent
        self.on_ready: Callable[[str], None] | None = None  # told of the current transcript once it is made

    @classmethod
    def of_call(cls, call: Any, pause_ms: int) -> EarlyTranscript:
        """For a `daemon.call.Call`: its route's STT in the language its policy expects, counted in its metrics."""

        async def transcribe(audio: np.ndarray) -> str:
            # started from the pacer's tick, not the call's task: its log lines are the call's all the same
            structlog.contextvars.bind_contextvars(call_id=call.call_id, route=call.route.name)
            watch_call(call.provider_notes)  # and its provider failures are the call's (its record's summary)
            stt = call.svc.stt_for(call.route)
            return "" if stt is None else await stt.transcribe(audio, call.session.spoken_language)

        return cls(pause_ms, transcribe, call_counter(call))

    def frame(self, segmenter: Segmenter) -> None:
        """After every caller frame (synchronous): at the pause, start a transcript of the utterance so far."""
        if not self.pause_frames or not segmenter.in_speech or segmenter.silent_frames != self.pause_frames:
            return
        audio, last_speech_at = segmenter.audio_so_far()
        self._drop("wasted")  # an earlier pause of this utterance: the caller went on after it
        self._key = (last_speech_at, len(audio))
        self._task = asyncio.get_running_loop().create_task(self._transcribe(audio))
        self._task.add_done_callback(self._ready)

    def _ready(self, task: asyncio.Task[str]) -> None:
        if task is self._task and self.on_ready is not None and not task.cancelled() and task.exception() is None:
            self.on_ready(task.result())

    async def take(self, ended: UtteranceEnded) -> str | None:
        """The transcript of `ended` if one was made at its final pause (None: transcribe it now); raises what
        that transcription raised."""
        task, key = self._task, self._key
        if task is None or key != (ended.speech_ended_at, len(ended.audio)):
            self._drop("wasted")
            return None
        self._task = self._key = None
        try:
            text = await task
        except Exception:
            self._count("failed")
            raise  # the STT of this very audio failed (after its retries): the utterance's STT failed
        self._count("used")
        return text

    def _drop(self, outcome: str) -> None:
        task, self._task, self._key = self._task, None, None
        if task is None:
            return
        self._count(outcome)
        if not task.done():
            task.cancel()
        else:
            with contextlib.suppress(BaseException):
                task.exception()  # retrieved: a failed speculation is not an error of the call

    def close(self) -> None:
        """The call ended: nothing more will be taken."""
        self._drop("wasted")

    async def aclose(self) -> None:
        self.close()
