"""Send-time error statistics for the playout pacer: a fixed ring of recent samples (exact p50/p99) plus
running count and max. Pure, no I/O, no allocation per sample."""

from __future__ import annotations

import numpy as np

DEFAULT_WINDOW = 3000  # 60 s of 20 ms ticks


class ErrorStats:
    """Actual-minus-scheduled send times in milliseconds."""

    def __init__(self, window: int = DEFAULT_WINDOW) -> None:
        self._ring = np.zeros(window, dtype=np.float64)
        self._window = window
        self._i = 0
        self.count = 0
        self.max_ms = 0.0

    def add(self, error_ms: float) -> None:
        self._ring[self._i] = error_ms
        self._i = (self._i + 1) % self._window
        self.count += 1
        if error_ms > self.max_ms:
            self.max_ms = error_ms

    def percentile(self, q: float) -> float:
        """The q-th percentile (0..100) of the recent window; 0.0 when empty."""
        n = min(self.count, self._window)
        return float(np.percentile(self._ring[:n], q)) if n else 0.0

    @property
    def p50(self) -> float:
        return self.percentile(50)

    @property
    def p99(self) -> float:
        return self.percentile(99)

    def summary(self) -> dict[str, float]:
        return {"count": float(self.count), "p50_ms": self.p50, "p99_ms": self.p99, "max_ms": self.max_ms}
