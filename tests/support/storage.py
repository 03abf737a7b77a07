"""Test support for storage and kb tests: ONE embedded PostgreSQL per test process,
and a fresh database inside it per test (CREATE DATABASE is ~0.1 s), so tests never see each other's rows."""

from __future__ import annotations

import atexit
import shutil
import tempfile
import threading
import uuid
from pathlib import Path

import psycopg
from psycopg.conninfo import make_conninfo

from ai_operator.storage.embedded import EmbeddedServer

_lock = threading.Lock()
_server: EmbeddedServer | None = None


def shared_server() -> EmbeddedServer:
    """The process-wide embedded server (started on first use, stopped and deleted at exit)."""
    global _server
    with _lock:
        if _server is None:
            root = Path(tempfile.mkdtemp(prefix="aiop-pg-"))
            server = EmbeddedServer(root / "pgdata")
            server.start()

            def _stop() -> None:
                server.release()
                shutil.rmtree(root, ignore_errors=True)

            atexit.register(_stop)
            _server = server
        return _server


def fresh_dsn() -> str:
    """A DSN of a new, empty database on the shared server."""
    server = shared_server()
    name = "t_" + uuid.uuid4().hex[:12]
    with psycopg.connect(server.dsn, autocommit=True) as conn:
        conn.execute(f'CREATE DATABASE "{name}"')
    return make_conninfo(server.dsn, dbname=name)


def embedded_state_dir(prefix: str = "aiop-state-") -> Path:
    """A fresh STATE_DIR for a test's own embedded PostgreSQL. Run as root, it belongs to an existing
    unprivileged account (`nobody`), as STATE_DIR does in a real install: the embedded server runs as that
    owner, never as root (see ai_operator/storage/embedded.py)."""
    import os
    import pwd

    path = Path(tempfile.mkdtemp(prefix=prefix))
    if os.geteuid() == 0:
        owner = pwd.getpwnam("nobody")
        os.chown(path, owner.pw_uid, owner.pw_gid)
    return path
