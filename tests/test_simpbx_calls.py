"""The simulated PBX drives real calls: Stasis entry, answer, externalMedia race, RTP pacing/loopback, DTMF,
hang-ups, dialplan continue, redirect, originate, and leak counters."""

from __future__ import annotations

import asyncio
import itertools
import time

import numpy as np
import pytest

from ai_operator.ari import AriHttpError, AriRestClient
from ai_operator.media.codecs import FRAME_SAMPLES, get_codec
from ai_operator.media.rtp import RtpPacket
from ai_operator.sim.pbx import SimulatedPbx
from tests.support.events import EventCollector
from tests.support.wait import eventually

APP = "ai-operator"


class RtpEcho(asyncio.DatagramProtocol):
    """The daemon's side for tests: records packets and echoes each one back, re-stamped as our own stream."""

    def __init__(self, echo: bool = True) -> None:
        self.packets: list[tuple[float, RtpPacket]] = []
        self.sources: set[tuple[str, int]] = set()
        self.echo = echo
        self.transport: asyncio.DatagramTransport | None = None

    def connection_made(self, transport):
        self.transport = transport

    def datagram_received(self, data: bytes, addr) -> None:
        self.sources.add(addr)
        try:
            pkt = RtpPacket.parse(data)
        except ValueError:
            return
        self.packets.append((time.monotonic(), pkt))
        if self.echo and self.transport is not None:
            out = RtpPacket(pkt.payload_type, pkt.sequence_number, pkt.timestamp, 0x1234, pkt.payload)
            self.transport.sendto(out.serialize(), addr)


@pytest.fixture
async def pbx():
    sim = SimulatedPbx(stasis_delay_s=0.02)
    await sim.start()
    yield sim
    await sim.stop()


@pytest.fixture
async def ari(pbx):
    client = AriRestClient(pbx.base_url, "asterisk", "asterisk")
    events = await EventCollector(pbx.base_url, "asterisk", "asterisk", APP).start()
    yield client, events
    await events.close()
    await client.close()


async def _media_call(pbx, ari, fmt: str = "ulaw", echo: bool = True):
    client, events = ari
    loop = asyncio.get_running_loop()
    transport, echo_proto = await loop.create_datagram_endpoint(
        lambda: RtpEcho(echo), local_addr=("127.0.0.1", 0)
    )
    host, port = transport.get_extra_info("sockname")[:2]
    call = await pbx.place_call("test")
    start = await events.wait_for("StasisStart", lambda e: e.channel.id == call.channel_id)
    assert start.args == ["test"] and start.channel.state == "Ring"
    await client.answer(call.channel_id)
    ext = await client.external_media(APP, f"{host}:{port}", fmt)
    await events.wait_for("StasisStart", lambda e: e.channel.id == ext.id)
    bridge = await client.create_bridge()
    await client.add_channel(bridge.id, [call.channel_id, ext.id])
    return call, ext, bridge, transport, echo_proto


async def test_inbound_call_answer_emits_state_change_and_marks_call_up(pbx, ari):
    client, events = ari
    call = await pbx.place_call("operator", caller_number="+77015550000")
    start = await events.wait_for("StasisStart")
    assert start.channel.caller.number == "+77015550000"
    assert start.channel.name.startswith("PJSIP/")
    assert call.state == "ring"
    await client.answer(call.channel_id)
    change = await events.wait_for("ChannelStateChange")
    assert change.channel.state == "Up"
    await call.wait_answered(1)
    assert call.state == "up"


async def test_external_media_stasis_start_is_delayed_and_add_channel_before_it_is_422(pbx, ari):
    client, events = ari
    call = await pbx.place_call("test")
    await events.wait_for("StasisStart")
    pbx.external_media_gate = gate = asyncio.Event()
    ext = await client.external_media(APP, "127.0.0.1:40000", "ulaw")
    assert ext.name.startswith("UnicastRTP/127.0.0.1:40000-")
    port = int(ext.var("UNICASTRTP_LOCAL_PORT"))
    assert ext.var("UNICASTRTP_LOCAL_ADDRESS") == "127.0.0.1" and port > 0
    assert await client.get_channel_var(ext.id, "UNICASTRTP_LOCAL_PORT") == str(port)
    bridge = await client.create_bridge()
    with pytest.raises(AriHttpError) as info:
        await client.add_channel(bridge.id, [call.channel_id, ext.id])
    assert info.value.status == 422 and info.value.message == "Channel not in Stasis application"
    gate.set()
    await events.wait_for("StasisStart", lambda e: e.channel.id == ext.id)
    await client.add_channel(bridge.id, [call.channel_id, ext.id])
    entered = {(await events.wait_for("ChannelEnteredBridge")).channel.id for _ in range(2)}
    assert entered == {call.channel_id, ext.id}


