"""Remembers that a set of ARI settings has worked, across daemon restarts (a file in STATE_DIR).

A daemon (re)started while Asterisk itself is starting meets the same 404/401 answers as a reconnect does;
with settings that connected before, those are waited out instead of exiting (`reconnect.ReconnectPolicy`,
`proven=True`). The file holds a random salt and a salted PBKDF2 digest of URL, user, password and app -
never the password - written atomically with mode 0600. Any change of those settings gives another digest,
so fresh settings still fail fast on a refusal.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import secrets
from pathlib import Path

from ai_operator.logs import get_logger

log = get_logger("ari")

FILENAME = "ari-known-good.json"
ITERATIONS = 100_000


def _digest(salt: bytes, url: str, user: str, password: str, app: str) -> str:
    material = "\n".join((url.rstrip("/"), user, password, app)).encode()
    return hashlib.pbkdf2_hmac("sha256", material, salt, ITERATIONS).hex()


class KnownGoodSettings:
    """`proven` says whether these settings connected before; `remember()` records that they did now."""

    def __init__(self, state_dir: Path, url: str, user: str, password: str, app: str) -> None:
        self.path = Path(state_dir) / FILENAME
        stored = self._read()
        self._salt = bytes.fromhex(stored["salt"]) if stored else secrets.token_bytes(16)
        self._digest = _digest(self._salt, url, user, password, app)
        self.proven = stored is not None and secrets.compare_digest(str(stored.get("digest", "")), self._digest)

    def _read(self) -> dict[str, str] | None:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
            bytes.fromhex(data["salt"])
        except FileNotFoundError:
            return None
        except (OSError, ValueError, KeyError, TypeError) as exc:
            log.warning("ari_known_good_unreadable", path=str(self.path), reason=str(exc) or type(exc).__name__)
            return None
        return data if isinstance(data, dict) else None

    def remember(self) -> None:
        """Record the settings as working (a failure to write is logged, never raised)."""
        if self.proven:
            return
        tmp = self.path.with_name(self.path.name + ".tmp")
        try:
            fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
            with os.fdopen(fd, "w", encoding="utf-8") as fh:
                json.dump({"salt": self._salt.hex(), "digest": self._digest}, fh)
            os.replace(tmp, self.path)
            self.proven = True
        except OSError as exc:
            log.warning("ari_known_good_not_saved", path=str(self.path), reason=str(exc))
            with contextlib.suppress(OSError):
                tmp.unlink()


__all__ = ["FILENAME", "KnownGoodSettings"]
