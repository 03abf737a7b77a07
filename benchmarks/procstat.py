"""Reads CPU time and resident memory of processes from /proc (Linux): what the media benchmark charges the
daemon, its embedded PostgreSQL and the callers."""

from __future__ import annotations

import os
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
# fields of proc(5) /proc/PID/stat counted from the state field that follows "(comm)"
PPID_INDEX = 1
UTIME_INDEX = 11
STIME_INDEX = 12
CUTIME_INDEX = 13
CSTIME_INDEX = 14
PAGE_KB = 1024.0


def _stat(pid: int) -> list[str]:
    text = Path(f"/proc/{pid}/stat").read_text()
    return text[text.rindex(")") + 2 :].split()  # comm may contain spaces


def cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` in seconds (children not included)."""
    fields = _stat(pid)
    return (int(fields[UTIME_INDEX]) + int(fields[STIME_INDEX])) / CLOCK_TICKS


def tree_cpu_seconds(pid: int) -> float:
    """CPU seconds of `pid`, of its exited children it has reaped, and of its live children: a PostgreSQL
    postmaster's figure covers every backend, including those that came and went."""
    fields = _stat(pid)
    total = sum(int(fields[i]) for i in (UTIME_INDEX, STIME_INDEX, CUTIME_INDEX, CSTIME_INDEX))
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            child = _stat(int(entry.name))
        except (FileNotFoundError, ProcessLookupError, ValueError):
            continue
        if int(child[PPID_INDEX]) == pid:
            total += int(child[UTIME_INDEX]) + int(child[STIME_INDEX])
    return total / CLOCK_TICKS


def postmaster_pid(pgdata: Path) -> int | None:
    """The running PostgreSQL's postmaster for `pgdata` (first line of postmaster.pid), None when not running."""
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0])
    except (FileNotFoundError, ValueError):
        return None
    return pid if Path(f"/proc/{pid}").exists() else None


def rss_mb(pid: int) -> float:
    """Resident set size of `pid` in MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / PAGE_KB
    raise ValueError(f"/proc/{pid}/status has no VmRSS line")


def runqueue_wait_seconds(pid: int) -> float:
    """Time `pid`'s main thread (the daemon's event loop) spent runnable but waiting for a CPU (schedstat)."""
    return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9


def box_busy_seconds() -> float:
    """CPU seconds every CPU of the box spent busy (not idle, not waiting for I/O) since boot (/proc/stat)."""
    fields = [int(x) for x in Path("/proc/stat").read_text().split("\n", 1)[0].split()[1:]]
    user, nice, system, _idle, _iowait, irq, softirq, steal = fields[:8]
    return (user + nice + system + irq + softirq + steal) / CLOCK_TICKS


def box_steal_seconds() -> float:
    """CPU seconds the hypervisor ran something else while this box's CPUs had work (steal, /proc/stat): a loop
    on a stolen CPU is late with neither CPU time nor a run-queue wait to show for it."""
    return int(Path("/proc/stat").read_text().split("\n", 1)[0].split()[8]) / CLOCK_TICKS
