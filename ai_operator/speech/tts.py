"""Text-to-speech: the `TextToSpeech` interface every adapter implements, and `synthesize` (a whole line).

An adapter's `stream(text, language)` is an async iterator of int16 8 kHz mono chunks (any length); the first
chunk comes as early as the provider allows, so playout can start before the whole line is synthesised.
`voice_id(language)` names the voice a line is spoken with (the cache keys on it). The adapters live in
`espeak.py` (local espeak-ng), `openai_tts.py` (streamed OpenAI speech) and `cache.py` (disk + memory cache of
canned lines over any adapter).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Protocol, runtime_checkable

import numpy as np

from ai_operator.speech.errors import SpeechError


@runtime_checkable
class TextToSpeech(Protocol):
    """Speaks text as int16 8 kHz mono chunks; raises `SpeechError` on failure."""

    name: str

    def stream(self, text: str, language: str) -> AsyncIterator[np.ndarray]: ...

    def voice_id(self, language: str) -> str: ...


@runtime_checkable
class LineTTS(Protocol):
    """What a call speaks with: a TTS behind the line cache (`cache.CachedTTS`) or a benchmark double.
    `cache=False` for model-written lines, which are never repeated."""

    def stream(self, text: str, language: str, *, cache: bool = True) -> AsyncIterator[np.ndarray]: ...

    async def prewarm(self, lines: list[tuple[str, str]]) -> int: ...


async def synthesize(tts: TextToSpeech, text: str, language: str) -> np.ndarray:
    """The whole utterance as one int16 array (convenience for tests, doctor and prewarming)."""
    parts = [chunk async for chunk in tts.stream(text, language)]
    if not parts:
        return np.zeros(0, dtype=np.int16)
    return np.concatenate(parts).astype(np.int16, copy=False)


__all__ = ["LineTTS", "SpeechError", "TextToSpeech", "synthesize"]
