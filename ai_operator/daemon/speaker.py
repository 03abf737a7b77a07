"""Speaks replies: TTS chunks into the call's playout stream, one utterance at a time, cancellable on barge-in."""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ai_operator.logs import get_logger
from ai_operator.media.playout import PlayoutStream

log = get_logger("speaker")
_EMPTY = np.zeros(0, dtype=np.int16)
KAZAKH_LETTERS = frozenset("әғқңөұүһіӘҒҚҢӨҰҮҺІ")


KAZAKH_LINE_SHARE = 0.3  # a line where this share of the words has Kazakh-only letters is Kazakh


def _is_kazakh(line: str) -> bool:
    words = line.split()
    kazakh = sum(1 for w in words if KAZAKH_LETTERS.intersection(w))
    return bool(words) and kazakh / len(words) >= KAZAKH_LINE_SHARE


def voice_segments(text: str, language: str) -> list[tuple[str, str]]:
    """Split a reply into (text, voice) lines: a Kazakh line inside a Russian reply (the bilingual greeting) gets
    the kk voice, so each half is read by a voice that knows its letters. A Russian line that only names
    "қазақша" stays Russian."""
    if language != "ru" or not KAZAKH_LETTERS.intersection(text):
        return [(text, language)]
    out: list[tuple[str, str]] = []
    for line in (ln.strip() for ln in text.splitlines()):
        if line:
            out.append((line, "kk" if _is_kazakh(line) else "ru"))
    return out


class Speaker:
    """Streams one reply at a time from a TTS adapter into `stream`; `cut()` stops it at once."""

    def __init__(self, stream: PlayoutStream, tts: Any, *, on_error: Callable[[str, Exception], None]) -> None:
        self.stream = stream
        self.tts = tts
        self._with_cache = _accepts_cache(tts.stream)  # looked up once, not per utterance
        self._on_error = on_error
        self._task: asyncio.Task[None] | None = None
        self._count = 0
        self.first_chunk_ms: dict[str, float] = {}

    def say(self, text: str, language: str, *, cache: bool) -> str:
        """Start speaking `text`; returns the utterance id. A previous utterance still playing is cut first."""
        self.cut()
        self._count += 1
        utterance_id = f"u{self._count}"
        self._task = asyncio.create_task(self._run(utterance_id, text, language, cache))
        return utterance_id

    async def _run(self, utterance_id: str, text: str, language: str, cache: bool) -> None:
        t0 = time.perf_counter()
        first = True
        try:
            for part, voice in voice_segments(text, language):
                chunks = self.tts.stream(part, voice, cache=cache) if self._with_cache else self.tts.stream(part, voice)
                async for chunk in chunks:
                    if first:
                        self.first_chunk_ms[utterance_id] = (time.perf_counter() - t0) * 1000
                        first = False
                    self.stream.enqueue(chunk, utterance_id, final=False)
            self.stream.enqueue(_EMPTY, utterance_id, final=True)
        except asyncio.CancelledError:
            raise
        except Exception as exc:  # TTS failure: the line is lost, the call goes on
            self._on_error(utterance_id, exc)
            if not first:
                self.stream.enqueue(_EMPTY, utterance_id, final=True)

    def cut(self) -> str | None:
        """Stop synthesis and playout now (barge-in); returns the utterance that was playing, if any."""
        if self._task is not None and not self._task.done():
            self._task.cancel()
        self._task = None
        return self.stream.flush()

    @property
    def busy(self) -> bool:
        """Synthesising or playing."""
        return (self._task is not None and not self._task.done()) or self.stream.speaking or self.stream.queued_utterances > 0


def _accepts_cache(fn: Any) -> bool:
    try:
        return "cache" in inspect.signature(fn).parameters
    except (TypeError, ValueError):
        return False
