"""Knowledge-base search from the streaming read replica (`KB_DATABASE_URL`) while an ingest runs on the primary;
the replica stopped: answers still come, from the primary; the replica back: searches return to it. Through the
daemons' own code path (`Database.read` via `KnowledgeBase.search`), configured from a cluster daemon's env file."""

from __future__ import annotations

import asyncio
import contextlib
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import psycopg

from ai_operator.config.settings import load_settings
from ai_operator.kb.embeddings import build_embedder
from ai_operator.kb.store import KnowledgeBase
from ai_operator.storage.database import Database
from policies.operator.knowledge import KNOWLEDGE
from tests.support.asterisk.daemon_proc import SAMPLE_KB
from tests.support.cluster.cluster import Cluster
from tests.support.wait import eventually

QUERY = "сколько стоит тариф дом 500 домашний интернет"
COPIES = 40  # entries the ingest adds (copies of the sample's, new ids): enough to keep it busy a while


def replica_scans(cluster: Cluster) -> int:
    """Scans of kb_chunks the replica itself served (a standby counts its own; each backend reports them at its
    next idle moment, at most about a second late)."""
    with psycopg.connect(cluster.db("replica").dsn, autocommit=True, connect_timeout=5) as conn:
        row = conn.execute("SELECT COALESCE(seq_scan, 0) + COALESCE(idx_scan, 0) FROM pg_stat_user_tables"
                           " WHERE relname = 'kb_chunks'").fetchone()
    return int(row[0]) if row else 0


def copies_file(tmp: Path) -> Path:
    entries = [json.loads(line) for line in SAMPLE_KB.read_text().splitlines() if line.strip()]
    out = tmp / "copies.jsonl"
    with out.open("w") as f:
        for n in range(COPIES):
            entry = dict(entries[n % len(entries)], id=f"replica-test-{n}")
            f.write(json.dumps(entry, ensure_ascii=False) + "\n")
    return out


def test_kb_search_uses_the_replica_and_falls_back_to_the_primary(cluster: Cluster, tmp_path: Path) -> None:
    env_file = cluster.daemon_env_file(cluster.node_names[0], 1)
    settings = load_settings(env_file)
    assert settings.storage.kb_database_url == cluster.db("replica").dsn
    replica = cluster.db("replica")

    async def scenario() -> None:
        db = await Database.open(settings.storage.database_url, tmp_path / "state", max_size=2)
        await db.use_replica(settings.storage.kb_database_url)
        assert db.replica is not None
        kb = KnowledgeBase(db, build_embedder(settings), KNOWLEDGE)
        try:
            log = tmp_path / "ingest.log"
            with log.open("wb") as out:
                ingest = await asyncio.create_subprocess_exec(
                    sys.executable, "-m", "ai_operator", "kb", "ingest", "--env", str(env_file),
                    str(copies_file(tmp_path)), stdout=out, stderr=subprocess.STDOUT)
            scans, searches = replica_scans(cluster), 0
            while ingest.returncode is None:  # searching while the primary ingests
                assert await kb.search(QUERY, "ru", "")
                searches += 1
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(ingest.wait(), 0.05)
            assert ingest.returncode == 0, log.read_text()
            assert searches and db.replica.fit
            # a backend reports its counts within a second or so, not at once
            await eventually(lambda: replica_scans(cluster) >= scans + searches, 30, what="the replica's scans")

            async def copies_replicated() -> bool:  # what the primary ingested reaches the replica's answers
                hits = await kb.search(QUERY, "ru", "", limit=50)
                return any(h.entry_id.startswith("replica-test-") for h in hits)
            await eventually(copies_replicated, 60, what="the ingested copies in the replica's answers")

            replica.stop()
            try:
                assert await kb.search(QUERY, "ru", "")  # from the primary now
                assert not db.replica.fit and db.replica.reason
            finally:
                replica.start()
            await eventually(db.replica.usable, 60, what="the replica fit again")
            scans = replica_scans(cluster)
            assert await kb.search(QUERY, "ru", "")
            await eventually(lambda: replica_scans(cluster) > scans, 30, what="a scan on the replica again")
        finally:
            await kb.close()
            await db.close()
            remove_copies(cluster)

    asyncio.run(scenario())


def remove_copies(cluster: Cluster) -> Any:
    with psycopg.connect(cluster.db().dsn, autocommit=True, connect_timeout=5) as conn:
        conn.execute("DELETE FROM kb_entries WHERE id LIKE 'replica-test-%'")
