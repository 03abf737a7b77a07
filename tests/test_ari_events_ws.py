"""The ARI events websocket: reconnect with backoff after a blip and after an Asterisk restart, `on_connect`
(reconnected=True) for reconciliation, 401/404 raised once, malformed/unknown events skipped."""

from __future__ import annotations

import asyncio
import random
import time
from typing import Any

import pytest
from aiohttp import web

from ai_operator.ari import AriAuthError, AriError, AriEventStream, AriRestClient
from ai_operator.ari.events import StasisStart
from ai_operator.ari.events_ws import backoff_delay, events_url
from ai_operator.sim.pbx import SimulatedPbx
from tests.support.events import EventCollector
from tests.support.wait import eventually

APP = "ai-operator"
FAST: dict[str, Any] = {"backoff_initial_s": 0.05, "backoff_max_s": 0.2}


@pytest.fixture
async def pbx():
    sim = SimulatedPbx()
    await sim.start()
    yield sim
    await sim.stop()


def test_events_url_and_backoff_growth_cap_and_jitter():
    assert (
        events_url("http://h:8088/ari/", "ai op") == "ws://h:8088/ari/events?app=ai%20op&subscribeAll=false"
    )
    assert events_url("https://h/ari", "x").startswith("wss://h/ari/events?")
    rng = random.Random(1)
    delays = [backoff_delay(n, 0.5, 30.0, rng) for n in range(1, 12)]
    assert 0.5 <= delays[0] <= 0.625 and 1.0 <= delays[1] <= 1.25 and 2.0 <= delays[2] <= 2.5
    assert all(d <= 30.0 for d in delays) and delays[-1] >= 30.0 * 0.99
    assert len({round(backoff_delay(3, 0.5, 30.0, rng), 6) for _ in range(20)}) > 1  # jitter varies


async def test_reconnects_after_drop_and_reports_reconnected(pbx):
    events = await EventCollector(pbx.base_url, "asterisk", "asterisk", APP, **FAST).start()
    try:
        assert events.connects == [False]
        await pbx.drop_websockets()
        await events.wait_connects(2, timeout=3)
        assert events.connects == [False, True] and events.stream.reconnects == 1
        call = await pbx.place_call("test")
        start = await events.wait_for("StasisStart")
        assert start.channel.id == call.channel_id
    finally:
        await events.close()


async def test_reconnects_after_restart_with_backoff_and_state_is_gone(pbx):
    events = await EventCollector(pbx.base_url, "asterisk", "asterisk", APP, **FAST).start()
    client = AriRestClient(pbx.base_url, "asterisk", "asterisk")
    try:
        call = await pbx.place_call("test")
        await events.wait_for("StasisStart")
        await client.create_bridge()
        t0 = time.monotonic()
        await pbx.restart(down_s=0.4)
        await events.wait_connects(2, timeout=5)
        assert time.monotonic() - t0 >= 0.4
        assert events.connects[-1] is True and events.stream.reconnects == 1
        assert call.ended and "StasisEnd" not in events.types()  # vanished silently, as in a real restart
        assert await client.list_channels() == [] and await client.list_bridges() == []
    finally:
        await client.close()
        await events.close()


async def test_wrong_password_on_websocket_is_raised_once(pbx):
    stream = AriEventStream(pbx.base_url, "asterisk", "nope-nope", APP, **FAST)
    with pytest.raises(AriAuthError) as info:
        async for _ in stream:
            pass
    assert "ARI_USER/ARI_PASSWORD" in str(info.value) and "nope-nope" not in str(info.value)
    assert pbx.auth_failures == 1  # one attempt, no retry loop


async def test_missing_ari_module_404_is_raised_once():
    app = web.Application()
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = runner.addresses[0][1]
    try:
        stream = AriEventStream(f"http://127.0.0.1:{port}/ari", "a", "b", APP, **FAST)
        t0 = time.monotonic()
        with pytest.raises(AriError, match=r"404.*res_ari"):
            async for _ in stream:
                pass
        assert time.monotonic() - t0 < 1.0  # no retry loop
    finally:
        await runner.cleanup()


async def test_malformed_and_unknown_events_are_skipped(pbx):
    events = await EventCollector(pbx.base_url, "asterisk", "asterisk", APP).start()
    try:
        pbx.send_raw_event(APP, "{not json")
        pbx.send_raw_event(
            APP, '{"type": "StasisStart", "application": "x", "timestamp": "2026-11-30T05:16:54.123+0000"}'
        )
        pbx.send_raw_event(APP, '{"type": "ChannelTalkingStarted", "application": "x"}')
        call = await pbx.place_call("test")
        start = await events.wait_for("StasisStart")
        assert start.channel.id == call.channel_id
        assert len(events.events) == 1 and events.stream.malformed == 2
    finally:
        await events.close()


async def test_close_ends_iteration_while_waiting_to_reconnect(pbx):
    backoff_s = 60.0  # far longer than the bound below: ending in time means the wait was cut short
    events = await EventCollector(
        pbx.base_url, "asterisk", "asterisk", APP, backoff_initial_s=backoff_s, backoff_max_s=backoff_s
    ).start()
    await pbx.stop()
    await eventually(lambda: not events.stream.connected, what="the stream noticed the PBX gone")
    await events.stream.close()
    assert events._task.task is not None
    await asyncio.wait_for(events._task.task, backoff_s / 2)
    assert events.error is None


