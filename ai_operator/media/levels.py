"""Audio levels and the echo reference: is a caller frame the caller, or the bot's own voice coming back? Pure.

Speech level swings 30 dB from frame to frame, so comparisons work on smoothed power: the caller's mean power over
the last `CALLER_WINDOW_MS` against the bot's mean output power over the last `ECHO_WINDOW_MS` minus
`ECHO_MARGIN_DB`. The bot's own audio coming back as line echo at -20 dB stays below that (the shorter caller
window can gain at most 10*log10(ECHO_WINDOW_MS / CALLER_WINDOW_MS) = 3 dB over the longer one, leaving 5 dB of
slack at a 12 dB margin). Barge-in and the decision whether speech under the bot's voice is a turn both use it.
"""

from __future__ import annotations

import math

import numpy as np

from ai_operator.media.frames import FRAME_MS

ECHO_WINDOW_MS = 400  # bot output reference: echo may come back this late
CALLER_WINDOW_MS = 200  # caller level smoothing
ECHO_MARGIN_DB = 12.0
SILENCE_DB = -120.0
_FULL_SCALE_SQ = 32768.0 * 32768.0
_SILENCE_POWER = 1e-12
BOT_FLOOR_POWER = 10 ** (-70.0 / 10)  # a bot reference under -70 dBFS is no reference at all


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
    """The last `size` frame powers and their running sum. Once the whole ring is silence, more silence changes
    nothing (the sum stays, and which slot is overwritten next does not matter: it is all zeros), so
    `push_zeros` stops there: a long quiet stretch costs nothing per frame."""

    __slots__ = ("_i", "_size", "_sum", "_values", "_zeros")

    def __init__(self, size: int) -> None:
        self._values = [0.0] * size
        self._size = size
        self._i = 0
        self._sum = 0.0
        self._zeros = size  # trailing zeros pushed (the ring starts silent)

    def push(self, power: float) -> None:
        i = self._i
        self._sum += power - self._values[i]
        self._values[i] = power
        self._i = i + 1 if i + 1 < self._size else 0
        self._zeros = self._zeros + 1 if power == 0.0 else 0

    @property
    def silent(self) -> bool:
        """Every slot is silence (more silence changes nothing)."""
        return self._zeros >= self._size

    def push_zeros(self, count: int) -> None:
        for _ in range(min(count, self._size - self._zeros)):
            self.push(0.0)

    def mean(self) -> float:
        return max(0.0, self._sum) / self._size


class EchoReference:
    """What the bot sent recently and what the caller sent, smoothed; `caller_dominant` is the echo test.

    Bot frames arrive with their send time; slots in which nothing was sent count as silence, so the reference
    decays after the bot stops without a callback per idle tick.
    """

    def __init__(self, frame_ms: int = FRAME_MS, margin_db: float = ECHO_MARGIN_DB) -> None:
        self._frame_s = frame_ms / 1000.0
        self._bot = _PowerRing(max(1, ECHO_WINDOW_MS // frame_ms))
        self._caller = _PowerRing(max(1, CALLER_WINDOW_MS // frame_ms))
        self._margin = 10 ** (-margin_db / 10)
        self._last_slot: int | None = None
        self._caller_slot: int | None = None
        self.margin_db = margin_db

    def _fill_to(self, slot: int) -> None:
        """Silence for the slots after the last bot frame, up to (not including) `slot`."""
        last = self._last_slot
        if last is None or slot <= last + 1:
            return
        self._bot.push_zeros(slot - last - 1)
        self._last_slot = slot - 1

    def note_bot_power(self, power: float, at: float) -> None:
        """A frame the bot sent at `at` (its power, computed once per chunk by the playout)."""
        slot = int(at / self._frame_s)
        last = self._last_slot
        if last is not None and slot > last + 1:  # `_fill_to(slot)`, inline: this runs for every frame sent
            self._bot.push_zeros(slot - last - 1)
        self._bot.push(power)
        if last is None or slot > last:
            self._last_slot = slot

    def note_caller_power(self, power: float, at: float) -> None:
        """A caller frame received at `at`; the bot reference decays to this time first (a bot frame due in the
        same slot may still come, so the last slot is left alone)."""
        slot = int(at / self._frame_s)
        self._fill_to(slot - 1)
        last = self._caller_slot
        if last is not None and slot > last + 1:  # caller frames not measured meanwhile (the bot was quiet):
            self._caller.push_zeros(slot - last - 1)  # they are not in the smoothed level
        self._caller_slot = slot if last is None else max(slot, last)
        if power == 0.0:  # digital silence (most caller frames while the bot talks): free once the ring is silent
            self._caller.push_zeros(1)
        else:
            self._caller.push(power)

    def bot_active(self, at: float) -> bool:
        """The bot's voice is in the echo window at `at`: caller frames need the echo test."""
        self._fill_to(int(at / self._frame_s) - 1)
        return self._bot.mean() > BOT_FLOOR_POWER

    @property
    def bot_silent(self) -> bool:
        """The bot's whole echo window is silence: `bot_active` is False at any later time until the bot sends
        again."""
        bot = self._bot
        return bot.silent and bot.mean() <= BOT_FLOOR_POWER  # (the running sum may keep a rounding residue)

    @property
    def caller_silent(self) -> bool:
        """The caller's whole smoothed window is silence: another silent caller frame changes nothing."""
        caller = self._caller  # `_PowerRing.silent`, inline: read for most caller frames
        return caller._zeros >= caller._size

    def caller_dominant(self) -> bool:
        """The caller's recent level is above the bot's recent output level minus the margin."""
        return self._caller.mean() > self._bot.mean() * self._margin