async def test_rtp_peer_streams_speech_at_real_time_pace_and_records_the_echo(pbx, ari):
    call, _ext, _bridge, transport, echo = await _media_call(pbx, ari)
    try:
        await call.wait_media(2)
        tone = (8000 * np.sin(2 * np.pi * 440 * np.arange(FRAME_SAMPLES * 10) / 8000)).astype(np.int16)
        t0 = time.monotonic()
        call.say(tone)
        await call.wait_said(3)
        elapsed = time.monotonic() - t0
        assert elapsed >= 0.15, elapsed  # 10 frames of 20 ms, paced, not burst
        await eventually(lambda: sum(1 for _, p in echo.packets if p.marker) >= 1 and len(echo.packets) >= 10,
                         what="the ten frames at the far end")
        pkts = [p for _, p in echo.packets]
        codec = get_codec("ulaw")
        assert all(p.payload_type == codec.payload_type and len(p.payload) == 160 for p in pkts)
        assert pkts[0].marker and not any(p.marker for p in pkts[1:])
        assert len({p.ssrc for p in pkts}) == 1
        seqs = [p.sequence_number for p in pkts]
        assert all((b - a) % 65536 == 1 for a, b in itertools.pairwise(seqs))
        tss = [p.timestamp for p in pkts]
        assert all((b - a) % 2**32 == FRAME_SAMPLES for a, b in itertools.pairwise(tss))
        arrivals = [t for t, _ in echo.packets]
        rate = (len(arrivals) - 1) / (arrivals[-1] - arrivals[0])
        assert 35 <= rate <= 65, rate  # ~50 packets per second
        sent_audio = np.concatenate([codec.decode(p.payload) for p in pkts])
        assert np.abs(sent_audio).max() > 6000  # the tone went out, not only silence
        got = call.received_audio()
        assert len(call.received) >= len(pkts) - 3
        assert np.abs(got).max() > 6000  # the echoed tone came back and was recorded
    finally:
        transport.close()


async def test_slin_media_uses_big_endian_pt10(pbx, ari):
    call, _ext, _bridge, transport, echo = await _media_call(pbx, ari, fmt="slin", echo=False)
    try:
        call.say(np.full(FRAME_SAMPLES, 1000, dtype=np.int16))
        await call.wait_said(2)
        await eventually(lambda: any(p.payload[:2] == (1000).to_bytes(2, "big") for _, p in echo.packets),
                         what="the speech frame at the far end")
        pkts = [p for _, p in echo.packets]
        assert pkts and all(p.payload_type == 10 and len(p.payload) == 320 for p in pkts)
        loud = [p for p in pkts if p.payload[:2] == (1000).to_bytes(2, "big")]
        assert loud, "speech frame not sent as big-endian slin"
    finally:
        transport.close()


async def test_inject_rtp_from_pbx_socket_and_from_foreign_socket(pbx, ari):
    call, ext, _bridge, transport, echo = await _media_call(pbx, ari, echo=False)
    try:
        await call.wait_media(2)
        call.inject_rtp(b"garbage-not-rtp")
        call.inject_rtp(b"foreign", from_foreign=True)
        await eventually(lambda: len({p for _, p in echo.sources}) >= 2, what="both sources seen")
        local_port = int(ext.var("UNICASTRTP_LOCAL_PORT"))
        ports = {p for _, p in echo.sources}
        assert local_port in ports and len(ports) == 2
    finally:
        transport.close()


