"""Barge-in: does the caller talk over the bot? Pure, no I/O.

A caller frame counts when the VAD calls it speech AND it passes the echo test of `levels.EchoReference` (the
caller's smoothed level above the bot's recent output level minus a margin). `feed` returns True once when
counted frames have been sustained for `threshold_ms` while the bot speaks; a short dip
(`GAP_TOLERANCE_FRAMES`) inside the run is tolerated, a longer pause starts the count again, so a cough shorter
than the threshold never triggers.
"""

from __future__ import annotations

from ai_operator.media.frames import FRAME_MS

GAP_TOLERANCE_FRAMES = 2  # non-counting frames allowed inside a run of caller speech


class BargeInDetector:
    """Counts sustained caller speech over the bot."""

    def __init__(self, threshold_ms: int, frame_ms: int = FRAME_MS) -> None:
        if threshold_ms <= 0 or frame_ms <= 0:
            raise ValueError("barge-in threshold_ms and frame_ms must be positive")
        self._needed = max(1, -(-threshold_ms // frame_ms))
        self.reset()

    def reset(self) -> None:
        """Forget the current run and allow a new trigger."""
        self._count = 0
        self._gap = 0
        self._fired = False

    def feed(self, counts: bool, bot_speaking: bool) -> bool:
        """One caller frame (`counts`: speech that passed the echo test); True once when the caller barged in."""
        if not bot_speaking:
            if self._count or self._fired:
                self.reset()
            return False
        if self._fired:
            return False
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
