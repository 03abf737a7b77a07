"""Trimming the silence a TTS engine puts around a line, while it streams. Pure.

espeak-ng (and most TTS) starts a line with a little silence and ends it with 0.3-0.45 s of near-silence. The
caller hears the end of the voice as "the bot is done" and starts talking; if that silence were still played
out, the bot would count as speaking and the caller's first words would land under it. So the playout gets the
voice only: leading samples under `LEVEL` are dropped (keeping `KEEP_MS`), and a quiet tail is held back until
louder audio follows it, then dropped at the end of the line (keeping `KEEP_MS`).
"""

from __future__ import annotations

import numpy as np

from ai_operator.media.frames import SAMPLE_RATE

LEVEL = 300  # |sample| under this (about -40 dBFS) is silence around a line
KEEP_MS = 40
_KEEP = SAMPLE_RATE * KEEP_MS // 1000
_EMPTY = np.zeros(0, dtype=np.int16)


class SilenceTrimmer:
    """Feed a line's chunks with `push`; `end` returns what is left to play (a short tail)."""

    def __init__(self) -> None:
        self._started = False
        self._held: list[np.ndarray] = []  # quiet audio after the last loud sample

    def push(self, chunk: np.ndarray) -> np.ndarray:
        """Audio ready to play now (may be empty)."""
        if chunk.size == 0:
            return _EMPTY
        loud = np.flatnonzero(np.abs(chunk.astype(np.int32)) >= LEVEL)
        if loud.size == 0:
            if self._started:
                self._held.append(chunk)
            return _EMPTY
        first, last = int(loud[0]), int(loud[-1])
        if not self._started:
            self._started = True
            head = chunk[max(0, first - _KEEP) : last + 1]
        else:
            head = np.concatenate([*self._held, chunk[: last + 1]]) if self._held else chunk[: last + 1]
        self._held = [chunk[last + 1 :]] if last + 1 < chunk.size else []
        return head

    def end(self) -> np.ndarray:
        """The end of the line: a short piece of the quiet tail (none of the rest)."""
        if not self._held:
            return _EMPTY
        tail = np.concatenate(self._held)[:_KEEP]
        self._held = []
        return tail
