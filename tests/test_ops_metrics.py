"""Metrics: the exposition parses and carries the families and labels; /healthz over real HTTP; /metrics served a
part per event-loop step."""

from __future__ import annotations

import asyncio
from collections.abc import Iterator
from itertools import pairwise

import aiohttp
import pytest
from prometheus_client.parser import text_string_to_metric_families

from ai_operator.ops.http import MetricsServer, evaluate_health
from ai_operator.ops.metrics import LATENCY_STAGES, REJECT_REASONS, SAMPLES_PER_PART, Metrics


def _samples(metrics: Metrics) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    out = {}
    for family in text_string_to_metric_families(metrics.render().decode()):
        for s in family.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def test_families_and_labels_after_increments():
    m = Metrics()
    m.calls_active.labels(route="test").inc()
    m.calls_active.labels(route="test").inc()
    m.calls_active.labels(route="test").dec()
    m.calls_total.labels(route="freight", disposition="agreed").inc(3)
    m.turns_total.labels(route="test").inc(5)
    m.tool_calls_denied_total.labels(tool="handoff", state="greeting").inc()
    m.ari_reconnects_total.inc(2)
    m.adapter_errors_total.labels(adapter="stt").inc()
    m.adapter_latency_seconds.labels(adapter="model").observe(0.3)
    m.observe_stage("tts_first_frame", 0.2)
    m.observe_stage("tts_first_frame", 4.0)
    m.reject("over_capacity")
    m.set_rtp_source(
        lambda: {
            "packets_in": 100,
            "packets_out": 90,
            "dropped_foreign": 2,
            "dropped_wrong_pt": 1,
            "underruns": 4,
        }
    )
    s = _samples(m)
    assert s[("ai_operator_calls_active", (("route", "test"),))] == 1
    assert s[("ai_operator_calls_total", (("disposition", "agreed"), ("route", "freight")))] == 3
    assert s[("ai_operator_turns_total", (("route", "test"),))] == 5
    assert s[("ai_operator_tool_calls_denied_total", (("state", "greeting"), ("tool", "handoff")))] == 1
    assert s[("ai_operator_ari_reconnects_total", ())] == 2
    assert s[("ai_operator_adapter_errors_total", (("adapter", "stt"),))] == 1
    assert s[("ai_operator_adapter_errors_total", (("adapter", "kb"),))] == 0
    assert s[("ai_operator_adapter_latency_seconds_count", (("adapter", "model"),))] == 1
    stage = (("stage", "tts_first_frame"),)
    assert s[("ai_operator_turn_stage_seconds_count", stage)] == 2
    assert s[("ai_operator_turn_stage_seconds_sum", stage)] == pytest.approx(4.2)
    assert s[("ai_operator_turn_stage_seconds_bucket", (("le", "0.25"), *stage))] == 1
    assert s[("ai_operator_turn_stage_seconds_bucket", (("le", "+Inf"), *stage))] == 2
    for name in LATENCY_STAGES:
        assert ("ai_operator_turn_stage_seconds_count", (("stage", name),)) in s
    for reason in REJECT_REASONS:
        expected = 1 if reason == "over_capacity" else 0
        assert s[("ai_operator_calls_rejected_total", (("reason", reason),))] == expected
    assert s[("ai_operator_rtp_packets_total", (("direction", "in"),))] == 100
    assert s[("ai_operator_rtp_packets_total", (("direction", "out"),))] == 90
    assert s[("ai_operator_rtp_dropped_packets_total", (("reason", "foreign"),))] == 2
    assert s[("ai_operator_rtp_dropped_packets_total", (("reason", "malformed"),))] == 0
    assert s[("ai_operator_rtp_dropped_packets_total", (("reason", "wrong_pt"),))] == 1
    assert s[("ai_operator_playout_underruns_total", ())] == 4


def test_rtp_source_is_read_at_scrape_time_and_failure_is_contained():
    m = Metrics()
    counts = {"packets_in": 1}
    m.set_rtp_source(lambda: counts)
    assert _samples(m)[("ai_operator_rtp_packets_total", (("direction", "in"),))] == 1
    counts["packets_in"] = 7
    assert _samples(m)[("ai_operator_rtp_packets_total", (("direction", "in"),))] == 7

    def broken() -> dict[str, int]:
        raise RuntimeError("media layer gone")

    m.set_rtp_source(broken)
    s = _samples(m)
    assert s[("ai_operator_rtp_packets_total", (("direction", "in"),))] == 0
    assert ("ai_operator_calls_rejected_total", (("reason", "draining"),)) in s


def test_registries_are_private():
    a, b = Metrics(), Metrics()
    a.turns_total.labels(route="test").inc()
    assert ("ai_operator_turns_total", (("route", "test"),)) not in _samples(b)


def test_unknown_stage_and_reason_are_rejected():
    m = Metrics()
    with pytest.raises(ValueError, match="stage 'tts'"):
        m.observe_stage("tts", 1.0)
    with pytest.raises(ValueError, match="reason 'busy'"):
        m.reject("busy")


