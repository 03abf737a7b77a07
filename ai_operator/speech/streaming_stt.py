"""The second STT shape: streaming speech-to-text (frames in, partial and final text out), and the bridge that
lets the daemon's segmented turn path (one utterance in, text out) run on a streaming provider.

A `StreamingSpeechToText` opens one `SttStream` per utterance (or per call): `feed(frame)` any number of int16
8 kHz frames, then `finish()`; `results()` yields `Transcript`s, partial ones (`final=False`, each replacing the
previous partial) and final ones (`final=True`, a stretch of speech settled). A failure raises `SpeechError`.
A stream may also have `commit()`: settle the audio so far as one stretch (its final comes) and go on
(`daemon/live_stt.py` commits at the caller's pause). A provider may also have `connection()`: one connection a
call's streams are opened on in turn (`open`, `connect` ahead, `aclose` at the end), so an utterance does not pay
a new connection's handshakes.
`SegmentedOverStreaming` feeds a whole utterance in 20 ms frames and returns the final texts joined, so a
streaming provider serves today's turn path with no change to it; the latency work can read the partials.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

import numpy as np

from ai_operator.media.frames import FRAME_SAMPLES


@dataclass(frozen=True)
class Transcript:
    """Text heard so far: `final=False` is a partial (replaced by the next one), `final=True` is settled."""

    text: str
    final: bool


class SttStream(Protocol):
    """One open recognition stream."""

    async def feed(self, frame: np.ndarray) -> None: ...

    async def finish(self) -> None: ...

    def results(self) -> AsyncIterator[Transcript]: ...

    async def aclose(self) -> None: ...


@runtime_checkable
class StreamingSpeechToText(Protocol):
    """Opens recognition streams; `language` is the provider's code (the registry's hook has mapped it)."""

    name: str

    async def open(self, language: str | None) -> SttStream: ...


class SegmentedOverStreaming:
    """A `SpeechToText` (segmented) over a `StreamingSpeechToText`: one utterance in, its final text out."""

    streaming = True  # `open` streams too (`daemon/live_stt.py` feeds it while the caller speaks)

    def __init__(self, inner: StreamingSpeechToText) -> None:
        self.inner = inner
        self.name = inner.name

    async def open(self, language: str | None) -> SttStream:
        return await self.inner.open(language)

    def connection(self) -> Any:
        """The provider's connection for one call's streams in turn, or None when it has none."""
        make = getattr(self.inner, "connection", None)
        return make() if make is not None else None

    async def transcribe(self, pcm: np.ndarray, language: str | None) -> str:
        audio = np.asarray(pcm, dtype=np.int16)
        if audio.size == 0:
            return ""
        stream = await self.inner.open(language)
        try:
            for start in range(0, audio.size, FRAME_SAMPLES):
                await stream.feed(audio[start : start + FRAME_SAMPLES])
            await stream.finish()
            finals = [t.text.strip() async for t in stream.results() if t.final and t.text.strip()]
        finally:
            await stream.aclose()
        return " ".join(finals)


__all__ = ["SegmentedOverStreaming", "StreamingSpeechToText", "SttStream", "Transcript"]
