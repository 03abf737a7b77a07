"""Outbound: `ai-operator dial` originates into our Stasis app; the daemon takes the answered channel as an
outbound call on the route, with the load file given on the command line."""

from __future__ import annotations

import asyncio
import dataclasses
import io
import json
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from ai_operator.config import ConfigError
from ai_operator.daemon.dial import dial, stasis_args
from tests.support.daemon import Caller, stage_for

REPO = Path(__file__).resolve().parents[1]


def test_stasis_args_carry_route_direction_and_absolute_load(tmp_path):
    assert stasis_args("freight", None) == "freight,outbound"
    assert stasis_args("freight", "x.json") == f"freight,outbound,load={Path('x.json').resolve()}"


async def test_dial_originates_and_the_daemon_serves_an_outbound_freight_call(daemon_base, tmp_path) -> None:
    load = json.loads((REPO / "etc/loads/sample.json").read_text())
    load["vendor_name"] = "सुरेश"
    path = tmp_path / "load.json"
    path.write_text(json.dumps(load, ensure_ascii=False))
    async with stage_for(daemon_base) as stage:
        answered = stage.pbx.expect_originate()
        out = io.StringIO()
        with redirect_stdout(out):
            code = await dial(stage.settings, route_name="freight", endpoint="PJSIP/vendor@trunk", load=str(path),
                              caller_id="Ori <+911100000000>")
        assert code == 0 and "originated" in out.getvalue()
        sim = await answered
        caller = Caller(stage, sim)
        await sim.wait_media(timeout=10)
        await caller.quiet(min_turns=1)
        call = stage.call_of(sim)
        assert call.direction == "outbound" and call.route.name == "freight"
        await sim.hangup()
        record = await caller.record()
    assert record["direction"] == "outbound" and record["route"] == "freight" and record["policy"] == "freight"
    assert "सुरेश" in record["turns"][0]["bot_text"]  # the load from the command line, not the route's default
    assert record["ended_by"] == "caller" and record["disposition"] == "caller_hung_up"


async def test_dial_refuses_a_disabled_route_and_a_bad_load(daemon_base, tmp_path) -> None:
    async with stage_for(daemon_base) as stage:
        routes = {**stage.settings.routes, "freight": dataclasses.replace(stage.settings.route("freight"), enabled=False)}
        disabled = dataclasses.replace(stage.settings, routes=routes)
        with pytest.raises(ConfigError, match="ROUTE_FREIGHT_ENABLED"):
            await dial(disabled, route_name="freight", endpoint="PJSIP/v", load=None, caller_id=None)
        bad = tmp_path / "bad.json"
        bad.write_text("{}")
        with pytest.raises(ConfigError, match="--load"):
            await dial(stage.settings, route_name="freight", endpoint="PJSIP/v", load=str(bad), caller_id=None)
        assert not [r for r in stage.pbx.requests if r[0] == "POST" and r[1] == "/channels"]


async def test_a_call_whose_session_cannot_start_goes_back_to_the_dialplan(daemon_base, tmp_path) -> None:
    from ai_operator.ari.rest import AriRestClient

    async with stage_for(daemon_base) as stage:
        s = stage.settings
        answered = stage.pbx.expect_originate()
        async with AriRestClient(s.ARI_URL, s.ARI_USER, s.ARI_PASSWORD) as ari:
            await ari.originate("PJSIP/vendor", s.ARI_APP, f"freight,outbound,load={tmp_path / 'gone.json'}")
        sim = await answered
        for _ in range(100):
            if sim.state == "dialplan":
                break
            await asyncio.sleep(0.02)
        assert sim.state == "dialplan"
        assert stage.call_of(sim) is None
        assert await stage.daemon.svc.records.get_call(sim.channel_id) is None
