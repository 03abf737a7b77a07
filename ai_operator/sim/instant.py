"""Instant speech adapters FOR BENCHMARKS AND LATENCY MEASUREMENTS ONLY (pure, no I/O).

`InstantSTT` returns scripted transcripts, `ScriptedSTT` recognises which of a caller's scripted lines was
said (by its audio) and `InstantTTS` returns a tone at once, so a benchmark measures the bridge's own latency
(VAD, turn-taking, policy, playout) without any provider delay. Nothing selects them by default; a benchmark or
test builds them explicitly.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import AsyncIterator, Callable, Mapping, Sequence

import numpy as np

from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.speech.errors import SpeechError

DEFAULT_SECONDS_PER_CHAR = 0.06
DEFAULT_TONE_HZ = 440.0
DEFAULT_AMPLITUDE = 8000
INSTANT_CHUNK_SAMPLES = 1600
SCRIPT_FRAME_SAMPLES = 160  # 20 ms at 8 kHz: the caller's audio arrives in these frames
SCRIPT_QUIET_PEAK = 64  # frames this quiet (silence, padding) say nothing about which line it was


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


IN_ORDER_SHARE = 4  # `recognise_in_order`: a line needs a quarter of the leading line's frames to be heard


class ScriptedSTT:
    """Benchmark STT for callers that read scripted lines: it knows each line's audio exactly as it reaches the
    daemon (after the codec) and recognises an utterance by voting over its 20 ms frames, so every call gets
    the transcript of the line its caller actually said, whatever the call's place in its dialogue. Frames
    shared by several lines, and quiet frames, do not vote. Audio matching no line transcribes as "".
    """

    name = "scripted"

    def __init__(self, lines: Mapping[str, np.ndarray], frame_samples: int = SCRIPT_FRAME_SAMPLES) -> None:
        self.frame_samples = frame_samples
        self._index: dict[bytes, str | None] = {}
        for text, pcm in lines.items():
            for frame in self._frames(np.asarray(pcm, dtype=np.int16)):
                if int(np.abs(frame.astype(np.int32)).max()) < SCRIPT_QUIET_PEAK:
                    continue
                key = frame.tobytes()
                self._index[key] = text if self._index.get(key, text) == text else None
        self.calls = 0
        self.unrecognised = 0

    def _frames(self, pcm: np.ndarray) -> list[np.ndarray]:
        n = len(pcm) // self.frame_samples
        return [pcm[i * self.frame_samples : (i + 1) * self.frame_samples] for i in range(n)]

    async def transcribe(self, pcm: np.ndarray, language: str | None) -> str:
        return self.recognise(pcm)

    def recognise(self, pcm: np.ndarray) -> str:
        """The line `pcm` is (the transcript); "" when it matches none. Synchronous, for a server double."""
        votes = self._votes(pcm)
        return votes.most_common(1)[0][0] if votes else ""

    def recognise_in_order(self, pcm: np.ndarray) -> str:
        """The lines `pcm` holds, in the order it says them (a line or fragment with at least 1/`IN_ORDER_SHARE`
        of the leading one's votes), joined: a caller line said in parts (`latency_plan`'s paused lines) is heard
        as what was said so far. Synchronous, for a server double."""
        votes = self._votes(pcm)
        least = max(votes.values(), default=0) / IN_ORDER_SHARE
        return " ".join(text for text, n in votes.items() if n >= least)  # a Counter keeps first-seen order

    def _votes(self, pcm: np.ndarray) -> Counter[str]:
        self.calls += 1
        votes: Counter[str] = Counter()
        for frame in self._frames(np.asarray(pcm, dtype=np.int16)):
            text = self._index.get(frame.tobytes())
            if text is not None:
                votes[text] += 1
        self.unrecognised += not votes
        return votes


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
