"""Private files and folders for what the daemon keeps on disk about calls (the record spool) and its TTS cache.

Files are 0600 and the folders created for them 0700 whatever the umask of whoever started the process (a shell
with umask 022 outside systemd, say): the mode is set explicitly after creation, because the umask only removes
bits and a strict one would leave a file we must append to read-only. A file or folder left wider by an older
version is tightened when it is next written. Folders that already existed above ours are left alone.
"""

from __future__ import annotations

import contextlib
import os
import stat
from pathlib import Path

FILE_MODE = 0o600
DIR_MODE = 0o700


def _tighten(path: Path, mode: int) -> None:
    with contextlib.suppress(OSError):  # not ours (another owner): leave it, the write itself will tell
        if stat.S_IMODE(path.stat().st_mode) != mode:
            path.chmod(mode)


def private_dir(path: str | os.PathLike[str]) -> Path:
    """Make `path` (and its missing parents) as 0700 folders; an existing `path` is tightened to 0700."""
    folder = Path(path)
    missing: list[Path] = []
    p = folder
    while not p.exists() and p != p.parent:
        missing.append(p)
        p = p.parent
    for d in reversed(missing):
        with contextlib.suppress(FileExistsError):  # made meanwhile by another writer
            d.mkdir(mode=DIR_MODE)
        _tighten(d, DIR_MODE)
    if not missing:
        _tighten(folder, DIR_MODE)
    return folder


def open_private(path: str | os.PathLike[str], flags: int) -> int:
    """`os.open(path, flags | O_CREAT)` for a 0600 file (an existing wider one is tightened); returns the fd."""
    fd = os.open(path, flags | os.O_CREAT, FILE_MODE)
    try:
        if stat.S_IMODE(os.fstat(fd).st_mode) != FILE_MODE:
            os.fchmod(fd, FILE_MODE)
    except PermissionError:
        pass  # someone else's file that we may write: not ours to change
    except BaseException:
        os.close(fd)
        raise
    return fd
