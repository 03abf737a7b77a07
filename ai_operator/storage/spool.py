"""The on-disk spool: JSON lines, one record per line, fsync'd, for writes the database could not take.

Owns the file format and file I/O only (no database): `append`, `read`, `replace` (atomic rewrite of what is
left) and `reject` (a bad line is set aside in `<spool>.rejected` with its line number and reason, never
dropped). The files hold call data: 0600 in a 0700 folder whatever the umask (see `private`). Blocking calls:
async code runs them through `asyncio.to_thread`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ai_operator.storage.private import open_private, private_dir


class Spool:
    """A JSON-lines spool file and its `.rejected` companion."""

    def __init__(self, path: Path) -> None:
        self.path = Path(path)
        self.rejected_path = self.path.with_suffix(".rejected")

    def count(self) -> int:
        """Lines waiting (blank lines do not count)."""
        if not self.path.exists():
            return 0
        with self.path.open("rb") as fh:
            return sum(1 for line in fh if line.strip())

    def append(self, record: dict[str, Any]) -> None:
        """Append one record and fsync it before returning."""
        private_dir(self.path.parent)
        data = (json.dumps(record, ensure_ascii=False, separators=(",", ":")) + "\n").encode("utf-8")
        fd = open_private(self.path, os.O_WRONLY | os.O_APPEND)
        try:
            os.write(fd, data)
            os.fsync(fd)
        finally:
            os.close(fd)

    def read(self) -> list[tuple[int, bytes]]:
        """(line number, raw line) for every non-blank line, in order."""
        if not self.path.exists():
            return []
        with self.path.open("rb") as fh:
            return [(n, line.rstrip(b"\r\n")) for n, line in enumerate(fh, start=1) if line.strip()]

    def replace(self, lines: list[bytes]) -> None:
        """Atomically make the spool hold exactly `lines` (deleted when empty)."""
        if not lines:
            self.path.unlink(missing_ok=True)
            return
        private_dir(self.path.parent)
        tmp = self.path.with_name(self.path.name + ".tmp")
        with os.fdopen(open_private(tmp, os.O_WRONLY | os.O_TRUNC), "wb") as fh:
            fh.write(b"".join(line + b"\n" for line in lines))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, self.path)
        _fsync_dir(self.path.parent)

    def reject(self, line_no: int, raw: bytes, reason: str) -> None:
        """Keep a line that cannot be written, with why, in the `.rejected` file (fsync'd)."""
        entry = {"line": line_no, "reason": reason, "raw": raw.decode("utf-8", errors="replace")}
        private_dir(self.rejected_path.parent)
        with os.fdopen(open_private(self.rejected_path, os.O_WRONLY | os.O_APPEND), "ab") as fh:
            fh.write((json.dumps(entry, ensure_ascii=False) + "\n").encode("utf-8"))
            fh.flush()
            os.fsync(fh.fileno())


def _fsync_dir(path: Path) -> None:
    try:
        fd = os.open(path, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass
    finally:
        os.close(fd)
