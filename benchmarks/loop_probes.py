"""The daemon's pacer under benchmark, looked into: where a long receive step's time went. Bench-only.

`ReceiveProbe` wraps the pacer's receive step (`media.pacer.Pacer`'s `receive`, which reads every call's RTP
after a tick's sends): a step of `LONG_RECEIVE_MS` or longer is split into the loop thread's CPU time, its wait
on a run queue while other processes had the CPU (/proc schedstat) and the rest (neither: the host ran something
else on the vCPU, steal, or the thread waited for the interpreter's lock). Two clock reads and two reads of a
/proc file per tick.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

LONG_RECEIVE_MS = 10.0


class ReceiveProbe:
    """The pacer's receive steps of `LONG_RECEIVE_MS` or longer, split into the loop thread's CPU time, its wait
    for a CPU while other processes ran (run-queue wait, /proc schedstat) and the rest (neither: the host ran
    something else on the vCPU (steal), or the thread waited for the interpreter's lock)."""

    def __init__(self, pacer: Any, limit_ms: float = LONG_RECEIVE_MS) -> None:
        self.limit_s = limit_ms / 1000
        self.rows: list[tuple[float, float, float]] = []  # (wall, cpu, run-queue wait) ms
        self._fd = os.open(f"/proc/self/task/{threading.get_native_id()}/schedstat", os.O_RDONLY)
        receive = pacer._receive
        probe = self

        def probed() -> object:
            t, cpu, wait = time.perf_counter(), time.thread_time(), probe.waited()
            try:
                return receive()
            finally:
                took = time.perf_counter() - t
                if took >= probe.limit_s:
                    used, waited = time.thread_time() - cpu, probe.waited() - wait
                    probe.rows.append((took * 1000, used * 1000, waited * 1000))

        if receive is not None:
            pacer._receive = probed

    def waited(self) -> float:
        """Seconds the loop's thread has waited on a run queue."""
        return int(os.pread(self._fd, 128, 0).split()[1]) / 1e9

    def summary(self) -> dict[str, float]:
        wall, cpu, wait = (round(sum(r[i] for r in self.rows), 1) for i in range(3))
        return {"count": len(self.rows), "wall_ms": wall, "cpu_ms": cpu, "runqueue_wait_ms": wait,
                "rest_ms": round(wall - cpu - wait, 1)}
