"""Instant speech adapters FOR BENCHMARKS AND LATENCY MEASUREMENTS ONLY (pure, no I/O).

`InstantSTT` returns scripted transcripts and `InstantTTS` returns a tone at once, so a benchmark measures the
bridge's own latency (VAD, turn-taking, policy, playout) without any provider delay. Nothing selects them by
default; a benchmark or test builds them explicitly.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence

import numpy as np

from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.speech.errors import SpeechError

DEFAULT_SECONDS_PER_CHAR = 0.06
DEFAULT_TONE_HZ = 440.0
DEFAULT_AMPLITUDE = 8000
INSTANT_CHUNK_SAMPLES = 1600


def tone(
    seconds: float, rate: int = SAMPLE_RATE, hz: float = DEFAULT_TONE_HZ, amplitude: int = DEFAULT_AMPLITUDE
) -> np.ndarray:
    """`seconds` of a sine tone as int16 samples at `rate`."""
    t = np.arange(round(seconds * rate)) / rate
    return (amplitude * np.sin(2 * np.pi * hz * t)).astype(np.int16)


class InstantSTT:
    """Benchmark STT: a fixed list of transcripts (in order) or a function of the audio."""

    name = "instant"

    def __init__(self, transcripts: Callable[[np.ndarray], str] | Sequence[str]) -> None:
        self._fn = transcripts if callable(transcripts) else None
        self._queue = [] if callable(transcripts) else list(transcripts)
        self.calls = 0
        self.languages: list[str | None] = []

    async def transcribe(self, pcm: np.ndarray, language: str | None) -> str:
        self.calls += 1
        self.languages.append(language)
        if self._fn is not None:
            return self._fn(pcm)
        if not self._queue:
            raise SpeechError(
                f"stt provider instant: transcript script exhausted after {self.calls - 1} call(s)"
            )
        return self._queue.pop(0)


class InstantTTS:
    """Benchmark TTS: a sine tone, `seconds_per_char` per character of text (or `fixed_s` for every line)."""

    name = "instant"

    def __init__(
        self,
        *,
        seconds_per_char: float = DEFAULT_SECONDS_PER_CHAR,
        fixed_s: float | None = None,
        tone_hz: float = DEFAULT_TONE_HZ,
        amplitude: int = DEFAULT_AMPLITUDE,
    ) -> None:
        self.seconds_per_char = seconds_per_char
        self.fixed_s = fixed_s
        self.tone_hz = tone_hz
        self.amplitude = amplitude
        self.calls = 0

    def voice_id(self, language: str) -> str:
        return f"tone{int(self.tone_hz)}-{language}"

    async def prewarm(self, lines: list[tuple[str, str]]) -> int:
        return 0  # nothing to cache: every line is made instantly

    def duration_s(self, text: str) -> float:
        return self.fixed_s if self.fixed_s is not None else len(text) * self.seconds_per_char

    async def stream(self, text: str, language: str, *, cache: bool = True) -> AsyncIterator[np.ndarray]:
        self.calls += 1
        audio = tone(self.duration_s(text), SAMPLE_RATE, self.tone_hz, self.amplitude)
        for start in range(0, audio.size, INSTANT_CHUNK_SAMPLES):
            yield audio[start : start + INSTANT_CHUNK_SAMPLES]
