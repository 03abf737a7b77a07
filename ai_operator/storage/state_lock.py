"""One daemon per STATE_DIR: an exclusive `flock` on STATE_DIR/lock, held for the daemon's whole life.

The kernel releases the lock when its holder dies, however it dies, so a crash never leaves a stale lock and
no PID has to be trusted to decide. The holder writes its PID into the file (0600) only to be named by the
next one that is refused. The descriptor is close-on-exec: a process the daemon starts (the embedded
PostgreSQL) never inherits the lock.
"""

from __future__ import annotations

import fcntl
import os
from pathlib import Path

LOCK_NAME = "lock"


class StateDirBusy(RuntimeError):
    """Another process holds STATE_DIR's lock; `holder` is its PID when the file names one."""

    def __init__(self, state_dir: Path, holder: int | None) -> None:
        who = f"PID {holder}" if holder is not None else "another process (PID not written yet)"
        super().__init__(f"STATE_DIR {state_dir} is in use by {who}: one ai-operator daemon per STATE_DIR "
                         "(stop it first, or give this one its own STATE_DIR)")
        self.state_dir = state_dir
        self.holder = holder


class StateDirLock:
    """`acquire()` or raise `StateDirBusy`; `release()` (or the process's end) lets the next daemon in."""

    def __init__(self, state_dir: Path) -> None:
        self.state_dir = Path(state_dir)
        self.path = self.state_dir / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_CLOEXEC, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            holder = _pid_in(fd)
            os.close(fd)
            raise StateDirBusy(self.state_dir, holder) from None
        except BaseException:
            os.close(fd)
            raise
        os.ftruncate(fd, 0)
        os.pwrite(fd, f"{os.getpid()}\n".encode(), 0)
        self._fd = fd

    def release(self) -> None:
        if self._fd is not None:
            os.close(self._fd)  # the file stays: removing it would race a daemon that just opened it
            self._fd = None

    @property
    def held(self) -> bool:
        return self._fd is not None


def ensure_free(state_dir: Path) -> None:
    """Raise `StateDirBusy` when a daemon holds STATE_DIR's lock now (a command about to use it as its own)."""
    lock = StateDirLock(state_dir)
    if lock.path.exists():
        lock.acquire()
        lock.release()


def holder_of(state_dir: Path) -> int | None:
    """The PID holding STATE_DIR's lock, or None when nobody holds it. Read from /proc/locks, without taking the
    lock even for a moment (a daemon starting meanwhile is never refused because somebody looked)."""
    try:
        inode = (Path(state_dir) / LOCK_NAME).stat().st_ino
        table = Path("/proc/locks").read_text()
    except OSError:
        return None
    for line in table.splitlines():
        fields = line.split()  # "1: FLOCK  ADVISORY  WRITE 2207 00:2c:1234 0 EOF"; a waiter has "->" after the id
        if len(fields) >= 6 and fields[1] == "FLOCK" and fields[3] == "WRITE" and fields[5].endswith(f":{inode}"):
            return int(fields[4])
    return None


def _pid_in(fd: int) -> int | None:
    try:
        text = os.pread(fd, 32, 0).decode().strip()
        return int(text) if text else None
    except (OSError, ValueError):
        return None


__all__ = ["LOCK_NAME", "StateDirBusy", "StateDirLock", "ensure_free", "holder_of"]
