"""The database supervisor on real PostgreSQL processes (issue 11.4): the embedded server the daemon owns is
restarted after it is killed with a signal (with backoff, counted, a failing restart retried), an external
server is only reconnected to, and the daemon's hooks move records to the spool and back."""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from ai_operator.ops.metrics import Metrics
from ai_operator.storage.database import Database
from ai_operator.storage.records import CallRecord, RecordStore
from ai_operator.storage.supervisor import DatabaseDown, DatabaseSupervisor, GuardedKnowledge
from tests.support.storage import embedded_state_dir, fresh_dsn, shared_server
from tests.support.wait import eventually

FAST: dict[str, Any] = {"check_s": 0.05, "backoff_initial_s": 0.05, "backoff_max_s": 0.4}


def sample(metrics: Metrics, name: str, labels: dict[str, str] | None = None) -> float:
    return metrics.registry.get_sample_value(name, labels or {}) or 0.0


@pytest.fixture
async def embedded():
    state = embedded_state_dir()
    db = await Database.open(None, state)
    try:
        yield db
    finally:
        await db.close()
        shutil.rmtree(state, ignore_errors=True)


async def test_killed_embedded_server_is_restarted_counted_and_usable_again(embedded: Database) -> None:
    events: list[str] = []
    metrics = Metrics()
    sup = DatabaseSupervisor(embedded, on_down=lambda: events.append("down"), on_up=lambda: events.append("up"),
                             metrics=metrics, **FAST)
    sup.start()
    try:
        assert embedded.server is not None
        pid = embedded.server.postmaster_pid()
        assert pid is not None and embedded.server.alive()
        os.kill(pid, signal.SIGKILL)
        await eventually(lambda: events == ["down", "up"], 60, "down, then up after a restart")
        assert embedded.server.alive() and embedded.server.postmaster_pid() != pid
        assert await embedded.ping()
        assert sup.restarts == 1 and sup.outages == 1
        assert sample(metrics, "ai_operator_database_restarts_total", {"result": "ok"}) == 1
        assert sample(metrics, "ai_operator_database_outages_total") == 1
        assert sample(metrics, "ai_operator_database_up") == 1
    finally:
        await sup.stop()


async def test_a_failing_restart_is_retried_with_backoff_until_it_works(embedded: Database) -> None:
    metrics = Metrics()
    sup = DatabaseSupervisor(embedded, metrics=metrics, **FAST)
    server = embedded.server
    assert server is not None
    pgdata_mode = server.pgdata.stat().st_mode & 0o777
    sup.start()
    try:
        os.kill(server.postmaster_pid() or 0, signal.SIGKILL)
        server.pgdata.chmod(0o777)  # PostgreSQL refuses a data directory open to everyone: restarts fail
        await eventually(lambda: sup.restart_failures >= 2, 60, "two failed restarts")
        assert not sup.up and sample(metrics, "ai_operator_database_up") == 0
        assert sample(metrics, "ai_operator_database_restarts_total", {"result": "failed"}) >= 2
        server.pgdata.chmod(pgdata_mode)
        await eventually(lambda: sup.up, 60, "a restart that works")
        assert sup.restarts == 1 and await embedded.ping()
    finally:
        server.pgdata.chmod(pgdata_mode)
        await sup.stop()


async def test_an_external_server_is_reconnected_to_never_restarted(tmp_path) -> None:
    server = shared_server()
    db = await Database.open(fresh_dsn(), tmp_path)
    events: list[str] = []
    sup = DatabaseSupervisor(db, on_down=lambda: events.append("down"), on_up=lambda: events.append("up"), **FAST)
    sup.start()
    try:
        await asyncio.to_thread(server.stop_now)
        await eventually(lambda: events == ["down"], 30, "the outage noticed")
        await eventually(lambda: sup._task.running and not server.alive(), 5, "it stays down")
        assert sup.restarts == 0 and sup.restart_failures == 0 and not sup.owns_server
        await asyncio.to_thread(server.restart)
        await eventually(lambda: events == ["down", "up"], 30, "reconnected")
        assert await db.ping()
    finally:
        await sup.stop()
        await asyncio.to_thread(server.restart)
        await db.close()


