"""The private embedded PostgreSQL (pgserver) that runs in STATE_DIR/pgdata when no DATABASE_URL is given.

Owns starting and stopping the server process (run by root: as an unprivileged account, see pg_root.py),
telling whether it is alive, and restarting it after it died. The server it starts never preempts the daemon:
its processes run under `SCHED_BATCH` (`yield_to_the_daemon`): same fair share of the CPU, but a backend woken
by a query waits for the daemon's loop to sleep (at most until the next 20 ms tick) instead of taking the CPU
from it in the middle of a tick, where every call's audio would stand still meanwhile. pgserver is synchronous: every method here
blocks, so async code calls them through `asyncio.to_thread`. Several `Database` objects of one process may share one data directory;
an in-process reference count stops the server only when the last one closes (pgserver itself keeps the count
across processes, so a `kb ingest` beside the daemon keeps it running). Who may connect to it: the
daemon's accounts only, by peer authentication over its unix socket (pg_access.py).
"""

from __future__ import annotations

import os
import subprocess
import threading
import time
import warnings
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from ai_operator.logs import get_logger
from ai_operator.storage.pg_access import INITDB_AUTH, restrict

log = get_logger("storage")

PGDATA_DIRNAME = "pgdata"
STOP_TIMEOUT_S = 30.0
SLOW_START_S = 120.0  # pgserver's pg_ctl gives up after 10 s; crash recovery on a busy box may take longer
READY_POLL_S = 0.25

T = TypeVar("T")
_lock = threading.Lock()
_refcounts: dict[Path, int] = {}


class EmbeddedServerError(RuntimeError):
    """The embedded PostgreSQL could not be started; the message says where its log is."""


