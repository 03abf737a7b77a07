"""The read replica for knowledge-base search (`KB_DATABASE_URL`): a read-only pool on a streaming standby, used
while it is fit, else the primary.

Fit means: it answers within `CHECK_TIMEOUT_S`, and it is either not a standby at all, or a standby that is
streaming from its primary and has replayed what it received (or replays no more than `MAX_LAG_S` behind). The
check runs at most every `CHECK_INTERVAL_S` (one at a time, whatever the number of calls searching). A search
that fails on the replica with a connection error marks it unfit and runs again on the primary, so a replica
that stops or falls behind never stops answers. Transitions are logged (`kb_replica_unfit`, `kb_replica_fit`).
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from typing import Any

import psycopg
from psycopg_pool import AsyncConnectionPool

from ai_operator.logs import get_logger

log = get_logger("storage")

CHECK_INTERVAL_S = 1.0
CHECK_TIMEOUT_S = 1.0
MAX_LAG_S = 10.0
POOL_MAX = 4

# in recovery?, streaming?, seconds behind (0 when everything received is replayed)
FITNESS_SQL = (
    "SELECT pg_is_in_recovery(),"
    " COALESCE((SELECT status = 'streaming' FROM pg_stat_wal_receiver), false),"
    " CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM pg_last_wal_replay_lsn() THEN 0"
    " ELSE COALESCE(EXTRACT(EPOCH FROM now() - pg_last_xact_replay_timestamp()), 0) END"
)


def judge(in_recovery: bool, streaming: bool, lag_s: float) -> str | None:
    """None when fit; else why not."""
    if not in_recovery:
        return None
    if not streaming:
        return "not streaming from the primary"
    if lag_s > MAX_LAG_S:
        return f"{lag_s:.1f} s behind the primary (more than {MAX_LAG_S:g} s)"
    return None


class ReadReplica:
    def __init__(self, dsn: str, configure: Callable[[psycopg.AsyncConnection], Awaitable[None]],
                 describe: str) -> None:
        self.describe = describe
        self.pool = AsyncConnectionPool(dsn, min_size=1, max_size=POOL_MAX, open=False, configure=configure,
                                        kwargs={"autocommit": True, "connect_timeout": int(CHECK_TIMEOUT_S) + 1,
                                                "prepare_threshold": None},
                                        check=AsyncConnectionPool.check_connection, name="ai-operator-kb-replica")
        self.fit = False
        self.reason: str | None = "not checked yet"
        self._checked_at = -1e9
        self._lock = asyncio.Lock()

    async def open(self) -> None:
        await self.pool.open(wait=False)

    async def close(self) -> None:
        await self.pool.close()

    async def usable(self) -> bool:
        """Whether searches go here now (re-checked at most every CHECK_INTERVAL_S)."""
        if time.monotonic() - self._checked_at < CHECK_INTERVAL_S:
            return self.fit
        async with self._lock:
            if time.monotonic() - self._checked_at >= CHECK_INTERVAL_S:
                self._set(await self._check())
        return self.fit

    async def _check(self) -> str | None:
        try:
            async with asyncio.timeout(CHECK_TIMEOUT_S), self.pool.connection(timeout=CHECK_TIMEOUT_S) as conn:
                cur = await conn.execute(FITNESS_SQL)
                row = await cur.fetchone()
        except Exception as exc:
            return f"unreachable: {str(exc).strip() or type(exc).__name__}"
        assert row is not None
        return judge(bool(row[0]), bool(row[1]), float(row[2]))

    def _set(self, reason: str | None) -> None:
        self._checked_at = time.monotonic()
        fit = reason is None
        if fit != self.fit:
            if fit:
                log.info("kb_replica_fit", replica=self.describe)
            else:
                log.warning("kb_replica_unfit", replica=self.describe, reason=reason, action="searching the primary")
        self.fit, self.reason = fit, reason

    async def fetch(self, sql: str, params: Any) -> list[Any] | None:
        """The rows from the replica, or None when it is unfit or failed (then the caller asks the primary)."""
        if not await self.usable():
            return None
        try:
            async with self.pool.connection(timeout=CHECK_TIMEOUT_S) as conn:
                cur = await conn.execute(sql, params)
                return await cur.fetchall()
        except (psycopg.OperationalError, psycopg.errors.QueryCanceled, TimeoutError) as exc:
            self._set(f"search failed: {str(exc).strip() or type(exc).__name__}")
            return None
