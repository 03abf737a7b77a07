"""End to end: bad RTP is dropped and counted while the call carries on; an events-websocket drop mid-call loses
nothing; an Asterisk restart mid-call closes the call with ended_by=system after the reconnect, and records it;
a restart whose ARI answers 404 while starting does not stop the daemon; a graceful Asterisk shutdown mid-call
is `system`/`channel_lost`, not a caller hang-up.
"""

from __future__ import annotations

from ai_operator.media.rtp import build_header
from tests.support.daemon import Caller, stage_for
from tests.support.wait import eventually


async def test_garbage_and_foreign_rtp_are_dropped_and_counted_and_the_call_goes_on(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        call = stage.call_of(caller.sim)
        totals = stage.svc.rtp_totals  # this daemon's calls only
        before = totals.as_dict()
        stats_before = dict(call.media.endpoint.stats.as_dict())
        good = build_header(0, False, 1, 160, 0x1234) + b"\xff" * 160
        for _ in range(5):
            caller.sim.inject_rtp(b"garbage, not RTP")  # from Asterisk's own address: malformed
            caller.sim.inject_rtp(b"\x80")  # a truncated header
            caller.sim.inject_rtp(good, from_foreign=True)  # a well-formed packet from someone else
            caller.sim.inject_rtp(build_header(0, False, 2, 320, 0x1234) + b"\xff" * 7)  # wrong size

        def dropped(key: str) -> int:
            return int(call.media.endpoint.stats.as_dict()[key] - stats_before[key])

        await eventually(lambda: dropped("dropped_malformed") >= 10 and dropped("dropped_foreign") >= 5
                         and dropped("dropped_wrong_size") >= 5, 10, "every bad packet dropped")
        stats = call.media.endpoint.stats.as_dict()
        assert stats["dropped_malformed"] - stats_before["dropped_malformed"] == 10
        assert stats["dropped_foreign"] - stats_before["dropped_foreign"] == 5
        assert stats["dropped_wrong_size"] - stats_before["dropped_wrong_size"] == 5
        after = totals.as_dict()
        for key in ("dropped_malformed", "dropped_foreign", "dropped_wrong_size"):
            assert after[key] - before[key] == stats[key] - stats_before[key], key
        await eventually(lambda: call.media.endpoint.stats.as_dict()["received"] > stats_before["received"], 10,
                         "real media kept flowing")  # the drops can all land in one tick before the next frame
        registry = stage.svc.metrics.registry
        sample = registry.get_sample_value
        assert sample("ai_operator_rtp_dropped_packets_total", {"reason": "foreign"}) == after["dropped_foreign"]
        assert sample("ai_operator_rtp_dropped_packets_total", {"reason": "malformed"}) == (
            after["dropped_malformed"] + after["dropped_wrong_size"])
        assert sample("ai_operator_rtp_packets_total", {"direction": "in"}) == totals.received > 0
        assert sample("ai_operator_rtp_packets_total", {"direction": "out"}) == totals.sent > 0

        peer = stage.pbx.peer_for(caller.sim)
        assert peer is not None
        peer.seq = (peer.seq + 3) % (1 << 16)  # three of the caller's packets lost on the way
        turns = caller.turns()
        await caller.say("По-русски, пожалуйста.")
        await caller.quiet(min_turns=turns + 1)
        await caller.sim.hangup()
        record = await caller.record()
        received = call.media.endpoint.stats.received
    assert record["turns"][-1]["caller_text"] == "По-русски, пожалуйста."
    assert record["turns"][-1]["state"] == "REGION_SELECTION"
    # the call's own RTP figures (RFC 3550): the garbage was never counted, the three missing packets were
    assert record["rtp_packets_received"] == received and record["rtp_packets_lost"] == 3
    assert record["rtp_packets_expected"] == received + 3 and record["rtp_jitter_ms"] >= 0


async def test_websocket_drop_mid_call_loses_nothing(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        reconnects = stage.svc.metrics.ari_reconnects_total
        await stage.pbx.drop_websockets()
        await eventually(lambda: reconnects._value.get() >= 1 and stage.daemon.stream is not None and stage.daemon.stream.connected, 10, "the reconnect")
        caller.sim.send_dtmf("1")
        await caller.quiet(min_turns=2)
        await caller.say("Я живу в Караганде.")
        await caller.quiet(min_turns=3)
        await caller.say("Спасибо, до свидания.")
        await caller.sim.wait_hangup(timeout=20)
        record = await caller.record()
    assert caller.sim.hung_up_by == "app"
    assert record["ended_by"] == "bot" and record["disposition"] == "completed"
    assert [t["caller_text"] for t in record["turns"]] == [None, "[dtmf 1]", "Я живу в Караганде.", "Спасибо, до свидания."]
    assert record["turns"][2]["fields"]["region_code"] == "KZ-35"
    assert record["ended_at"] is not None


async def test_asterisk_restart_mid_call_closes_it_as_system_after_reconnect(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        caller.sim.send_dtmf("1")
        await caller.quiet(min_turns=2)
        await stage.pbx.restart(down_s=0.3)
        record = await caller.record(timeout=15)
        assert stage.svc.metrics.ari_reconnects_total._value.get() >= 1
        await eventually(lambda: stage.svc.ports.in_use == 0 and stage.svc.pacer.streams == 0, 10,
                         "the call's port and playout stream released")
    assert record["ended_by"] == "system"
    assert record["disposition"] == "channel_lost"
    assert record["ended_at"] is not None
    assert [t["caller_text"] for t in record["turns"]] == [None, "[dtmf 1]"]


async def test_asterisk_restart_through_its_404_window_keeps_the_daemon_serving(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        await stage.pbx.go_down()
        await stage.pbx.come_up(starting_status=404)  # HTTP up, res_ari not loaded yet
        await eventually(lambda: stage.pbx.starting_answers >= 2, 30, "the daemon retrying through the 404s")
        stage.pbx.starting_status = None
        await eventually(lambda: stage.daemon.stream is not None and stage.daemon.stream.connected, 30, "the daemon reconnected")
        record = await caller.record()
        second = await Caller.place(stage)  # and it answers the next call
        await second.quiet(min_turns=1)
        await second.sim.hangup()
        second_record = await second.record()
    assert record["ended_by"] == "system" and record["disposition"] == "channel_lost"
    assert second_record["ended_by"] == "caller" and second_record["turns"][0]["bot_text"]


async def test_asterisk_shutdown_mid_call_is_channel_lost_not_a_caller_hang_up(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        caller.sim.send_dtmf("1")
        await caller.quiet(min_turns=2)
        await stage.pbx.go_down(graceful=True)  # core restart now: channels hung up, then ARI goes away
        assert caller.sim.hung_up_by == "asterisk"
        record = await caller.record(timeout=15)
        await stage.pbx.come_up()
        await eventually(lambda: stage.daemon.stream is not None and stage.daemon.stream.connected, 30, "the daemon reconnected")
    assert record["ended_by"] == "system"
    assert record["disposition"] == "channel_lost"
    assert [t["caller_text"] for t in record["turns"]] == [None, "[dtmf 1]"]