async def test_second_subscriber_replaces_the_first(pbx):
    barrier = f"{APP}-barrier"  # the first socket's other application: its events come after any of APP's
    first = await EventCollector(pbx.base_url, "asterisk", "asterisk", f"{APP},{barrier}").start()
    second = await EventCollector(pbx.base_url, "asterisk", "asterisk", APP).start()
    try:
        replaced = await first.wait_for("ApplicationReplaced")
        assert replaced.application == APP
        call = await pbx.place_call("test")
        assert (await second.wait_for("StasisStart")).channel.id == call.channel_id
        later = await pbx.place_call("test", app=barrier)
        assert (await first.wait_for("StasisStart")).channel.id == later.channel_id  # nothing of APP's before it
    finally:
        await first.close()
        await second.close()


async def test_failing_on_connect_callback_does_not_kill_the_stream(pbx):
    calls: list[bool] = []

    async def reconcile(reconnected: bool) -> None:
        calls.append(reconnected)
        raise RuntimeError("reconcile failed")

    stream = AriEventStream(pbx.base_url, "asterisk", "asterisk", APP, on_connect=reconcile, **FAST)
    got = []

    async def consume() -> None:
        async for ev in stream:
            got.append(ev)
            return

    task = asyncio.create_task(consume())
    await eventually(lambda: calls, 10, "the on_connect callback called")
    call = await pbx.place_call("test")
    await asyncio.wait_for(task, 2)
    assert calls == [False] and isinstance(got[0], StasisStart) and got[0].channel.id == call.channel_id
    await stream.close()


# ---- issue 11.3: an Asterisk restart must not kill the stream ------------------------------------------------
async def test_reconnect_through_the_404_start_up_window_retries_until_ari_is_ready(pbx):
    events = await EventCollector(pbx.base_url, "asterisk", "asterisk", APP, **FAST).start()
    try:
        await pbx.go_down()
        await pbx.come_up(starting_status=404)  # HTTP answers, res_ari not loaded yet
        await eventually(lambda: pbx.starting_answers >= 3 or events.error, 10, "three answered retries")
        assert events.error is None and events.connects == [False]
        pbx.starting_status = None  # ARI ready
        await events.wait_connects(2, timeout=10)
        call = await pbx.place_call("test")
        assert (await events.wait_for("StasisStart")).channel.id == call.channel_id
    finally:
        await events.close()


@pytest.mark.parametrize("status", [404, 502, 503, 401])
async def test_every_start_up_answer_is_transient_once_the_settings_have_worked(pbx, status):
    events = await EventCollector(pbx.base_url, "asterisk", "asterisk", APP, **FAST).start()
    try:
        await pbx.go_down(graceful=True)
        await pbx.come_up(starting_status=status)
        await eventually(lambda: pbx.starting_answers >= 2 or events.error, 10, f"retries answered {status}")
        assert events.error is None
        pbx.starting_status = None
        await events.wait_connects(2, timeout=10)
    finally:
        await events.close()


async def test_known_good_settings_wait_out_a_404_at_start_up_fresh_ones_fail_at_once(pbx):
    pbx.starting_status = 404
    fresh = AriEventStream(pbx.base_url, "asterisk", "asterisk", APP, **FAST)
    with pytest.raises(AriError, match=r"404.*res_ari"):
        async for _ in fresh:
            pass
    assert pbx.starting_answers == 1  # a configuration error is said once, no retry loop
    events = EventCollector(pbx.base_url, "asterisk", "asterisk", APP, proven=True, **FAST)
    task = asyncio.create_task(events.start(timeout=10))
    try:
        await eventually(lambda: pbx.starting_answers >= 3 or events.error, 10, "retries while Asterisk starts")
        assert events.error is None
        pbx.starting_status = None
        await task
        assert events.connects == [False]
    finally:
        await events.close()


async def test_refusals_after_having_worked_are_fatal_once_they_outlast_the_bound(pbx):
    events = await EventCollector(
        pbx.base_url, "asterisk", "asterisk", APP, refusal_give_up_s=0.3, **FAST
    ).start()
    try:
        pbx.password = "rotated-in-ari-conf"  # ARI now refuses these credentials for good
        await pbx.drop_websockets()
        await eventually(lambda: events.error is not None, 10, "the stream to give up")
        assert isinstance(events.error, AriAuthError)
        assert pbx.auth_failures >= 2  # retried first: a starting Asterisk also answers 401 for a moment
    finally:
        await events.close()


async def test_connection_refused_is_retried_without_bound(pbx):
    events = await EventCollector(
        pbx.base_url, "asterisk", "asterisk", APP, refusal_give_up_s=0.05, **FAST
    ).start()
    try:
        await pbx.go_down()
        await eventually(lambda: events.stream.failures >= 5, 10, "five refused attempts")
        assert events.error is None
        await pbx.come_up()
        await events.wait_connects(2, timeout=10)
    finally:
        await events.close()