def test_evaluate_health():
    assert evaluate_health({"ari_connected": True, "database_ok": True}) == (True, [])
    assert evaluate_health({"ari_connected": False, "database_ok": True}) == (False, ["ari_disconnected"])
    assert evaluate_health({}) == (False, ["ari_disconnected", "database_unreachable"])


async def test_http_metrics_and_healthz():
    m = Metrics()
    m.turns_total.labels(route="test").inc()
    state = {"ari_connected": True, "database_ok": True, "calls_active": 2}
    server = MetricsServer(m, port=0, health=lambda: dict(state))
    await server.start()
    try:
        assert server.port != 0
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{server.url}/metrics") as r:
                assert r.status == 200
                assert "version=0.0.4" in r.headers["Content-Type"]
                names = {f.name for f in text_string_to_metric_families(await r.text())}
                assert {"ai_operator_turns", "ai_operator_calls_rejected", "ai_operator_rtp_packets"} <= names
            async with http.get(f"{server.url}/healthz") as r:
                assert r.status == 200
                body = await r.json()
                assert body["status"] == "ok" and body["calls_active"] == 2
            state["database_ok"] = False
            async with http.get(f"{server.url}/healthz") as r:
                assert r.status == 503
                body = await r.json()
                assert body["status"] == "unhealthy" and body["reasons"] == ["database_unreachable"]
    finally:
        await server.stop()


async def test_healthz_async_and_raising_health():
    async def async_health() -> dict:
        return {"ari_connected": False, "database_ok": True}

    def raising() -> dict:
        raise RuntimeError("pool closed")

    for fn, reason in ((async_health, "ari_disconnected"), (raising, "pool closed")):
        server = MetricsServer(Metrics(), port=0, health=fn)
        await server.start()
        try:
            async with aiohttp.ClientSession() as http, http.get(f"{server.url}/healthz") as r:
                assert r.status == 503
                assert reason in " ".join((await r.json())["reasons"])
        finally:
            await server.stop()


async def test_port_in_use_names_the_address():
    first = MetricsServer(Metrics(), port=0)
    await first.start()
    try:
        second = MetricsServer(Metrics(), port=first.port)
        with pytest.raises(OSError, match=f"127.0.0.1:{first.port}"):
            await second.start()
    finally:
        await first.stop()


async def test_healthz_degraded_is_200_with_the_provider_reasons_and_unhealthy_wins():
    reason = "provider openai/stt open: HTTP 401: Incorrect API key provided."
    state = {"ari_connected": True, "database_ok": True, "degraded": [reason],
             "providers": {"openai/stt": {"state": "open"}}}
    server = MetricsServer(Metrics(), port=0, health=lambda: dict(state))
    await server.start()
    try:
        async with aiohttp.ClientSession() as http:
            async with http.get(f"{server.url}/healthz") as r:
                body = await r.json()
                assert r.status == 200  # still answering calls with fallbacks: not dead
                assert body["status"] == "degraded" and body["reasons"] == [reason]
                assert body["providers"]["openai/stt"]["state"] == "open" and "degraded" not in body
            state["ari_connected"] = False
            async with http.get(f"{server.url}/healthz") as r:
                body = await r.json()
                assert r.status == 503 and body["status"] == "unhealthy"
                assert body["reasons"] == ["ari_disconnected", reason]
    finally:
        await server.stop()


def test_the_page_in_parts_is_the_page_and_no_part_formats_more_than_its_share():
    m = Metrics()
    m.set_rtp_source(lambda: {"packets_in": 7, "packets_out": 9})
    for stage in LATENCY_STAGES:  # every child of the biggest family: 11 stages x 17 buckets and more
        m.observe_stage(stage, 0.02)
    m.calls_active.labels(route="test").inc()
    parts = list(m.render_parts())
    assert b"".join(parts) == m.render()  # the same page, every family's HELP/TYPE once, `_created` gauges too
    samples = [sum(1 for line in p.splitlines() if line and not line.startswith(b"#")) for p in parts]
    assert max(samples) <= SAMPLES_PER_PART < sum(samples)  # split, and no part bigger than its share


async def test_a_scrape_yields_to_the_event_loop_between_parts():
    """A page formatted at once held the loop (and every call's audio) 5-10 ms per scrape: the server formats it
    a part per loop step, so the loop's other work (the pacer's tick) runs in between."""
    m = Metrics()
    for stage in LATENCY_STAGES:
        m.observe_stage(stage, 0.02)
    steps = 0
    seen: list[int] = []  # the loop's step count as each part was formatted
    parts = m.render_parts

    def noted() -> Iterator[bytes]:
        for part in parts():
            seen.append(steps)
            yield part

    m.render_parts = noted  # type: ignore[method-assign]
    server = MetricsServer(m, port=0)
    await server.start()
    stop = asyncio.Event()

    async def ticker() -> None:
        nonlocal steps
        while not stop.is_set():
            steps += 1
            await asyncio.sleep(0)

    task = asyncio.create_task(ticker())
    try:
        async with aiohttp.ClientSession() as http, http.get(f"{server.url}/metrics") as r:
            assert await r.read() == m.render()
        assert len(seen) > 2 and all(b > a for a, b in pairwise(seen))  # the loop ran between every two parts
    finally:
        stop.set()
        await task
        await server.stop()
