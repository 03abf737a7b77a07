"""The database is down when the daemon starts: calls are served, their records are spooled, and when the
database comes up the daemon connects by itself, replays the spool and the knowledge base becomes available."""

from __future__ import annotations

import asyncio
import time

import pytest

from ai_operator.daemon import app
from tests.support.daemon import Caller, stage_for
from tests.support.storage import fresh_dsn, shared_server


@pytest.mark.slow
async def test_database_down_at_start_then_connected_and_spool_replayed(daemon_base, monkeypatch) -> None:
    monkeypatch.setattr(app, "DB_RETRY_S", 0.5)
    dsn = fresh_dsn()
    server = shared_server()
    await asyncio.to_thread(server.stop_now)
    try:
        async with stage_for(daemon_base, DATABASE_URL=dsn) as stage:
            records = stage.daemon.svc.records
            assert stage.daemon.db is None and stage.daemon.svc.knowledge is None
            caller = await Caller.place(stage)
            await caller.quiet(min_turns=1)
            await caller.sim.hangup()
            await stage.wait_call_ended(caller.sim)
            assert records.spooled >= 3  # started, answered, greeting turn, ended: nothing lost
            await asyncio.to_thread(server.restart)
            deadline = time.monotonic() + 20
            while (stage.daemon.db is None or records.spooled) and time.monotonic() < deadline:
                await asyncio.sleep(0.1)
            assert stage.daemon.db is not None and records.spooled == 0
            assert stage.daemon.svc.knowledge is not None
            record = await records.get_call(caller.sim.channel_id)
    finally:
        await asyncio.to_thread(server.restart)
    assert record is not None and record["ended_by"] == "caller"
    assert record["turns"] and record["turns"][0]["caller_text"] is None  # the greeting
