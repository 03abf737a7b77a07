"""The caller's voice and the STT the daemon process uses in the real-Asterisk tests.

The caller speaks espeak-ng clips. The daemon's STT is the package's local OpenAI-compatible server
(`ai_operator.sim.openai_server.FakeOpenAI`), run here on its own thread and event loop (so one server serves
every test, whatever loop a test runs in), which recognises the test's own clips: a clip the caller is about to
say is armed (`expect`), and an uploaded utterance is the armed clip whose audio it matches best (normalised
cross-correlation of the 8 kHz samples, after G.711 both ways through Asterisk). A recognised clip is disarmed,
so a second fragment of the same line transcribes as "" (as a real recogniser hears a cough). Audio matching no
armed clip transcribes as "". A line said in pieces with pauses between them (`expect_pieces`) is heard as the
pieces an utterance holds, in order, as a real recogniser hears what was said so far: the fragment before a
mid-sentence pause, the rest after it, or the whole line.

With streaming STT (`STT_PROVIDER=openai_realtime`) the server asks the script again on all of an utterance's audio
(a call's one websocket, from the utterance's `clear`) at every partial and commit, and itself drops what a completed item already said; `LineRecogniser` serves that:
only the line the caller is saying now is armed (arming one disarms the one before) and it stays armed, so the
partials, the pause's commit and the final of one utterance all hear the same line.
"""

from __future__ import annotations

import asyncio
import io
import threading
import wave
from dataclasses import dataclass, field

import numpy as np

from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.speech.espeak import EspeakTTS

CALLER_WPM = 200
SPEECH_LEVEL = 500  # |sample| above this is the caller's voice (leading/trailing silence trimmed)
MATCH_THRESHOLD = 0.5
API_KEY = "sk-local-test-0123456789"


def caller_clip(text: str, language: str, wpm: int = CALLER_WPM) -> np.ndarray:
    """`text` in espeak-ng's voice for `language`, int16 at 8 kHz, silence trimmed at both ends."""

    async def make() -> np.ndarray:
        chunks = [c async for c in EspeakTTS(rate_wpm=wpm).stream(text, language)]
        return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)

    pcm = asyncio.run(make())
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > SPEECH_LEVEL)
    return pcm[loud[0] : loud[-1] + 1] if loud.size else pcm


def wav_pcm(data: bytes) -> np.ndarray:
    with wave.open(io.BytesIO(data)) as w:
        if w.getframerate() != SAMPLE_RATE or w.getsampwidth() != 2:
            raise ValueError(f"unexpected upload: {w.getframerate()} Hz, {w.getsampwidth()} bytes per sample")
        return np.frombuffer(w.readframes(w.getnframes()), dtype="<i2").astype(np.int16)


def similarity(heard: np.ndarray, clip: np.ndarray) -> float:
    """Peak normalised cross-correlation of `clip` sliding over `heard` (1.0: the same samples somewhere)."""
    a = heard.astype(np.float64)
    b = clip.astype(np.float64)
    if a.size == 0 or b.size == 0:
        return 0.0
    if a.size < b.size:  # a fragment: slide it over the clip instead
        a, b = b, a
    n = int(2 ** np.ceil(np.log2(a.size + b.size)))
    corr = np.fft.irfft(np.fft.rfft(a, n) * np.conj(np.fft.rfft(b, n)), n)[: a.size]
    # the energy of `a` under `b` at each shift (cut at a's end): running sums, not a convolution (which costs
    # a.size * b.size: seconds for the streaming STT's calls on every partial)
    summed = np.concatenate([[0.0], np.cumsum(a * a)])
    ends = np.minimum(np.arange(a.size) + b.size, a.size)
    energy = np.sqrt(np.maximum(summed[ends] - summed[: a.size], 0.0))
    norm = energy * np.sqrt(float((b * b).sum()))
    with np.errstate(divide="ignore", invalid="ignore"):
        score = np.where(norm > 0, corr / norm, 0.0)
    return float(np.max(score))


@dataclass
class ClipRecogniser:
    """What the local server answers to a transcription request (thread-safe)."""

    armed: dict[str, np.ndarray] = field(default_factory=dict)
    heard: list[tuple[str, float]] = field(default_factory=list)  # (transcript, score) per request
    pieces: list[tuple[str, np.ndarray]] = field(default_factory=list)  # a line said in pieces (`expect_pieces`)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def expect(self, text: str, pcm: np.ndarray) -> None:
        with self._lock:
            self.armed[text] = pcm
            self.pieces = []

    def expect_pieces(self, pieces: list[tuple[str, np.ndarray]]) -> None:
        """The caller is about to say one line in `pieces` (text, clip), pausing between them: until another line
        is armed, an utterance is heard as the pieces it holds, in order (none: "")."""
        with self._lock:
            self.pieces = list(pieces)

    def __call__(self, wav: bytes, _fields: dict) -> str:
        pcm = wav_pcm(wav)
        with self._lock:
            if self.pieces:
                scores = [(similarity(pcm, clip), text) for text, clip in self.pieces]
                heard = " ".join(text for score, text in scores if score >= MATCH_THRESHOLD)
                self.heard.append((heard, max(score for score, _ in scores)))
                return heard
            scored = sorted(((similarity(pcm, clip), text) for text, clip in self.armed.items()), reverse=True)
            text = ""
            if scored and scored[0][0] >= MATCH_THRESHOLD:
                text = scored[0][1]
                del self.armed[text]
            self.heard.append((text, scored[0][0] if scored else 0.0))
            return text


class LineRecogniser(ClipRecogniser):
    """The streaming session's script: the line being said now, heard in any fragment of it (see the module doc)."""

    def expect(self, text: str, pcm: np.ndarray) -> None:
        with self._lock:
            self.armed = {text: pcm}

    def __call__(self, wav: bytes, _fields: dict) -> str:
        pcm = wav_pcm(wav)
        with self._lock:
            score, text = max(((similarity(pcm, clip), text) for text, clip in self.armed.items()), default=(0.0, ""))
            heard = text if score >= MATCH_THRESHOLD else ""
            self.heard.append((heard, score))
            return heard


class LocalOpenAI:
    """FakeOpenAI on a background thread; `url` and `api_key` go into the daemon's env file."""

    def __init__(self, recogniser: ClipRecogniser | None = None) -> None:
        self.recogniser = recogniser or ClipRecogniser()
        self.server = FakeOpenAI(api_key=API_KEY)
        self.server.transcripts = self.recogniser
        self._loop = asyncio.new_event_loop()
        self._thread = threading.Thread(target=self._loop.run_forever, name="local-openai", daemon=True)
        self.url = ""

    @property
    def api_key(self) -> str:
        return self.server.api_key

    def start(self) -> LocalOpenAI:
        self._thread.start()
        self.url = asyncio.run_coroutine_threadsafe(self.server.start(), self._loop).result(30)
        return self

    def stop(self) -> None:
        if self._thread.is_alive():
            asyncio.run_coroutine_threadsafe(self.server.stop(), self._loop).result(30)
            self._loop.call_soon_threadsafe(self._loop.stop)
            self._thread.join(10)
