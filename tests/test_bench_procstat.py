"""What the media benchmark charges to whom, read from /proc: a process tree's CPU includes its children, dead
or alive, the embedded PostgreSQL is found by its postmaster.pid, each thread's CPU is its own, and the host's
steal is read beside the box's busy time."""

from __future__ import annotations

import os
import subprocess
import sys
import threading
import time
from pathlib import Path

from benchmarks.procstat import (
    box_busy_seconds,
    box_steal_seconds,
    cpu_seconds,
    postmaster_pid,
    runqueue_wait_seconds,
    thread_cpu_seconds,
    tree_cpu_seconds,
)
from tests.support.wait import eventually_sync

BURN = "import time\nt = time.process_time()\nwhile time.process_time() - t < 0.3: pass\n"


def test_a_tree_counts_live_and_reaped_children() -> None:
    before = tree_cpu_seconds(os.getpid())
    subprocess.run([sys.executable, "-c", BURN], check=True)  # reaped: lands in our cutime
    live = subprocess.Popen([sys.executable, "-c", BURN + "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        eventually_sync(lambda: cpu_seconds(live.pid) >= 0.25, what="the live child to burn its CPU")
        assert tree_cpu_seconds(os.getpid()) - before >= 0.5  # two children of 0.3 s each, tick granularity
    finally:
        live.communicate(b"")


def test_postmaster_pid_is_read_from_pgdata_and_checked_alive(tmp_path: Path) -> None:
    assert postmaster_pid(tmp_path) is None
    (tmp_path / "postmaster.pid").write_text(f"{os.getpid()}\n{tmp_path}\n")
    assert postmaster_pid(tmp_path) == os.getpid()
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    (tmp_path / "postmaster.pid").write_text(done.stdout)
    assert postmaster_pid(tmp_path) is None  # that process is gone


def test_box_and_runqueue_counters_move_forward() -> None:
    busy, wait = box_busy_seconds(), runqueue_wait_seconds(os.getpid())
    subprocess.run([sys.executable, "-c", BURN], check=True)
    assert box_busy_seconds() > busy and runqueue_wait_seconds(os.getpid()) >= wait


def test_steal_never_runs_backwards_and_is_part_of_the_busy_time() -> None:
    steal, busy = box_steal_seconds(), box_busy_seconds()
    assert 0.0 <= steal <= busy and box_steal_seconds() >= steal


def test_each_threads_cpu_is_its_own() -> None:
    done = threading.Event()

    def burn() -> None:
        t = time.thread_time()
        while time.thread_time() - t < 0.3:
            pass
        done.wait()  # stay alive (off the CPU) until read: a finished thread leaves /proc/PID/task

    before = thread_cpu_seconds(os.getpid())
    worker = threading.Thread(target=burn)
    worker.start()
    tid = eventually_sync(lambda: worker.native_id, what="the worker to start")
    assert tid is not None and tid != os.getpid()
    seen: dict[int, float] = {}

    def burnt() -> bool:
        seen.update(thread_cpu_seconds(os.getpid()))
        return seen.get(tid, 0.0) >= 0.25

    try:
        eventually_sync(burnt, what="the worker thread to burn its CPU")
    finally:
        done.set()
        worker.join()
    assert seen[os.getpid()] - before[os.getpid()] < seen[tid]  # the main thread waited, the worker burnt


def test_a_long_receive_step_is_split_into_cpu_run_queue_wait_and_the_rest() -> None:
    from benchmarks.loop_probes import LONG_RECEIVE_MS, ReceiveProbe

    class Pacer:
        def __init__(self) -> None:
            self.calls = 0
            self._receive = self.receive

        def receive(self) -> int:
            self.calls += 1
            time.sleep(LONG_RECEIVE_MS / 1000 * 1.5)  # off the CPU: neither work nor a run-queue wait
            return 7

    pacer = Pacer()
    probe = ReceiveProbe(pacer)
    assert pacer._receive() == 7 and pacer.calls == 1  # the step itself still runs, once
    summary = probe.summary()
    assert summary["count"] == 1 and summary["wall_ms"] >= LONG_RECEIVE_MS * 1.5
    assert summary["cpu_ms"] < summary["wall_ms"] and summary["rest_ms"] > 0
    assert summary["wall_ms"] == round(summary["cpu_ms"] + summary["runqueue_wait_ms"] + summary["rest_ms"], 1)
