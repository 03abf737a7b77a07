"""Contract: every REST request the client sends and every event and response the simulated PBX produces is
checked against Asterisk 22.10.1's ARI Swagger description (shared/asterisk-ari)."""

from __future__ import annotations

import asyncio
import json

import pytest
from websockets.asyncio.client import connect

from ai_operator.ari import AriRestClient
from ai_operator.sim.pbx import SimulatedPbx
from tests.support.ari_contract import AriSpec
from tests.support.events import EventCollector
from tests.support.wait import eventually

APP = "ai-operator"


@pytest.fixture(scope="module")
def spec() -> AriSpec:
    return AriSpec.load()  # $AI_OPERATOR_ARI_SPEC, else shared/asterisk-ari beside the repository


async def _exercise_every_client_call(pbx: SimulatedPbx) -> tuple[list[dict], dict[str, object]]:
    """Drive one of every REST call the client can make; return the raw events and the responses."""
    raw_events: list[dict] = []
    url = (
        pbx.base_url.replace("http://", "ws://")
        + f"/events?app={APP}&subscribeAll=false&api_key=asterisk:asterisk"
    )
    async with connect(url) as ws, AriRestClient(pbx.base_url, "asterisk", "asterisk") as client:

        async def reader() -> None:
            async for msg in ws:
                raw_events.append(json.loads(msg))

        task = asyncio.create_task(reader())
        await eventually(lambda: APP in pbx._clients, what="the events websocket subscribed")
        responses: dict[str, object] = {}
        call = await pbx.place_call("test")
        await client.answer(call.channel_id)
        ext = await client.external_media(APP, "127.0.0.1:40001", "ulaw", variables={"CALL": call.channel_id})
        ext2 = await client.external_media(
            APP, "127.0.0.1:40002", "alaw", channel_id="em-2", encapsulation="rtp", transport="udp",
            connection_type="client", direction="both",
        )  # fmt: skip
        await eventually(lambda: sum(e["type"] == "StasisStart" for e in raw_events) >= 3,
                         what="StasisStart of the call and both externalMedia channels")
        responses["externalMedia"] = ext
        responses["var"] = await client.get_channel_var(ext.id, "UNICASTRTP_LOCAL_PORT")
        bridge = await client.create_bridge(bridge_type="mixing", bridge_id="br-1", name="call-1")
        await client.add_channel(bridge.id, [call.channel_id, ext.id])
        responses["channel"] = await client.get_channel(call.channel_id)
        responses["channels"] = await client.list_channels()
        responses["bridges"] = await client.list_bridges()
        call.send_dtmf("1")
        await client.remove_channel(bridge.id, [ext.id])
        await client.hangup(ext.id, reason="normal")
        await client.hangup(ext2.id)
        await client.destroy_bridge(bridge.id)
        await client.continue_in_dialplan(
            call.channel_id, context="handoff", extension="100", priority=1, label="x"
        )
        c2 = await pbx.place_call("test")
        await client.redirect(c2.channel_id, "PJSIP/200")
        c3 = await pbx.place_call("test")
        await c3.hangup()
        fut = pbx.expect_originate()
        await client.originate(
            "PJSIP/100", APP, "freight,load", caller_id="Bot <100>", timeout=20, channel_id="orig-1",
            variables={"A": "1"},
        )  # fmt: skip
        orig = await asyncio.wait_for(fut, 2)
        await client.hangup(orig.channel_id, reason="busy")
        responses["info"] = await client.asterisk_info()
        responses["application"] = await client.get_application(APP)
        responses["resources"] = await client.api_docs_resources()
        await eventually(lambda: any(e["type"] == "ChannelDestroyed" and e["channel"]["id"] == orig.channel_id
                                     for e in raw_events), what="the originated channel's ChannelDestroyed")
        task.cancel()
    return raw_events, responses


