"""The daemon's clock: monotonic seconds for timers, deadlines and durations, and the wall time (UTC) written in
records. The daemon holds one (`Services.clock`; `DaemonOverrides.clock` to inject another) and gives it to its
pacer and to every `Call`, so a call's timers and the media events it is told of read the same clock. The real
one is `SystemClock`; a test may pass its own (anything with `monotonic()` and `now()`)."""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds from an arbitrary start that never go back."""
        ...

    def now(self) -> datetime:
        """The wall time, timezone-aware UTC."""
        ...


class SystemClock:
    """The real clock: `time.monotonic()` and `datetime.now(UTC)`."""

    def monotonic(self) -> float:
        return time.monotonic()

    def now(self) -> datetime:
        return datetime.now(UTC)


__all__ = ["Clock", "SystemClock"]
