"""End to end: a freight call through the simulated PBX and the real daemon, Hindi espeak audio both ways.
The turn boundary holds a dangling fragment on the phone path and merges its continuation; the deal closes at
our one concession, never the ceiling, and the call ends through CallEnd after the goodbye."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from policies.freight import ceiling_leaks
from tests.support.daemon import Caller, stage_for
from tests.support.wait import eventually

LOAD = json.loads((Path(__file__).resolve().parents[3] / "etc/loads/sample.json").read_text())


@pytest.mark.slow
async def test_freight_call_with_turn_boundary_hold_and_deal(daemon_base) -> None:
    async with stage_for(daemon_base, ROUTE_FREIGHT_HOLD_S="1.5") as stage:
        caller = await Caller.place(stage, route="freight")
        await caller.quiet(min_turns=1)
        turns = caller.turns()
        await caller.say("हां जी, मैं ही बोल रहा हूं", "hi")
        await caller.quiet(min_turns=turns + 1)

        # "तो मेरा rate लगभग" ... pause ... "छब्बीस हज़ार के आस पास": one turn, decided after the merge
        turns = caller.turns()
        call = stage.call_of(caller.sim)
        early = dict(call.early_turn.counts)  # a dangling fragment never ends the turn at the short pause
        await caller.say("तो मेरा rate लगभग", "hi")  # his pause: the fragment is transcribed and held, nothing is said
        await eventually(lambda: call.driver.pending == "तो मेरा rate लगभग", what="the fragment held")
        assert caller.turns() == turns
        await caller.say("छब्बीस हज़ार के आस पास", "hi")
        await caller.quiet(min_turns=turns + 1)
        assert caller.turns() == turns + 1  # the fragment alone was not decided
        assert call.early_turn.counts == early

        for line in ("डीज़ल बहुत महंगा है और टोल भी लगता है", "ठीक है, चलेगा", "ठीक है जी, धन्यवाद"):
            turns = caller.turns()
            await caller.say(line, "hi")
            if line != "ठीक है जी, धन्यवाद":
                await caller.quiet(min_turns=turns + 1)
        await caller.sim.wait_hangup(timeout=30)
        record = await caller.record()

    texts = [t["caller_text"] for t in record["turns"]]
    assert "तो मेरा rate लगभग छब्बीस हज़ार के आस पास" in texts
    merged = record["turns"][texts.index("तो मेरा rate लगभग छब्बीस हज़ार के आस पास")]
    assert merged["fields"]["heard_rate"] == 26000 and merged["state"] == "PROBING"
    assert merged["timings"].get("hold_ms", 0) == 0 or merged["timings"]["hold_ms"] <= 1500
    offered = [t["fields"]["offered_rate"] for t in record["turns"] if t["fields"].get("offered_rate")]
    assert offered and set(offered) == {offered[0]}  # exactly one concession, repeated at the deal
    assert LOAD["anchor"] <= offered[0] < LOAD["ceiling"]
    assert not any(ceiling_leaks(t["bot_text"] or "", LOAD["ceiling"]) for t in record["turns"])
    assert record["disposition"] == "deal_at_counter" and record["ended_by"] == "bot"
    assert record["turns"][-1]["fields"]["hang_up"] is True and record["turns"][-1]["state"] == "CLOSING"
    assert caller.sim.hung_up_by == "app"