async def test_every_request_and_event_matches_the_spec(spec):
    pbx = SimulatedPbx(stasis_delay_s=0.01)
    await pbx.start()
    try:
        raw_events, responses = await _exercise_every_client_call(pbx)
    finally:
        await pbx.stop()
    problems: list[str] = []
    checked_ops = set()
    for method, path, query, body in pbx.requests:
        if path.startswith("/api-docs/"):
            continue  # the spec files themselves, not operations
        op = spec.find_operation(method, path)
        assert op is not None, (method, path)
        checked_ops.add(op.nickname)
        problems += spec.check_request(method, path, query, body)
    assert problems == []
    assert {
        "externalMedia", "answer", "getChannelVar", "create", "addChannel", "get", "list", "removeChannel",
        "hangup", "destroy", "continueInDialplan", "redirect", "originate", "getInfo", "eventWebsocket",
    } <= checked_ops  # fmt: skip
    types = {e["type"] for e in raw_events}
    assert {
        "StasisStart", "StasisEnd", "ChannelStateChange", "ChannelDtmfReceived", "ChannelHangupRequest",
        "ChannelDestroyed", "ChannelEnteredBridge", "ChannelLeftBridge", "BridgeDestroyed",
    } <= types  # fmt: skip
    for ev in raw_events:
        problems += spec.check_model(ev["type"], ev)
    assert problems == []
    ext = responses["externalMedia"]
    assert ext.var("UNICASTRTP_LOCAL_PORT") == responses["var"]
    info = responses["info"]
    assert info["system"]["version"] == "22.10.1"
    assert spec.check_model("AsteriskInfo", info) == []
    assert spec.check_model("Application", responses["application"]) == []
    assert responses["resources"]["apiVersion"] == spec.api_version == "10.0.0"


async def test_rest_responses_match_their_models(spec):
    pbx = SimulatedPbx()
    await pbx.start()
    try:
        async with AriRestClient(pbx.base_url, "asterisk", "asterisk") as client:
            collector = await EventCollector(pbx.base_url, "asterisk", "asterisk", APP).start()
            call = await pbx.place_call("test")
            ext = await client.request(
                "POST",
                "/channels/externalMedia",
                query={"app": APP, "external_host": "127.0.0.1:9", "format": "slin"},
            )
            bridge = await client.request("POST", "/bridges", query={"type": "mixing"})
            listed = await client.request("GET", "/channels")
            got = await client.request("GET", f"/channels/{call.channel_id}")
            var = await client.request(
                "GET", f"/channels/{ext['id']}/variable", query={"variable": "UNICASTRTP_LOCAL_ADDRESS"}
            )
            await collector.close()
        assert spec.check_model("Channel", ext) == [] and "channelvars" in ext
        assert spec.check_model("Bridge", bridge) == []
        assert len(listed) == 2 and all(spec.check_model("Channel", c) == [] for c in listed)
        assert spec.check_model("Channel", got) == [] and got["state"] == "Ring"
        assert spec.check_model("Variable", var) == [] and var["value"] == "127.0.0.1"
    finally:
        await pbx.stop()


def test_contract_checker_catches_violations(spec):
    bad = spec.check_request(
        "POST", "/channels/externalMedia", {"app": "a", "format": "ulaw", "transport": "sctp"}
    )
    assert any("allowableValues" in p for p in bad)
    bad = spec.check_request("POST", "/channels/externalMedia", {"app": "a"})
    assert any("'format' missing" in p for p in bad)
    bad = spec.check_request("POST", "/bridges/b/addChannel", {"channel": "x", "bogus": "1"})
    assert any("'bogus' is not declared" in p for p in bad)
    bad = spec.check_request("POST", "/channels", {"endpoint": "PJSIP/1", "variables": "{}"})
    assert any("declared as body" in p for p in bad)
    assert spec.check_request("GET", "/nope", {}) != []
    assert spec.check_model("StasisEnd", {"type": "StasisEnd", "application": "a"}) != []


def test_a_broken_spec_file_is_named_in_the_error(tmp_path):
    (tmp_path / "resources.json").write_text('{"apiVersion": "10.0.0", "apis": [{"path": "/api-docs/x.{format}"}]}')
    (tmp_path / "api-docs").mkdir()
    (tmp_path / "api-docs" / "x.json").write_text('{\n  "apis": [,]\n}')
    with pytest.raises(ValueError, match=r"x\.json: line 2: invalid JSON"):
        AriSpec.load(tmp_path)
    with pytest.raises(FileNotFoundError, match=r"missing/resources\.json"):
        AriSpec.load(tmp_path / "missing")
