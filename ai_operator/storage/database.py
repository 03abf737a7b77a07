"""The database handle: embedded pgserver (no DATABASE_URL) or an external DSN, a psycopg async pool, migrations.

`Database.open` starts the embedded server when needed, applies the migrations, and opens a pool whose
connections know the pgvector type. `close` closes the pool and stops the embedded server it started.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
from pathlib import Path
from typing import Any

import psycopg
from pgvector.psycopg import register_vector_async
from psycopg.conninfo import conninfo_to_dict
from psycopg_pool import AsyncConnectionPool

from ai_operator.logs import get_logger, register_secret
from ai_operator.storage.embedded import EmbeddedServer
from ai_operator.storage.migrate import applied_versions, apply_migrations
from ai_operator.storage.replica import ReadReplica

log = get_logger("storage")

CONNECT_TIMEOUT_S = 5.0
POOL_OPEN_TIMEOUT_S = 10.0
RANDOM_PAGE_COST = 1.1
HNSW_EF_SEARCH = 100  # candidates the HNSW scan keeps; filters (language, region) apply after it

_URI_PASSWORD_RE = re.compile(r"^([a-z][a-z0-9+.-]*://[^:/@?]*:)([^@]*)(@)", re.IGNORECASE)
_KV_PASSWORD_RE = re.compile(r"(password\s*=\s*)('(?:[^'\\]|\\.)*'|\S+)", re.IGNORECASE)


def mask_dsn(dsn: str) -> str:
    """The DSN with any password replaced by ***."""
    masked = _URI_PASSWORD_RE.sub(lambda m: m.group(1) + ("***" if m.group(2) else "") + m.group(3), dsn)
    return _KV_PASSWORD_RE.sub(lambda m: m.group(1) + "***", masked)


def _register_dsn_password(dsn: str) -> None:
    """Register the DSN's password (URI or key=value form, as written and as decoded) as a log secret."""
    m = _URI_PASSWORD_RE.match(dsn)
    if m and m.group(2):
        register_secret(m.group(2))
    # A DSN libpq cannot parse: connecting will say so (and mask_dsn still hides its password).
    with contextlib.suppress(psycopg.ProgrammingError):
        password = conninfo_to_dict(dsn).get("password")
        register_secret(str(password) if password is not None else None)


async def _configure(conn: psycopg.AsyncConnection) -> None:
    await register_vector_async(conn)
    await conn.execute(f"SET hnsw.ef_search = {int(HNSW_EF_SEARCH)}")
    # Short OLTP queries: JIT compilation would cost more than it saves; SSD-like page costs let the planner
    # use the GIN/HNSW indexes.
    await conn.execute("SET jit = off")
    await conn.execute(f"SET random_page_cost = {RANDOM_PAGE_COST}")


async def _start_embedded(server: EmbeddedServer) -> str:
    """`server.start()` in a thread. Cancelled meanwhile (the daemon stops while it retries its database): the
    start is let finish and the server released, so no postmaster is left behind that nobody holds."""
    starting = asyncio.ensure_future(asyncio.to_thread(server.start))
    try:
        return await asyncio.shield(starting)
    except asyncio.CancelledError:
        await asyncio.wait([starting])
        if not starting.cancelled():
            starting.exception()  # a start that failed holds nothing; one that worked is released here
        await asyncio.to_thread(server.release)
        raise


class Database:
    """An open database: `pool` for queries, `embedded` when it runs the private pgserver."""

    def __init__(self, pool: AsyncConnectionPool, dsn: str, server: EmbeddedServer | None) -> None:
        self.pool = pool
        self.dsn = dsn
        self.server = server
        self.replica: ReadReplica | None = None  # KB_DATABASE_URL: knowledge-base reads, when fit

    async def use_replica(self, dsn: str | None) -> None:
        """Send `read()`s to the read replica at `dsn` while it is fit (replica.py); empty: none."""
        if not dsn:
            return
        _register_dsn_password(dsn)
        self.replica = ReadReplica(dsn, _configure, mask_dsn(dsn))
        await self.replica.open()

    async def read(self, sql: str, params: Any) -> list[Any]:
        """A read-only query's rows: from the replica while it is fit, else (or when it fails) the primary."""
        if self.replica is not None:
            rows = await self.replica.fetch(sql, params)
            if rows is not None:
                return rows
        async with self.pool.connection() as conn:
            cur = await conn.execute(sql, params)
            return await cur.fetchall()

    @property
    def embedded(self) -> bool:
        """True when this handle runs the private embedded server."""
        return self.server is not None

    @classmethod
    async def open(
        cls, dsn: str | None, state_dir: Path, *, min_size: int = 1, max_size: int = 10
    ) -> Database:
        """Connect (starting the embedded server in `state_dir/pgdata` when `dsn` is empty) and migrate."""
        server: EmbeddedServer | None = None
        if not dsn:
            server = EmbeddedServer.in_state_dir(Path(state_dir))
            dsn = await _start_embedded(server)
        else:
            _register_dsn_password(dsn)
        try:
            async with await psycopg.AsyncConnection.connect(
                dsn, autocommit=True, connect_timeout=int(CONNECT_TIMEOUT_S)
            ) as conn:
                await apply_migrations(conn)
            pool = AsyncConnectionPool(
                dsn,
                min_size=min_size,
                max_size=max_size,
                kwargs={"autocommit": True, "connect_timeout": int(CONNECT_TIMEOUT_S), "prepare_threshold": None},
                configure=_configure,
                check=AsyncConnectionPool.check_connection,
                open=False,
                name="ai-operator",
            )
            await pool.open(wait=True, timeout=POOL_OPEN_TIMEOUT_S)
        except BaseException:
            if server is not None:
                await asyncio.to_thread(server.release)
            raise
        db = cls(pool, dsn, server)
        log.info("database_opened", database=db.describe())
        return db

    def describe(self) -> str:
        """Where the data lives, with any password masked."""
        if self.server is not None:
            return f"embedded PostgreSQL in {self.server.pgdata}"
        return mask_dsn(self.dsn)

    async def ping(self, timeout: float = 2.0) -> bool:
        """True when a trivial query answers within `timeout` seconds."""
        try:
            async with self.pool.connection(timeout=timeout) as conn:
                await conn.execute("SELECT 1")
            return True
        except Exception:
            return False

    async def vector_version(self) -> str | None:
        """The installed `vector` extension version, or None."""
        async with self.pool.connection() as conn:
            cur = await conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = await cur.fetchone()
        return str(row[0]) if row else None

    async def migrations(self) -> list[int]:
        """Versions recorded in schema_migrations."""
        async with self.pool.connection() as conn:
            return await applied_versions(conn)

    async def close(self) -> None:
        """Close the pool; stop the embedded server when this was its last user."""
        if self.replica is not None:
            await self.replica.close()
        await self.pool.close()
        if self.server is not None:
            await asyncio.to_thread(self.server.release)
        log.info("database_closed", database=self.describe())
