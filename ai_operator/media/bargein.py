"""Barge-in: does the caller talk over the bot? Pure, no I/O.

Echo rejection works on smoothed power, because speech level swings 30 dB from frame to frame: a caller frame
counts only when the VAD calls it speech AND the caller's mean power over the last `CALLER_WINDOW_MS` is above
the bot's mean output power over the last `ECHO_WINDOW_MS` minus `echo_margin_db`. The bot's own audio coming
back as line echo at -20 dB stays below that (the shorter caller window can gain at most
10*log10(ECHO_WINDOW_MS / CALLER_WINDOW_MS) = 3 dB over the longer one, leaving 5 dB of slack at a 12 dB margin).

`feed` returns True once when counted frames have been sustained for `threshold_ms` while the bot speaks; a
short dip (`GAP_TOLERANCE_FRAMES`) inside the run is tolerated, a longer pause starts the count again, so a
cough shorter than the threshold never triggers.
"""

from __future__ import annotations

import math

import numpy as np

ECHO_WINDOW_MS = 400  # bot output reference: echo may come back this late
CALLER_WINDOW_MS = 200  # caller level smoothing
GAP_TOLERANCE_FRAMES = 2  # non-counting frames allowed inside a run of caller speech
SILENCE_DB = -120.0
_FULL_SCALE_SQ = 32768.0 * 32768.0
_SILENCE_POWER = 1e-12


def frame_power(pcm: np.ndarray) -> float:
    """Mean square of a frame relative to full scale (1.0 = 0 dBFS)."""
    arr = np.asarray(pcm, dtype=np.float32)
    if arr.size == 0:
        return 0.0
    return float(np.dot(arr, arr)) / arr.size / _FULL_SCALE_SQ


def frame_powers(pcm: np.ndarray, frame_samples: int) -> np.ndarray:
    """`frame_power` of every whole frame of `pcm` at once (vectorised; the partial tail is left out)."""
    n = np.asarray(pcm).size // frame_samples
    if n == 0:
        return np.zeros(0, dtype=np.float64)
    frames = np.asarray(pcm[: n * frame_samples], dtype=np.float32).reshape(n, frame_samples)
    return np.einsum("ij,ij->i", frames, frames, dtype=np.float64) / frame_samples / _FULL_SCALE_SQ


def power_db(power: float) -> float:
    return 10.0 * math.log10(power) if power > _SILENCE_POWER else SILENCE_DB


def frame_level_db(pcm: np.ndarray) -> float:
    """RMS level of a frame in dBFS (-120 for digital silence)."""
    return power_db(frame_power(pcm))


class _PowerRing:
    __slots__ = ("_i", "_values")

    def __init__(self, size: int) -> None:
        self._values = [0.0] * size
        self._i = 0

    def push(self, power: float) -> None:
        self._values[self._i] = power
        self._i = (self._i + 1) % len(self._values)

    def mean(self) -> float:
        return sum(self._values) / len(self._values)


class BargeInDetector:
    """Counts sustained caller speech over the bot, with echo rejection."""

    def __init__(self, threshold_ms: int = 200, frame_ms: int = 20, echo_margin_db: float = 12.0) -> None:
        if threshold_ms <= 0 or frame_ms <= 0:
            raise ValueError("barge-in threshold_ms and frame_ms must be positive")
        self.frame_ms = frame_ms
        self.echo_margin_db = echo_margin_db
        self._margin = 10 ** (-echo_margin_db / 10)
        self._needed = max(1, -(-threshold_ms // frame_ms))
        self._bot = _PowerRing(max(1, ECHO_WINDOW_MS // frame_ms))
        self._caller = _PowerRing(max(1, CALLER_WINDOW_MS // frame_ms))
        self.reset()

    def reset(self) -> None:
        """Forget the current run and allow a new trigger."""
        self._count = 0
        self._gap = 0
        self._fired = False

    def note_bot_frame(self, pcm: np.ndarray) -> None:
        """The frame we just sent: it becomes part of the echo reference."""
        self._bot.push(frame_power(pcm))

    def note_bot_power(self, power: float) -> None:
        """Like `note_bot_frame`, with the frame's power already computed (the playout does it per chunk)."""
        self._bot.push(power)

    def feed(self, is_speech: bool, caller_frame: np.ndarray, bot_speaking: bool) -> bool:
        """One caller frame; True exactly once when the caller has barged in on the bot."""
        self._caller.push(frame_power(caller_frame))
        if not bot_speaking:
            if self._count or self._fired:
                self.reset()
            return False
        if self._fired:
            return False
        counts = is_speech and self._caller.mean() > self._bot.mean() * self._margin
        if counts:
            self._count += 1
            self._gap = 0
        elif self._count:
            self._gap += 1
            if self._gap > GAP_TOLERANCE_FRAMES:
                self._count = 0
                self._gap = 0
        if self._count >= self._needed:
            self._fired = True
            self._count = 0
            return True
        return False
