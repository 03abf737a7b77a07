"""Reads a process's CPU time and resident memory from /proc (Linux): what the media benchmark charges the daemon."""

from __future__ import annotations

import os
from pathlib import Path

CLOCK_TICKS = os.sysconf("SC_CLK_TCK")
UTIME_INDEX = 11  # utime (field 14 of proc(5)) counted from the state field that follows "(comm)"
STIME_INDEX = 12
PAGE_KB = 1024.0


def cpu_seconds(pid: int) -> float:
    """utime + stime of `pid` in seconds (children not included)."""
    text = Path(f"/proc/{pid}/stat").read_text()
    fields = text[text.rindex(")") + 2 :].split()  # comm may contain spaces
    utime, stime = int(fields[UTIME_INDEX]), int(fields[STIME_INDEX])
    return (utime + stime) / CLOCK_TICKS


def rss_mb(pid: int) -> float:
    """Resident set size of `pid` in MB (VmRSS)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) / PAGE_KB
    raise ValueError(f"/proc/{pid}/status has no VmRSS line")
