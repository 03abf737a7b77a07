"""Versioned schema migrations: `migrations/NNNN_name.sql`, applied in order, each in its own transaction.

`schema_migrations(version, applied_at)` records what ran. Applying is idempotent (applied versions are
skipped) and safe with several daemons starting at once: a PostgreSQL advisory lock serialises them.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from importlib import resources

import psycopg

from ai_operator.logs import get_logger

log = get_logger("storage")

MIGRATION_LOCK_KEY = 0x41494F50  # "AIOP": advisory lock id held while migrating
_NAME_RE = re.compile(r"^(\d{4})_([a-z0-9_]+)\.sql$")


@dataclass(frozen=True)
class Migration:
    version: int
    name: str
    sql: str


def load_migrations() -> list[Migration]:
    """The packaged migrations in version order; a badly named file or a duplicate version is an error."""
    folder = resources.files("ai_operator.storage").joinpath("migrations")
    found: dict[int, Migration] = {}
    for item in folder.iterdir():
        if not item.name.endswith(".sql"):
            continue
        m = _NAME_RE.match(item.name)
        if not m:
            raise ValueError(f"migration file {item.name}: name must look like 0001_some_name.sql")
        version = int(m.group(1))
        if version in found:
            raise ValueError(f"migration file {item.name}: version {version} used twice")
        found[version] = Migration(version, m.group(2), item.read_text(encoding="utf-8"))
    return [found[v] for v in sorted(found)]


async def applied_versions(conn: psycopg.AsyncConnection) -> list[int]:
    """Versions recorded in schema_migrations ([] when the table does not exist yet)."""
    cur = await conn.execute("SELECT to_regclass('schema_migrations') IS NOT NULL")
    row = await cur.fetchone()
    if not row or not row[0]:
        return []
    cur = await conn.execute("SELECT version FROM schema_migrations ORDER BY version")
    return [r[0] for r in await cur.fetchall()]


async def apply_migrations(conn: psycopg.AsyncConnection) -> list[int]:
    """Apply the missing migrations on an autocommit connection; returns the versions applied now."""
    applied_now: list[int] = []
    await conn.execute("SELECT pg_advisory_lock(%s)", (MIGRATION_LOCK_KEY,))
    try:
        await conn.execute(
            "CREATE TABLE IF NOT EXISTS schema_migrations ("
            " version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL DEFAULT now())"
        )
        done = set(await applied_versions(conn))
        for mig in load_migrations():
            if mig.version in done:
                continue
            async with conn.transaction():
                await conn.execute(mig.sql.encode())
                await conn.execute(
                    "INSERT INTO schema_migrations (version, name) VALUES (%s, %s)", (mig.version, mig.name)
                )
            applied_now.append(mig.version)
            log.info("migration_applied", version=mig.version, name=mig.name)
    finally:
        await conn.execute("SELECT pg_advisory_unlock(%s)", (MIGRATION_LOCK_KEY,))
    return applied_now
