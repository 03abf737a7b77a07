"""Fixtures shared by the whole suite (one place; test modules import helpers from `tests/support/`, never
fixtures from each other): a fresh database per test on one embedded PostgreSQL, the sample knowledge base in
it, and the daemon tests' base
(a state dir with the sample knowledge base ingested) for the session."""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import pytest

from ai_operator.kb.embeddings import HashEmbedder
from ai_operator.kb.ingest import parse_kb_lines
from ai_operator.kb.store import KnowledgeBase
from ai_operator.storage.database import Database
from policies.operator.knowledge import KNOWLEDGE
from tests.support.daemon import DaemonBase, start_daemon_base
from tests.support.storage import fresh_dsn

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
async def db(tmp_path: Path) -> AsyncIterator[Database]:
    """A new, empty database on the session's embedded PostgreSQL, migrated."""
    database = await Database.open(fresh_dsn(), tmp_path)
    try:
        yield database
    finally:
        await database.close()


@pytest.fixture
async def kb(db: Database) -> KnowledgeBase:
    """The sample knowledge base (`etc/kb/sample.jsonl`) ingested with the offline hash embedder."""
    entries, rejects = parse_kb_lines((REPO / "etc" / "kb" / "sample.jsonl").read_bytes().split(b"\n"), KNOWLEDGE)
    assert not rejects
    base = KnowledgeBase(db, HashEmbedder(256), KNOWLEDGE)
    await base.ingest(entries)
    await base.check_embedder()
    return base


@pytest.fixture(scope="session")
def daemon_base() -> Iterator[DaemonBase]:
    """The daemon tests' state dir and settings; its embedded PostgreSQL stays up for the session."""
    import shutil

    base, server = start_daemon_base()
    try:
        yield base
    finally:
        server.release()
        shutil.rmtree(base.state_dir, ignore_errors=True)


@pytest.hookimpl(optionalhook=True)  # a hook of pytest-xdist: only called when it distributes the tests
def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object:
    """`--dist loadgroup` (make test): each shared-stack folder on one worker (tests/support/worker_groups.py)."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from tests.support.worker_groups import SharedStackScheduling

    return SharedStackScheduling(config, log)


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """Figures a test measured (`record_property("report", line)`, e.g. the knowledge-base relevance gate's
    precision and recall) are printed at the end of every run, whatever the verbosity."""
    lines = [value for outcome in ("passed", "failed") for rep in terminalreporter.stats.get(outcome, [])
             for name, value in getattr(rep, "user_properties", ()) if name == "report"]
    if lines:
        terminalreporter.write_sep("-", "measured")
        for line in lines:
            terminalreporter.write_line(str(line))
