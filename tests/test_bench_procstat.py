"""What the media benchmark charges to whom, read from /proc: a process tree's CPU includes its children, dead
or alive, and the embedded PostgreSQL is found by its postmaster.pid."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from benchmarks.procstat import (
    box_busy_seconds,
    cpu_seconds,
    postmaster_pid,
    runqueue_wait_seconds,
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
