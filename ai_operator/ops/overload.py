"""Is the daemon behind? Measured all the time, exported in /metrics, and used to refuse new calls.

The signal is loop lag: how late a `PROBE_S` timer wakes up (every RTP packet and every pacer tick waits at
least that long behind whatever is running); `LATE_PROBES` late probes within `LATE_WINDOW_S` make an overload,
so one garbage-collection pause does not. (The pacer's skipped frames, exported beside it, follow from the
same lateness: the pacer only skips when the loop is 60 ms behind.) While the daemon is behind, a new call goes back to the dialplan
(another node, a queue, the fallback) instead of degrading every call in progress; it is taken again once the
daemon has been on time for `RECOVER_S`. `LoadState` is pure (clock given); `LagProbe` is the task feeding it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ai_operator.background import BackgroundTask

PROBE_S = 0.05
BEHIND_LAG_MS = 60.0  # inbound audio must be read within 60 ms of arrival; a loop this late cannot
LATE_PROBES = 3
LATE_WINDOW_S = 1.0
RECOVER_S = 5.0


@dataclass
class LoadState:
    """The latest verdict on whether the daemon keeps up. `behind(now)` is what admission asks."""

    behind_lag_ms: float = BEHIND_LAG_MS
    recover_s: float = RECOVER_S
    last_lag_ms: float = 0.0
    max_lag_ms: float = 0.0
    reason: str = ""
    _bad_until: float = field(default=float("-inf"), repr=False)
    _late_at: list[float] = field(default_factory=list, repr=False)

    def note_lag(self, lag_ms: float, now: float) -> None:
        self.last_lag_ms = lag_ms
        self.max_lag_ms = max(self.max_lag_ms, lag_ms)
        if lag_ms <= self.behind_lag_ms:
            return
        self._late_at = [t for t in self._late_at if t > now - LATE_WINDOW_S] + [now]
        if len(self._late_at) >= LATE_PROBES:
            self._bad(now, f"event loop late {len(self._late_at)} times in {LATE_WINDOW_S:g} s, last by "
                           f"{lag_ms:.0f} ms (limit {self.behind_lag_ms:g} ms)")

    def _bad(self, now: float, reason: str) -> None:
        self._bad_until = now + self.recover_s
        self.reason = reason

    def behind(self, now: float) -> bool:
        return now < self._bad_until


class LagProbe:
    """One task: wake every `PROBE_S`, measure how late, feed `LoadState`."""

    def __init__(
        self,
        state: LoadState,
        *,
        on_lag: Callable[[float], None] | None = None,
        probe_s: float = PROBE_S,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.state = state
        self._on_lag = on_lag
        self._probe_s = probe_s
        self._clock = clock
        self._task = BackgroundTask(self._run, "lag-probe")

    async def _run(self) -> None:
        while True:
            start = self._clock()
            await asyncio.sleep(self._probe_s)
            now = self._clock()
            lag_ms = max(0.0, (now - start - self._probe_s) * 1000.0)
            self.state.note_lag(lag_ms, now)
            if self._on_lag is not None:
                self._on_lag(lag_ms / 1000.0)

    def start(self) -> None:
        self._task.start()

    async def stop(self) -> None:
        await self._task.stop()
