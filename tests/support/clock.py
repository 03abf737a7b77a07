"""A clock a test moves by hand (`ai_operator/clock.py`'s `Clock`): the real monotonic time plus what `advance`
added, and a wall time that starts at a chosen date and goes on with it. Pacing still runs in real time; only
what the daemon reads as "how long" jumps."""

from __future__ import annotations

import time
from datetime import datetime, timedelta


class MovedClock:
    def __init__(self, wall: datetime) -> None:
        self.offset = 0.0
        self._wall = wall
        self._start = time.monotonic()

    def monotonic(self) -> float:
        return time.monotonic() + self.offset

    def now(self) -> datetime:
        return self._wall + timedelta(seconds=self.monotonic() - self._start)

    def advance(self, seconds: float) -> None:
        self.offset += seconds
