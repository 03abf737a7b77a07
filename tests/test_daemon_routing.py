"""End to end: admission (disabled / unknown route, over MAX_CALLS go back to the dialplan untouched), DTMF
language choice, the human handoff, and no leaks after 50 calls.
"""

from __future__ import annotations

import asyncio

from policies.operator.catalog import say
from tests.support.daemon import Caller, metric, stage_for
from tests.support.wait import eventually

REJECTED = "ai_operator_calls_rejected_total"


def touched(stage, channel_id: str) -> list:
    """REST requests that named the channel (answer, continue, ...)."""
    return [r for r in stage.pbx.requests if channel_id in r[1] or channel_id in str(r[2])]


async def _rejected_call(stage, route: str):
    sim = await stage.pbx.place_call(route)
    await sim.wait_hangup(timeout=5)
    return sim


async def test_disabled_unknown_and_over_capacity_go_back_to_the_dialplan_untouched(daemon_base) -> None:
    async with stage_for(daemon_base, MAX_CALLS=1) as stage:
        for route, reason in (("kazakhtelecom", "route_disabled"), ("nosuch", "route_unknown")):
            before = metric(stage, REJECTED, {"reason": reason})
            sim = await _rejected_call(stage, route)
            assert sim.state == "dialplan" and sim.continued is not None
            assert sim.continued["context"] is None  # continued where it was, not somewhere else
            assert not sim._answered.is_set()
            assert [r[:2] for r in touched(stage, sim.channel_id)] == [("POST", f"/channels/{sim.channel_id}/continue")]
            assert metric(stage, REJECTED, {"reason": reason}) == before + 1
        assert not any(r[1].startswith("/bridges") or "externalMedia" in r[1] for r in stage.pbx.requests)

        first = await Caller.place(stage)  # takes the only slot
        sim = await _rejected_call(stage, "test")
        assert sim.state == "dialplan"
        assert [r[:2] for r in touched(stage, sim.channel_id)] == [("POST", f"/channels/{sim.channel_id}/continue")]
        assert metric(stage, REJECTED, {"reason": "over_capacity"}) == 1
        assert stage.call_of(first.sim) is not None and first.sim.state == "up"  # the call in progress is untouched
        await first.sim.hangup()
        record = await first.record()
        assert record["ended_by"] == "caller"


async def test_dtmf_2_selects_kazakh(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        caller.sim.send_dtmf("2")
        await caller.quiet(min_turns=2)
        await caller.sim.hangup()
        record = await caller.record()
    turn = record["turns"][1]
    assert turn["caller_text"] == "[dtmf 2]"
    assert turn["fields"]["language"] == "kk" and turn["state"] == "REGION_SELECTION"
    assert say("region_prompt", "kk") in turn["bot_text"]


async def test_handoff_plays_its_line_then_continues_to_the_route_target(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        caller.sim.send_dtmf("1")
        await caller.quiet(min_turns=2)
        said = await caller.say("Соедините с оператором.")
        await caller.sim.wait_hangup(timeout=20)
        record = await caller.record()
        tts = stage.svc.tts_for(stage.settings.routes["test"])
    from tests.support.daemon import synthesized_frames
    line = say("handoff", "ru")
    assert record["turns"][-1]["bot_text"] == line
    heard = caller.frames_between(said)
    assert len(heard) == await synthesized_frames(tts, line, "ru")  # the whole handoff line, then the transfer
    assert caller.ended_at is not None and caller.ended_at >= heard[-1]
    assert caller.sim.state == "dialplan"
    assert caller.sim.continued == {"context": "ai-operator-handoff", "extension": "operator", "priority": 1,
                                    "label": None}
    assert record["disposition"] == "handoff" and record["ended_by"] == "bot"
    assert record["summary"]["handoff"] == "ai-operator-handoff,operator,1"


async def test_no_leaks_after_50_calls(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        svc = stage.svc

        async def one_call() -> str:
            caller = await Caller.place(stage)
            await eventually(lambda: caller.sim.received, what="the greeting's first frame")
            await caller.sim.hangup()
            record = await caller.record()
            return record["ended_by"]

        ended = []
        for _ in range(5):
            ended += await asyncio.gather(*(one_call() for _ in range(10)))
        assert ended == ["caller"] * 50
        await eventually(lambda: svc.ports.in_use == 0, what="every RTP port back in the allocator")
        assert stage.pbx.counts() == {"channels": 0, "bridges": 0, "external_media": 0, "rtp_sockets": 0,
                                      "active_media": 0}
        assert stage.manager.calls == {} and stage.manager.tasks == {}
        assert stage.manager.media_owner == {}
        assert svc.pacer.streams == 0
        started = [r for r in stage.pbx.requests if r[1] == "/channels/externalMedia"]
        assert len(started) == 50