async def test_dtmf_and_caller_hangup_events_and_no_leaks_after_app_cleanup(pbx, ari):
    client, events = ari
    call, ext, bridge, transport, _echo = await _media_call(pbx, ari, echo=False)
    try:
        call.send_dtmf("5")
        dtmf = await events.wait_for("ChannelDtmfReceived")
        assert dtmf.digit == "5" and dtmf.duration_ms > 0 and dtmf.channel.id == call.channel_id
        await call.hangup()
        order = []
        for t in ("ChannelHangupRequest", "ChannelLeftBridge", "StasisEnd", "ChannelDestroyed"):
            ev = await events.wait_for(t, lambda e: e.channel is not None and e.channel.id == call.channel_id)
            order.append(events.events.index(ev))
        assert order == sorted(order)
        destroyed = events.events[order[-1]]
        assert destroyed.cause == 16 and destroyed.cause_txt == "Normal Clearing"
        assert call.state == "hungup" and call.hung_up_by == "caller"
        assert pbx.counts()["external_media"] == 1 and pbx.counts()["rtp_sockets"] == 1
        await client.hangup(ext.id)
        await client.destroy_bridge(bridge.id)
        await events.wait_for("BridgeDestroyed")
        assert pbx.counts() == {
            "channels": 0,
            "bridges": 0,
            "external_media": 0,
            "rtp_sockets": 0,
            "active_media": 0,
        }
    finally:
        transport.close()


async def test_app_hangup_continue_and_redirect_are_recorded_on_the_call(pbx, ari):
    client, events = ari
    c1 = await pbx.place_call("a")
    c2 = await pbx.place_call("b")
    c3 = await pbx.place_call("c")
    await client.hangup(c1.channel_id, reason="busy")
    await c1.wait_hangup(1)
    assert c1.hung_up_by == "app"
    destroyed = await events.wait_for("ChannelDestroyed", lambda e: e.channel.id == c1.channel_id)
    assert destroyed.cause == 17
    await client.continue_in_dialplan(c2.channel_id, context="handoff", extension="100", priority=1)
    await c2.wait_hangup(1)
    assert c2.state == "dialplan"
    assert c2.continued == {"context": "handoff", "extension": "100", "priority": 1, "label": None}
    await events.wait_for("StasisEnd", lambda e: e.channel.id == c2.channel_id)
    with pytest.raises(AriHttpError) as info:
        await client.redirect(c3.channel_id, "SIP/100")
    assert info.value.status == 422
    await client.redirect(c3.channel_id, "PJSIP/100")
    assert c3.redirected_to == "PJSIP/100" and c3.ended
    with pytest.raises(AriHttpError) as info:
        await client.answer(c1.channel_id)
    assert info.value.status == 404 and info.value.message == "Channel not found"
    assert pbx.counts()["channels"] == 0


async def test_originate_enters_stasis_with_split_app_args(pbx, ari):
    client, events = ari
    fut = pbx.expect_originate()
    ch = await client.originate("PJSIP/+911234567@trunk", APP, "freight,load-7", caller_id="Bot <100>")
    call = await asyncio.wait_for(fut, 2)
    start = await events.wait_for("StasisStart", lambda e: e.channel.id == ch.id)
    assert start.args == ["freight", "load-7"] and start.channel.state == "Up"
    assert call.channel_id == ch.id and call.state == "up" and call.route == "freight"


async def test_place_call_without_subscriber_is_refused(pbx):
    with pytest.raises(RuntimeError, match="no websocket"):
        await pbx.place_call("test", app="nobody")


async def test_bad_parameters_get_400_with_the_parameter_named(pbx, ari):
    client, _ = ari
    cases = [
        ("POST", "/channels/externalMedia", {"app": APP, "external_host": "127.0.0.1:1"}, "format"),
        (
            "POST",
            "/channels/externalMedia",
            {"app": APP, "external_host": "h:1", "format": "ulaw", "direction": "in"},
            "direction",
        ),
        ("POST", "/channels", {"app": APP}, "endpoint"),
        ("DELETE", "/channels/1.1", {"reason": "bogus"}, "reason"),
        ("POST", "/bridges", {"bogus": "1"}, "bogus"),
        ("POST", "/channels", {"endpoint": "PJSIP/1", "app": APP, "timeout": "soon"}, "timeout"),
    ]
    for method, path, query, name in cases:
        with pytest.raises(AriHttpError) as info:
            await client.request(method, path, query=query)
        assert info.value.status == 400, (path, query)
        assert name in info.value.message, info.value.message
