"""The daemon's pacer under benchmark, looked into: where a long receive step's time went. Bench-only.

`ReceiveProbe` wraps the pacer's receive step (`media.pacer.Pacer`'s `receive`, which reads every call's RTP
after a tick's sends): a step of `LONG_RECEIVE_MS` or longer is split into the loop thread's CPU time, its wait
on a run queue while other processes had the CPU (/proc schedstat) and the rest (neither: the host ran something
else on the vCPU, steal, or the thread waited for the interpreter's lock). Two clock reads and two reads of a
/proc file per tick.

`SkipProbe` wraps the pacer's `tick`: every skip-ahead (a tick so late it skipped frames) with its time, the
frames, the streams speaking, and since the last tick that began on time the loop thread's CPU time, its
run-queue wait and the most the host stole from one vCPU: what `stalls.py` judges the skip by. A clock read, the
thread's CPU time and two reads of /proc files per on-time tick.
"""

from __future__ import annotations

import os
import threading
import time
from typing import Any

LONG_RECEIVE_MS = 10.0
CLOCK_TICKS = os.sysconf("SC_CLK_TCK")


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


Snapshot = tuple[float, float, float, tuple[float, ...]]  # (time, CPU, run-queue wait, each vCPU's steal) seconds


class SkipProbe:
    """The pacer's skip-aheads (`rows`, dicts in ms but `at_ns`), each with what happened since the last tick
    that began on time (less than a frame behind): the loop thread's CPU time and run-queue wait, and the most
    the host stole from any one vCPU (`steal_ms`); `injected` when the benchmark's own fault injection (a
    deliberate block of the loop, `stall`) fell in that interval: the daemon's stall by construction."""

    def __init__(self, pacer: Any) -> None:
        self.rows: list[dict[str, float]] = []
        self.injected: list[tuple[float, float]] = []  # (start, end) of each injected stall, monotonic seconds
        self._schedstat = os.open(f"/proc/self/task/{threading.get_native_id()}/schedstat", os.O_RDONLY)
        self._stat = os.open("/proc/stat", os.O_RDONLY)
        self._mark: Snapshot | None = None
        tick = pacer.tick
        probe = self

        def probed(now: float) -> None:
            due = pacer.next_due()
            if due is None or now - due < pacer.frame_s:
                probe._mark = probe.snapshot(now)
                tick(now)
                return
            skipped, at = pacer.skipped_frames, probe.snapshot(now)
            tick(now)
            if pacer.skipped_frames > skipped and probe._mark is not None:
                probe.rows.append(probe.row(probe._mark, at, now - due, pacer.skipped_frames - skipped,
                                            _speaking(pacer)))

        pacer.tick = probed

    def snapshot(self, now: float) -> Snapshot:
        lines = os.pread(self._stat, 1 << 16, 0).split(b"\n")
        steal = tuple(int(f[8]) / CLOCK_TICKS for f in (x.split() for x in lines[1:] if x.startswith(b"cpu"))
                      if len(f) > 8)
        return now, time.thread_time(), int(os.pread(self._schedstat, 128, 0).split()[1]) / 1e9, steal

    def row(self, mark: Snapshot, at: Snapshot, late: float, frames: int, streams: int) -> dict[str, float]:
        since, cpu, wait = (round((b - a) * 1000, 2) for a, b in zip(mark[:3], at[:3], strict=True))
        steal = max((b - a for a, b in zip(mark[3], at[3], strict=False)), default=0.0)
        injected = any(start < at[0] and end > mark[0] for start, end in self.injected)
        return {"at_ns": round(at[0] * 1e9), "late_ms": round(late * 1000, 2), "frames": frames, "streams": streams,
                "since_ms": since, "cpu_ms": cpu, "runqueue_ms": wait, "steal_ms": round(steal * 1000, 2),
                **({"injected": True} if injected else {})}


def _speaking(pacer: Any) -> int:
    return sum(1 for stream in getattr(pacer, "_streams", ()) if stream.speaking)
