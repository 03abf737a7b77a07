"""Database: embedded start, DSN masking, migrations (ordered, recorded, idempotent, concurrent-safe)."""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import psycopg

from ai_operator.logs import redact
from ai_operator.storage.database import Database, mask_dsn
from ai_operator.storage.migrate import apply_migrations, load_migrations
from tests.support.storage import fresh_dsn

EXPECTED_TABLES = {"calls", "turns", "kb_meta", "kb_entries", "kb_chunks", "schema_migrations"}


def test_mask_dsn_hides_passwords() -> None:
    assert mask_dsn("postgresql://bob:s3cret@db.local:5432/ops") == "postgresql://bob:***@db.local:5432/ops"
    assert "s3cret" not in mask_dsn("host=db user=bob password=s3cret dbname=ops")
    assert "dbname=ops" in mask_dsn("host=db user=bob password=s3cret dbname=ops")
    assert mask_dsn("postgresql://postgres:@/postgres?host=/tmp/x") == "postgresql://postgres:@/postgres?host=/tmp/x"


def test_migrations_are_numbered_in_order() -> None:
    migs = load_migrations()
    versions = [m.version for m in migs]
    assert versions == sorted(versions) and versions[0] == 1 and len(set(versions)) == len(versions)


async def test_open_applies_migrations_and_reports(db: Database) -> None:
    assert await db.ping()
    assert re.fullmatch(r"\d+\.\d+\.\d+", await db.vector_version() or "")
    assert await db.migrations() == [m.version for m in load_migrations()]
    async with db.pool.connection() as conn:
        cur = await conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
        tables = {r[0] for r in await cur.fetchall()}
    assert tables >= EXPECTED_TABLES
    assert not db.embedded
    assert db.describe() == mask_dsn(db.dsn) and "dbname=" in db.describe()


async def test_key_value_dsn_password_never_reaches_a_log(tmp_path: Path) -> None:
    # The embedded server authenticates by peer (the uid on its socket), so the password is ignored.
    database = await Database.open(fresh_dsn() + " password=kv-s3cret-77", tmp_path)
    try:
        assert redact("connect failed: password kv-s3cret-77") == "connect failed: password ***"
        assert "kv-s3cret-77" not in database.describe()
    finally:
        await database.close()


async def test_migrations_idempotent_and_concurrent(tmp_path: Path) -> None:
    dsn = fresh_dsn()
    # Three daemons migrating the same empty database at once: the advisory lock serialises them.
    conns = [await psycopg.AsyncConnection.connect(dsn, autocommit=True) for _ in range(3)]
    try:
        results = await asyncio.gather(*(apply_migrations(c) for c in conns))
        all_versions = [m.version for m in load_migrations()]
        assert sorted(v for r in results for v in r) == all_versions  # each applied exactly once
        again = await apply_migrations(conns[0])
        assert again == []
        cur = await conns[0].execute("SELECT count(*) FROM schema_migrations")
        assert await cur.fetchone() == (len(all_versions),)
    finally:
        for c in conns:
            await c.close()
    database = await Database.open(dsn, tmp_path)  # opening again applies nothing and works
    try:
        assert await database.migrations() == all_versions
    finally:
        await database.close()


async def test_embedded_database_in_state_dir(tmp_path: Path) -> None:
    database = await Database.open(None, tmp_path)
    try:
        assert database.embedded
        assert (tmp_path / "pgdata" / "PG_VERSION").exists()
        assert str(tmp_path / "pgdata") in database.describe()
        assert await database.ping()
        assert await database.vector_version()
    finally:
        await database.close()
    assert not await database.ping()  # closed pool: no answer, no exception
