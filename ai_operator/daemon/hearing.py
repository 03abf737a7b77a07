"""One call's speech recognition, utterance by utterance: the transcript made at the utterance's last pause
(`early_stt.py`), the one streamed while it was spoken (`live_stt.py`), or a fresh one, its timing and metrics, and the failures in a row that decide when recognition
is given up on (the call then ends with the policy's line for `stt_unavailable`, never a loop of "sorry?")."""

from __future__ import annotations

import time
from typing import Any

from ai_operator.daemon.early_stt import EarlyTranscript
from ai_operator.daemon.live_stt import LiveTranscript
from ai_operator.media.vad import UtteranceEnded
from ai_operator.speech.stt import SpeechToText

STT_UNAVAILABLE = "stt_unavailable"  # the forced end (and disposition) when speech recognition keeps failing
STT_FAILED_TURNS_TO_END = 3  # "can't hear you" twice, then the policy's closing line rather than a loop of it


class Hearing:
    """Turns a finished utterance into text for one call (`call` is a `daemon.call.Call`)."""

    def __init__(self, call: Any, early_stt: EarlyTranscript | LiveTranscript) -> None:
        self.call = call
        self.early_stt = early_stt
        self.failures = 0  # failed transcriptions in a row

    @property
    def given_up(self) -> bool:
        """Recognition failed often enough in a row that the call should end."""
        return self.failures >= STT_FAILED_TURNS_TO_END

    async def transcribe(self, stt: SpeechToText, ev: UtteranceEnded, timings: dict[str, float]) -> str | None:
        """The utterance's text; None when recognition failed (logged and counted; `given_up` says what next).
        `timings["stt_ms"]` is set either way."""
        call = self.call
        t0 = time.perf_counter()
        try:  # a transcript made at the utterance's last pause, if there is one
            early = await self.early_stt.take(ev)
            text: str = early if early is not None else await stt.transcribe(ev.audio, call.session.spoken_language)
        except Exception as exc:
            timings["stt_ms"] = (time.perf_counter() - t0) * 1000
            call.log.warning("stt_failed", error=str(exc))
            call.svc.metrics.adapter_errors_total.labels(adapter="stt").inc()
            self.failures += 1
            return None
        self.failures = 0
        timings["stt_ms"] = (time.perf_counter() - t0) * 1000
        call.svc.metrics.adapter_latency_seconds.labels(adapter="stt").observe(timings["stt_ms"] / 1000)
        return text
