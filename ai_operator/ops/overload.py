"""Is the daemon behind? Measured all the time, exported in /metrics, and used to refuse new calls.

The signal is loop lag: how late a `PROBE_S` timer wakes up (every RTP packet and every pacer tick waits at
least that long behind whatever is running). What makes an overload is the TIME the loop spent late: the lags of
the probes later than `BEHIND_LAG_MS`, summed over the last `LATE_WINDOW_S`, more than `LATE_BUDGET` times that
limit (300 ms: a tenth of the window; every call in progress lost about that much audio, since the pacer skips
frames when it is 60 ms behind). A garbage-collection pass or a burst of call set-ups (one or two stalls of up
to 150 ms, three of under 100 ms) is not an overload; a loop that stays late is, within a few probes; and so is a
loop so late that few probes complete at all (a count of late probes sees fewer the later it gets), at its first.
(The pacer's skipped frames, exported beside it, follow from the same lateness.) While the daemon is behind, a new
call goes back to the dialplan (another node, a queue, the fallback) instead of degrading every call in progress;
it is taken again once the daemon has been on time for `RECOVER_S`. `LoadState` is pure (clock given); `LagProbe`
is the task feeding it.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from dataclasses import dataclass, field

from ai_operator.background import BackgroundTask

PROBE_S = 0.05
BEHIND_LAG_MS = 60.0  # inbound audio must be read within 60 ms of arrival; a loop this late cannot
LATE_WINDOW_S = 3.0  # the loop's lateness is judged over this long
LATE_BUDGET = 5  # late (past the limit) for longer than 5 limits in the window (300 ms at 60 ms): behind
RECOVER_S = 5.0


@dataclass
class LoadState:
    """The latest verdict on whether the daemon keeps up. `behind(now)` is what admission asks."""

    behind_lag_ms: float = BEHIND_LAG_MS
    recover_s: float = RECOVER_S
    late_budget_ms: float = 0.0  # 0: LATE_BUDGET limits (OVERLOAD_LAG_MS raised on a test box raises it too)
    last_lag_ms: float = 0.0
    max_lag_ms: float = 0.0
    reason: str = ""
    _bad_until: float = field(default=float("-inf"), repr=False)
    _late: list[tuple[float, float]] = field(default_factory=list, repr=False)  # (when, lag ms) of late probes

    def __post_init__(self) -> None:
        self.late_budget_ms = self.late_budget_ms or LATE_BUDGET * self.behind_lag_ms

    def note_lag(self, lag_ms: float, now: float) -> None:
        self.last_lag_ms = lag_ms
        self.max_lag_ms = max(self.max_lag_ms, lag_ms)
        if lag_ms <= self.behind_lag_ms:
            return
        self._late = [(t, lag) for t, lag in self._late if t > now - LATE_WINDOW_S] + [(now, lag_ms)]
        late_ms = sum(lag for _, lag in self._late)
        if late_ms > self.late_budget_ms:
            self._bad(now, f"event loop late for {late_ms:.0f} ms in {LATE_WINDOW_S:g} s ({len(self._late)} probes "
                           f"past {self.behind_lag_ms:g} ms, the last by {lag_ms:.0f} ms; allowed "
                           f"{self.late_budget_ms:g} ms)")

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
