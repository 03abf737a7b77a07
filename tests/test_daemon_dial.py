"""Outbound: `ai-operator dial` originates into our Stasis app; the daemon takes the answered channel as an
outbound call on the route, with the load file given on the command line."""

from __future__ import annotations

import dataclasses
import io
import json
import shutil
from contextlib import redirect_stdout
from pathlib import Path

import pytest

from ai_operator.config import ConfigError
from ai_operator.daemon.dial import dial, stasis_args
from tests.support.daemon import Caller, stage_for
from tests.support.wait import eventually

REPO = Path(__file__).resolve().parents[1]


def loads_dir(tmp_path: Path) -> Path:
    """A LOADS_DIR holding the sample load (the route's default)."""
    loads = tmp_path / "loads"
    loads.mkdir()
    shutil.copy(REPO / "etc/loads/sample.json", loads / "sample.json")
    return loads


def test_stasis_args_carry_route_direction_and_absolute_load(tmp_path):
    assert stasis_args("freight", {}) == "freight,outbound"
    assert stasis_args("freight", {"load": "/x.json"}) == "freight,outbound,load=/x.json"


async def test_dial_originates_and_the_daemon_serves_an_outbound_freight_call(daemon_base, tmp_path) -> None:
    load = json.loads((REPO / "etc/loads/sample.json").read_text())
    load["vendor_name"] = "सुरेश"
    loads = loads_dir(tmp_path)
    path = loads / "load.json"
    path.write_text(json.dumps(load, ensure_ascii=False))
    async with stage_for(daemon_base, ROUTE_FREIGHT_LOADS_DIR=str(loads)) as stage:
        answered = stage.pbx.expect_originate()
        out = io.StringIO()
        with redirect_stdout(out):
            code = await dial(stage.settings, route_name="freight", endpoint="PJSIP/vendor@trunk", args=[f"load={path}"],
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


async def test_dial_refuses_a_disabled_route_a_bad_load_and_one_outside_loads_dir(daemon_base, tmp_path) -> None:
    loads = loads_dir(tmp_path)
    async with stage_for(daemon_base, ROUTE_FREIGHT_LOADS_DIR=str(loads)) as stage:
        routes = {**stage.settings.routes, "freight": dataclasses.replace(stage.settings.routes["freight"], enabled=False)}
        disabled = dataclasses.replace(stage.settings, routes=routes)
        with pytest.raises(ConfigError, match="ROUTE_FREIGHT_ENABLED"):
            await dial(disabled, route_name="freight", endpoint="PJSIP/v", args=[], caller_id=None)
        bad = loads / "bad.json"
        bad.write_text("{}")
        with pytest.raises(ConfigError, match=r"--arg load=.*bad.json: .*bad.json: field 'vendor_name': missing"):
            await dial(stage.settings, route_name="freight", endpoint="PJSIP/v", args=[f"load={bad}"], caller_id=None)
        outside = tmp_path / "outside.json"
        shutil.copy(loads / "sample.json", outside)
        with pytest.raises(ConfigError, match="outside ROUTE_FREIGHT_LOADS_DIR"):
            await dial(stage.settings, route_name="freight", endpoint="PJSIP/v", args=[f"load={outside}"], caller_id=None)
        with pytest.raises(ConfigError, match=r"--arg lod=sample.json: policy freight of route freight has no file "
                                              r"option 'lod' \(allowed: load\)"):
            await dial(stage.settings, route_name="freight", endpoint="PJSIP/v", args=["lod=sample.json"], caller_id=None)
        assert not [r for r in stage.pbx.requests if r[0] == "POST" and r[1] == "/channels"]


@pytest.mark.parametrize("load", ["gone.json", "../outside.json", "/etc/passwd"])
async def test_a_call_whose_load_is_missing_or_outside_loads_dir_goes_back_to_the_dialplan(
    daemon_base, tmp_path, load
) -> None:
    """`load=<file>` from Stasis arguments is confined to LOADS_DIR; a refused one never starts a session."""
    from ai_operator.ari.rest import AriRestClient

    loads = loads_dir(tmp_path)
    shutil.copy(loads / "sample.json", tmp_path / "outside.json")
    async with stage_for(daemon_base, ROUTE_FREIGHT_LOADS_DIR=str(loads)) as stage:
        s = stage.settings
        answered = stage.pbx.expect_originate()
        async with AriRestClient(s.ari.url, s.ari.user, s.ari.password) as ari:
            await ari.originate("PJSIP/vendor", s.ari.app, f"freight,outbound,load={load}")
        sim = await answered
        await eventually(lambda: sim.state == "dialplan", what="the call back in the dialplan")
        assert stage.call_of(sim) is None
        assert await stage.svc.records.get_call(sim.channel_id) is None