class EmbeddedServer:
    """One embedded PostgreSQL data directory. `start()` returns its DSN (a unix socket, no TCP port)."""

    def __init__(self, pgdata: Path) -> None:
        self.pgdata = Path(pgdata).expanduser().resolve()
        self._server: Any = None
        self._held = False

    @classmethod
    def in_state_dir(cls, state_dir: Path) -> EmbeddedServer:
        return cls(Path(state_dir) / PGDATA_DIRNAME)

    def start(self) -> str:
        """Start (or join) the server; create the data directory on first use. Returns the DSN."""
        with warnings.catch_warnings():  # platformdirs warns when XDG_RUNTIME_DIR is unset; harmless
            warnings.simplefilter("ignore")
            import pgserver  # late: importing it touches the runtime dir

        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        try:
            if os.geteuid() == 0:  # never as root, never a new user: see pg_root.py
                from ai_operator.storage.pg_root import start_as_account

                server = self._patiently(lambda: start_as_account(self.pgdata))
            else:
                self._prepare_access()
                server = self._patiently(lambda: pgserver.get_server(self.pgdata, cleanup_mode="stop"))
        except (subprocess.SubprocessError, OSError, AssertionError, RuntimeError) as exc:
            raise EmbeddedServerError(
                f"embedded PostgreSQL in {self.pgdata} did not start ({exc}); see {self.pgdata / 'log'}"
            ) from exc
        with _lock:
            if not self._held:
                _refcounts[self.pgdata] = _refcounts.get(self.pgdata, 0) + 1
                self._held = True
        self._server = server
        yield_to_the_daemon(self.postmaster_pid())
        log.info("embedded_db_started", pgdata=str(self.pgdata))
        return str(server.get_uri())

    def _prepare_access(self) -> None:
        """Not root: a new data directory is made here with peer authentication (pgserver's own initdb would
        allow `trust`), and the access rules of pg_access.py are written before the server starts."""
        import pgserver._commands as commands

        self.pgdata.mkdir(mode=0o700, exist_ok=True)
        if not (self.pgdata / "PG_VERSION").exists():
            initdb = commands.initdb  # type: ignore[attr-defined]  # made at import, one per binary
            initdb([*INITDB_AUTH, "--encoding=utf8", "-U", "postgres"], pgdata=self.pgdata)
        restrict(self.pgdata)

    @property
    def dsn(self) -> str:
        if self._server is None:
            raise EmbeddedServerError("embedded PostgreSQL is not started")
        return str(self._server.get_uri())

    def release(self) -> None:
        """This holder is done: stop the server when it was the last holder in this process (and in others)."""
        with _lock:
            if not self._held:
                return
            self._held = False
            left = _refcounts.get(self.pgdata, 1) - 1
            if left > 0:
                _refcounts[self.pgdata] = left
                return
            _refcounts.pop(self.pgdata, None)
        if self._server is not None:
            self._server.cleanup()
            log.info("embedded_db_stopped", pgdata=str(self.pgdata))

    def stop_now(self) -> None:
        """Stop the server at once whoever holds it (an outage, for tests and `doctor`); `restart()` undoes it."""
        import pgserver._commands as commands

        if self._server is None:
            return
        pg_ctl = commands.pg_ctl  # type: ignore[attr-defined]  # made at import, one per binary
        pg_ctl(["-w", "-m", "fast", "stop"], pgdata=self.pgdata, user=self._server.system_user, timeout=STOP_TIMEOUT_S)
        log.warning("embedded_db_stopped_now", pgdata=str(self.pgdata))

    def postmaster_pid(self) -> int | None:
        """The PID in `postmaster.pid`, or None when there is no (readable) lock file."""
        try:
            first = (self.pgdata / "postmaster.pid").read_text().split("\n", 1)[0].strip()
            return int(first)
        except (OSError, ValueError):
            return None

    def alive(self) -> bool:
        """True while the postmaster named in `postmaster.pid` runs (a zombie or another program is not it)."""
        pid = self.postmaster_pid()
        return pid is not None and _process_state(pid) not in (None, "Z", "X")

    def restart(self) -> str:
        """Start the server again after it stopped or died; same data directory and socket. A lock file left by a
        postmaster that was killed (gone, or a zombie nobody has reaped yet), and its socket's lock, are removed
        first, else PostgreSQL would refuse to start. Raises `EmbeddedServerError` (naming the server log) when it does not start."""
        if self._server is None:
            return self.start()
        try:
            with self._server._lock:  # pgserver's inter-process lock: one start at a time per machine
                pid = self.postmaster_pid()
                if pid is not None and not self.alive():
                    self._remove_stale_locks(pid)
                self._patiently(self._server.ensure_postgres_running)
                yield_to_the_daemon(self.postmaster_pid())
        except (subprocess.SubprocessError, OSError, AssertionError) as exc:
            raise EmbeddedServerError(
                f"embedded PostgreSQL in {self.pgdata} did not restart ({exc}); see {self.pgdata / 'log'}"
            ) from exc
        return str(self._server.get_uri())

    def _remove_stale_locks(self, pid: int) -> None:
        """The lock files of a dead postmaster: `postmaster.pid`, and its socket's lock (PostgreSQL refuses to
        start while the PID in it exists, and a killed postmaster stays a zombie until init reaps it)."""
        (self.pgdata / "postmaster.pid").unlink(missing_ok=True)
        for lock in self.pgdata.glob(".s.PGSQL.*.lock"):
            try:
                if lock.read_text().split("\n", 1)[0].strip() == str(pid):
                    lock.unlink()
            except OSError:
                continue
        log.warning("embedded_db_stale_lock_removed", pgdata=str(self.pgdata), pid=pid)

    def _patiently(self, start: Callable[[], T]) -> T:
        """`start()`; when its pg_ctl gave up waiting (pgserver allows 10 s) while the postmaster it launched goes
        on starting (crash recovery after a kill, on a busy box), wait up to `SLOW_START_S` for that postmaster to
        be ready and call `start()` again, which then finds it running."""
        try:
            return start()
        except subprocess.TimeoutExpired:
            deadline = time.monotonic() + SLOW_START_S
            log.warning("embedded_db_slow_start", pgdata=str(self.pgdata), waiting_s=SLOW_START_S)
            while not self._ready():
                if time.monotonic() >= deadline or not self.alive():
                    raise
                time.sleep(READY_POLL_S)
            return start()

    def _ready(self) -> bool:
        """The postmaster named in `postmaster.pid` runs and says it accepts connections."""
        try:
            lines = (self.pgdata / "postmaster.pid").read_text().splitlines()
        except OSError:
            return False
        return self.alive() and len(lines) > 7 and lines[7].strip() == "ready"


def yield_to_the_daemon(postmaster: int | None) -> int:
    """Put the postmaster and its processes under `SCHED_BATCH` (the backends it forks later inherit it); returns
    how many were changed. A server this process may not change (another owner's) is left as it is, and said."""
    if postmaster is None or not hasattr(os, "SCHED_BATCH"):
        return 0
    changed = 0
    for pid in [postmaster, *children_of(postmaster)]:
        try:
            os.sched_setscheduler(pid, os.SCHED_BATCH, os.sched_param(0))
            changed += 1
        except ProcessLookupError:
            continue  # a backend that just ended
        except OSError as exc:
            log.warning("embedded_db_priority_unchanged", pid=pid, error=str(exc))
            break
    return changed


def children_of(parent: int) -> list[int]:
    """The processes whose parent is `parent`, from /proc."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
        except OSError:
            continue
        fields = stat.rpartition(")")[2].split()
        if len(fields) > 1 and fields[1] == str(parent):
            found.append(int(entry.name))
    return found


def _process_state(pid: int) -> str | None:
    """The state letter of a `postgres` process (R, S, Z, ...) from /proc, or None when no such process runs."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_text()
    except OSError:
        return None
    name, _, rest = stat.partition("(")[2].rpartition(")")
    if name != "postgres" or not rest.split():
        return None
    return rest.split()[0]
