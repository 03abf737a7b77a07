"""Processes of the cluster found again by pid (a later `cluster.sh status|down` is another process than the `up`
that started them): alive or not (a zombie is dead), a stop that escalates SIGTERM -> SIGKILL on the process
group, and the daemons' JSON log lines read back from their log files."""

from __future__ import annotations

import contextlib
import os
import signal
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from tests.support.asterisk.daemon_proc import json_events
from tests.support.wait import eventually_sync

T = TypeVar("T")


def alive(pid: int | None) -> bool:
    """True while `pid` runs (reaping it first when it is our own finished child)."""
    if not pid:
        return False
    with contextlib.suppress(ChildProcessError, OSError):
        done, _ = os.waitpid(pid, os.WNOHANG)
        if done == pid:
            return False
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except (OSError, IndexError):
        return False
    return state not in ("Z", "X")


def poll(predicate: Callable[[], T], timeout: float, what: str, interval: float = 0.1) -> T:
    """`predicate()` until truthy (every `interval` s: it runs a command or reads a log); AssertionError after
    `timeout`."""
    return eventually_sync(predicate, timeout, what, poll_s=interval)


def wait_gone(pid: int, timeout: float) -> bool:
    """Whether the process `pid` is gone within `timeout`."""
    try:
        eventually_sync(lambda: not alive(pid), timeout, f"process {pid} gone", poll_s=0.05)
    except AssertionError:
        return False
    return True


def stop_pid(pid: int | None, *, term_timeout: float = 30.0, group: bool = True) -> None:
    """SIGTERM (to its process group, which it leads: every part starts in a new session), then SIGKILL."""
    if not alive(pid):
        return
    assert pid is not None
    for sig, wait in ((signal.SIGTERM, term_timeout), (signal.SIGKILL, 10.0)):
        with contextlib.suppress(ProcessLookupError, PermissionError):
            if group:
                os.killpg(pid, sig)
            else:
                os.kill(pid, sig)
        if wait_gone(pid, wait):
            return


def kill_pid(pid: int | None) -> None:
    """SIGKILL, no warning (a node that dies)."""
    if alive(pid):
        assert pid is not None
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
        wait_gone(pid, 10.0)


def log_events(log: Path, name: str | None = None, **fields: Any) -> list[dict[str, Any]]:
    """A daemon's JSON log lines (those with event `name` and the given field values)."""
    try:
        text = log.read_text(errors="replace")
    except FileNotFoundError:
        return []
    return json_events(text.splitlines(), name, **fields)