async def test_records_spool_at_once_while_down_and_replay_when_up(embedded: Database, tmp_path) -> None:
    records = RecordStore(embedded, tmp_path / "spool.jsonl", retry_s=0.05)
    await records.start()
    sup = DatabaseSupervisor(embedded, on_down=records.detach, on_up=lambda: records.attach(embedded), **FAST)
    kb = GuardedKnowledge(object(), sup)
    sup.start()
    try:
        assert embedded.server is not None
        os.kill(embedded.server.postmaster_pid() or 0, signal.SIGKILL)
        await eventually(lambda: not sup.up, 30, "the outage noticed")
        with pytest.raises(DatabaseDown):
            await kb.search("как оплатить интернет", "ru", "KZ-35")
        started = datetime.now(UTC)
        await records.call_started(CallRecord("outage-1", "test", "operator", None, "inbound", started))
        await records.call_ended("outage-1", datetime.now(UTC), "caller", "caller_hung_up")
        await records.settled()
        assert records.spooled == 2
        held = await records.spooled_call("outage-1")
        assert held is not None and held["ended_by"] == "caller" and held["started_at"] == started
        await eventually(lambda: sup.up, 60, "the database back")
        await eventually(lambda: records.spooled == 0, 30, "the spool replayed")
        row = await records.get_call("outage-1")
        assert row is not None and row["disposition"] == "caller_hung_up"
    finally:
        await sup.stop()
        await records.close()


def postmasters_of(pgdata) -> list[int]:
    """PIDs of the postgres processes serving `pgdata` (from /proc: whoever started them, whatever their parent)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if (entry.name.isdigit() and (entry / "comm").read_text().strip() == "postgres"
                    and str(pgdata) in (entry / "cmdline").read_bytes().decode(errors="replace")):
                found.append(int(entry.name))
        except OSError:
            continue
    return found


async def gone_or_left(pgdata: Path, grace_s: float = 10.0) -> list[int]:
    """[] once no postmaster serves `pgdata`; else (still there after `grace_s`: an orphan, not one finishing its
    exit) their PIDs, killed so a failing test leaves nothing behind."""
    with contextlib.suppress(AssertionError):
        await eventually(lambda: not postmasters_of(pgdata), grace_s, "no postmaster")
    left = postmasters_of(pgdata)
    for pid in left:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)
    return left


async def test_a_restart_under_way_at_shutdown_leaves_no_postmaster() -> None:
    """The server is killed, the supervisor's restart is under way, and the daemon shuts down meanwhile (stops
    the supervisor, then closes the database): the server that restart starts is stopped too, nothing is left."""
    import threading

    state = embedded_state_dir()
    db = await Database.open(None, state)
    server = db.server
    assert server is not None
    entered, go_on, finished = threading.Event(), threading.Event(), threading.Event()
    real_restart = server.restart

    def slow_restart() -> str:  # the restart blocks until the shutdown has begun
        entered.set()
        go_on.wait(60)
        try:
            return real_restart()
        finally:
            finished.set()

    server.restart = slow_restart  # type: ignore[method-assign]
    sup = DatabaseSupervisor(db, **FAST)
    sup.start()
    try:
        os.kill(server.postmaster_pid() or 0, signal.SIGKILL)
        await eventually(entered.is_set, 60, "the supervisor restarting the killed server")

        async def shutdown() -> None:  # as the daemon does: the supervisor first, the server last
            await sup.stop()
            await db.close()

        closing = asyncio.create_task(shutdown())
        await asyncio.sleep(0)  # the shutdown has begun while the restart is under way
        go_on.set()
        await asyncio.wait_for(closing, 120)
        await asyncio.to_thread(finished.wait, 60)
        assert finished.is_set()
    finally:
        go_on.set()
        left = await gone_or_left(server.pgdata)
        shutil.rmtree(state, ignore_errors=True)
    assert left == [], f"postmaster left after the shutdown: {left}"
