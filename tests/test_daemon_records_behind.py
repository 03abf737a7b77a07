"""A call never waits for its records: with the calls and turns tables locked by someone else (a slow or busy
database), a new call is still answered and greeted, and the caller is heard; the records land once the
database answers again, in order, nothing lost."""

from __future__ import annotations

import psycopg

from tests.support.daemon import Caller, stage_for
from tests.support.wait import eventually


async def test_a_call_is_answered_and_greeted_while_the_database_is_blocked(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        db = stage.daemon.db
        assert db is not None
        blocker = await psycopg.AsyncConnection.connect(db.dsn)
        try:
            await blocker.execute("BEGIN")
            await blocker.execute("LOCK TABLE calls, turns IN ACCESS EXCLUSIVE MODE")  # held: every write waits
            caller = await Caller.place(stage)
            await eventually(lambda: caller.sim.received, what="the greeting, with the records blocked")
            caller.sim.send_dtmf("1")
            await caller.quiet(min_turns=2)
            records = stage.svc.records
            assert records.pending > 0 or records.spooled > 0  # nothing written yet: the call did not wait
        finally:
            await blocker.execute("ROLLBACK")
            await blocker.close()
        await caller.sim.hangup()
        record = await caller.record()
    assert [t["caller_text"] for t in record["turns"]] == [None, "[dtmf 1]"]
    assert record["ended_by"] == "caller" and record["answered_at"] is not None
