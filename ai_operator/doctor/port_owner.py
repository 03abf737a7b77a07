"""Who holds a UDP port: the sockets bound to it (`/proc/net/udp`, `/proc/net/udp6`) and whether a given process
has one of them open (`/proc/<pid>/fd`). doctor asks this of the daemon holding STATE_DIR's lock, so an RTP port
that daemon holds for a call in progress is told apart from one another program took.

`bound_inodes(table, port)` is pure (the text of a `/proc/net/udp*` table in); `held_by(pid, port)` reads /proc.
"""

from __future__ import annotations

import os
from pathlib import Path

TABLES = (Path("/proc/net/udp"), Path("/proc/net/udp6"))


def bound_inodes(table: str, port: int) -> set[int]:
    """The socket inodes in a `/proc/net/udp*` table whose local port is `port`."""
    inodes = set()
    for line in table.splitlines()[1:]:
        fields = line.split()  # sl local_address rem_address st tx:rx tr:when retrnsmt uid timeout inode ...
        if len(fields) < 10 or ":" not in fields[1]:
            continue
        try:
            local_port = int(fields[1].rsplit(":", 1)[1], 16)
            inode = int(fields[9])
        except ValueError:
            continue
        if local_port == port and inode:
            inodes.add(inode)
    return inodes


def _socket_inodes_of(pid: int) -> set[int] | None:
    """The socket inodes `pid` has open, or None when its descriptors cannot be read (another user's process)."""
    fd_dir = Path(f"/proc/{pid}/fd")
    try:
        names = os.listdir(fd_dir)
    except OSError:
        return None
    inodes = set()
    for name in names:
        try:
            target = os.readlink(fd_dir / name)
        except OSError:
            continue
        if target.startswith("socket:["):
            inodes.add(int(target[8:-1]))
    return inodes


def held_by(pid: int, port: int) -> bool | None:
    """True when `pid` holds a UDP socket bound to `port`, False when it does not, None when it cannot be told."""
    bound: set[int] = set()
    for table in TABLES:
        try:
            bound |= bound_inodes(table.read_text(), port)
        except OSError:
            continue
    owned = _socket_inodes_of(pid)
    if owned is None:
        return None
    return bool(bound & owned)


__all__ = ["bound_inodes", "held_by"]
