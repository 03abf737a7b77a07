"""The daemon's clock is passed in (`DaemonOverrides.clock` -> `Services.clock` -> every `Call` and the pacer):
a call's timers and its record read it. A test moves the clock past `MAX_CALL_S` instead of waiting for it."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from ai_operator.daemon.services import DaemonOverrides
from policies.operator.catalog import say
from tests.support.clock import MovedClock
from tests.support.daemon import Caller, stage_for
from tests.support.wait import eventually

WALL = datetime(2031, 5, 17, 9, 30, tzinfo=UTC)
MAX_CALL_S = 3600


async def test_a_call_reads_the_daemons_clock_for_its_timers_and_its_record(daemon_base) -> None:
    clock = MovedClock(WALL)
    async with stage_for(daemon_base, overrides=DaemonOverrides(clock=clock), MAX_CALL_S=MAX_CALL_S,
                         IDLE_TIMEOUT_S=600) as stage:
        caller = await Caller.place(stage)
        call = stage.call_of(caller.sim)
        assert call.clock is clock and stage.svc.clock is clock
        caller.sim.send_dtmf("1")
        await caller.quiet(min_turns=2)
        assert not call.callend.armed  # an hour to go
        clock.advance(MAX_CALL_S)  # an hour later, by the daemon's clock
        await eventually(lambda: call.callend.armed, 30, what="the maximum call length reached")
        await caller.sim.wait_hangup(timeout=30)
        record = await caller.record()
    assert record["disposition"] == "max_call_length" and record["ended_by"] == "bot", record
    assert record["turns"][-1]["bot_text"] == say("max_call_length", "ru")
    answered, ended = record["answered_at"], record["ended_at"]
    assert WALL <= answered < WALL + timedelta(minutes=5)  # the wall time is the clock's too
    assert ended - answered >= timedelta(seconds=MAX_CALL_S)
