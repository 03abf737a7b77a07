"""Keeps the daemon's database usable: watches it, restarts the embedded PostgreSQL the daemon owns when it
dies, and tells the rest of the daemon when the database goes down and comes back.

Every `check_s` the database is checked: the embedded server by its postmaster process (running, not a
zombie) and then a `SELECT 1` with a short timeout; an external DATABASE_URL by the `SELECT 1` alone. On the
first failed check the database is *down*: `database_down` is logged and counted, and `on_down` runs (the
daemon sends records straight to the disk spool, and knowledge-base searches fail at once through
`GuardedKnowledge` instead of waiting for a pool timeout). While it is down, the embedded server is restarted
(pg_ctl start on the same data directory and socket, `database_restart` attempt=, failures logged with the
server log's path and counted) with capped exponential backoff; an external server is only re-checked with
the same backoff (psycopg's pool reconnects by itself). When a check passes again, the pool drops its broken
connections, `on_up` runs (the spool is replayed) and `database_up` is logged with the outage's length.
"""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import time
from collections.abc import Callable, Sequence
from typing import Any

from ai_operator.background import BackgroundTask
from ai_operator.logs import get_logger
from ai_operator.storage.database import Database

log = get_logger("storage")

CHECK_S = 1.0
PING_TIMEOUT_S = 1.0
BACKOFF_INITIAL_S = 0.5
BACKOFF_MAX_S = 30.0

Hook = Callable[[], Any]


class DatabaseDown(RuntimeError):
    """The database is known to be down right now (the supervisor saw it)."""


class DatabaseSupervisor:
    """Watches one open `Database`; `up` says whether it answered at the last check."""

    def __init__(
        self,
        db: Database,
        *,
        on_down: Hook | None = None,
        on_up: Hook | None = None,
        metrics: Any = None,
        check_s: float | None = None,
        backoff_initial_s: float | None = None,
        backoff_max_s: float | None = None,
    ) -> None:
        """Timings left as None take the module's defaults as they are when the supervisor is made."""
        self.db = db
        self.on_down = on_down
        self.on_up = on_up
        self.metrics = metrics
        self.check_s = CHECK_S if check_s is None else check_s
        self.backoff_initial_s = BACKOFF_INITIAL_S if backoff_initial_s is None else backoff_initial_s
        self.backoff_max_s = BACKOFF_MAX_S if backoff_max_s is None else backoff_max_s
        self.up = True
        self.outages = 0
        self.restarts = 0
        self.restart_failures = 0
        self._down_since: float | None = None
        self._wake = asyncio.Event()
        self._task = BackgroundTask(self._run, "database-supervisor")
        self._restarting: asyncio.Future[Any] | None = None  # the restart thread under way, if any
        self._stopping = False
        if metrics is not None:
            metrics.database_up.set(1)

    @property
    def owns_server(self) -> bool:
        """True when the database is the embedded server this daemon runs (and so restarts)."""
        return self.db.server is not None

    def start(self) -> None:
        self._stopping = False
        self._task.start()

    async def stop(self) -> None:
        """Stop watching. A restart under way is let finish first (a thread cannot be cancelled: left alone it
        would start a postmaster after the daemon stopped the server, which nobody would stop); so whoever
        stops the server after this - the daemon, last - stops the one the restart started."""
        self._stopping = True
        await self._task.stop()
        if self._restarting is not None:
            await asyncio.wait([self._restarting])
            if not self._restarting.cancelled():
                self._restarting.exception()  # seen (and logged by _restart when it was still watching)
            self._restarting = None

    def retry_now(self) -> None:
        """Skip the current wait: check (and restart) at once."""
        self._wake.set()

    async def check(self) -> bool:
        """One check: is the database usable now?"""
        server = self.db.server
        if server is not None and not await asyncio.to_thread(server.alive):
            return False
        return await self.db.ping(timeout=PING_TIMEOUT_S)

    async def _run(self) -> None:
        attempt = 0
        while True:
            try:
                ok = await self.check()
            except Exception as exc:  # the watcher must survive anything
                log.error("database_check_failed", error=str(exc) or type(exc).__name__)
                ok = False
            if ok:
                attempt = 0
                if not self.up:
                    await self._came_up()
                await self._sleep(self.check_s)
                continue
            if self.up:
                await self._went_down()
            attempt += 1
            delay = min(self.backoff_max_s, self.backoff_initial_s * 2 ** min(attempt - 1, 20))
            action = "restart" if self.owns_server else "reconnect"
            log.info("database_retry", attempt=attempt, delay_s=round(delay, 3), action=action)
            await self._sleep(delay)
            if self.owns_server and not await asyncio.to_thread(self.db.server.alive):  # type: ignore[union-attr]
                await self._restart(attempt)

    async def _sleep(self, seconds: float) -> None:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._wake.wait(), seconds)
        self._wake.clear()

    async def _restart(self, attempt: int) -> None:
        server = self.db.server
        assert server is not None
        if self._stopping:
            return
        log.warning("database_restart", attempt=attempt, pgdata=str(server.pgdata))
        self._restarting = asyncio.ensure_future(asyncio.to_thread(server.restart))
        try:
            await asyncio.shield(self._restarting)  # stop() waits for it rather than orphan what it starts
        except Exception as exc:
            self.restart_failures += 1
            self._count_restart("failed")
            log.error("database_restart_failed", attempt=attempt, error=str(exc) or type(exc).__name__)
            return
        self.restarts += 1
        self._count_restart("ok")
        log.info("database_restarted", attempt=attempt, pgdata=str(server.pgdata))

    def _count_restart(self, result: str) -> None:
        if self.metrics is not None:
            self.metrics.database_restarts_total.labels(result=result).inc()

    async def _went_down(self) -> None:
        self.up = False
        self.outages += 1
        self._down_since = time.monotonic()
        if self.metrics is not None:
            self.metrics.database_up.set(0)
            self.metrics.database_outages_total.inc()
        log.error("database_down", database=self.db.describe(),
                  action="records spool to disk; knowledge-base answers unavailable; "
                  + ("restarting it" if self.owns_server else "reconnecting"))
        await _call(self.on_down, "on_down")

    async def _came_up(self) -> None:
        with contextlib.suppress(Exception):
            await self.db.pool.check()  # drop the connections that died with the server
        self.up = True
        down_s = time.monotonic() - (self._down_since or time.monotonic())
        if self.metrics is not None:
            self.metrics.database_up.set(1)
        log.info("database_up", database=self.db.describe(), down_s=round(down_s, 2))
        await _call(self.on_up, "on_up")


class GuardedKnowledge:
    """The knowledge base as calls see it: while the supervisor knows the database is down, a search fails at
    once (`DatabaseDown`) rather than waiting on a dead pool; otherwise it is the knowledge base itself."""

    def __init__(self, knowledge: Any, supervisor: DatabaseSupervisor) -> None:
        self.knowledge = knowledge
        self.supervisor = supervisor

    async def search(self, query: str, language: str, scope: Any = "", limit: int = 3,
                     fallback_languages: Sequence[str] = (), *, profile: Any = None) -> Any:
        if not self.supervisor.up:
            raise DatabaseDown("the database is down")
        return await self.knowledge.search(query, language, scope, limit, fallback_languages, profile=profile)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.knowledge, name)


async def _call(hook: Hook | None, name: str) -> None:
    if hook is None:
        return
    try:
        result = hook()
        if inspect.isawaitable(result):
            await result
    except Exception as exc:
        log.error("database_hook_failed", hook=name, error=str(exc) or type(exc).__name__)


__all__ = ["DatabaseDown", "DatabaseSupervisor", "GuardedKnowledge"]
