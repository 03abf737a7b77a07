"""End to end: every log line about a call carries its call_id and route (JSON log lines of one real call,
captured at debug level, and of a rejected call)."""

from __future__ import annotations

import io
import json

import pytest
import structlog

from ai_operator.logs import configure_logging
from tests.support.daemon import Caller, stage_for

CALL_COMPONENTS = ("call", "conversation", "speaker")


async def test_every_log_line_about_a_call_carries_call_id_and_route(daemon_base) -> None:
    saved = structlog.get_config()
    buf = io.StringIO()
    configure_logging("debug", "json", stream=buf)
    try:
        async with stage_for(daemon_base) as stage:
            caller = await Caller.place(stage)
            caller.sim.send_dtmf("1")
            await caller.quiet(min_turns=2)
            await caller.say("Я живу в Караганде.")
            await caller.quiet(min_turns=3)
            await caller.sim.hangup()
            await caller.record()
            rejected = await stage.pbx.place_call("nosuch")
            await rejected.wait_hangup(timeout=5)
    finally:
        structlog.configure(**saved)
    lines = [json.loads(line) for line in buf.getvalue().splitlines() if line.strip()]
    cid = caller.sim.channel_id
    about_call = [ln for ln in lines if cid in json.dumps(ln, ensure_ascii=False) or ln.get("component") in CALL_COMPONENTS]
    events = {ln["event"] for ln in about_call}
    assert {"call_started", "call_media_ready", "bot_says", "caller_said", "call_ended"} <= events
    assert "stt_done" in events  # the speech adapter's line, logged inside the call, is tied to it too
    bad = [ln for ln in about_call if ln.get("call_id") != cid or ln.get("route") != "test"]
    assert not bad, bad
    rejection = [ln for ln in lines if ln.get("event") == "call_rejected"]
    assert rejection and rejection[0]["call_id"] == rejected.channel_id and rejection[0]["route"] == "nosuch"


def test_registered_secrets_are_masked_in_values_and_tracebacks() -> None:
    from ai_operator import logs

    saved = structlog.get_config()
    buf = io.StringIO()
    secret = "tr4ceback-s3cret"
    configure_logging("info", "json", stream=buf)
    logs.register_secret(secret)
    try:
        log = logs.get_logger("test")
        log.error("ari_failed", error=f"401 for password {secret}")
        try:
            raise ValueError(f"dsn postgresql://u:{secret}@h/db refused")
        except ValueError:
            log.exception("database_unavailable")
    finally:
        structlog.configure(**saved)
        logs._SECRETS.discard(secret)
    lines = [json.loads(line) for line in buf.getvalue().splitlines()]
    assert [ln["event"] for ln in lines] == ["ari_failed", "database_unavailable"]
    assert lines[0]["error"] == "401 for password ***"
    assert "ValueError: dsn postgresql://u:***@h/db refused" in lines[1]["exception"]
    assert secret not in buf.getvalue()


CALLER_LINES = ("Я живу в Караганде.", "Сколько стоит тариф за девять тысяч девятьсот девяносто тенге?")


@pytest.mark.parametrize("log_transcripts", [False, True], ids=["default", "LOG_TRANSCRIPTS=true"])
async def test_caller_transcripts_stay_out_of_the_info_log_unless_allowed(daemon_base, log_transcripts) -> None:
    saved = structlog.get_config()
    buf = io.StringIO()
    configure_logging("info", "json", stream=buf)
    try:
        async with stage_for(daemon_base, LOG_TRANSCRIPTS=log_transcripts) as stage:
            caller = await Caller.place(stage)
            caller.sim.send_dtmf("1")
            await caller.quiet(min_turns=2)
            for n, line in enumerate(CALLER_LINES, start=3):
                await caller.say(line)
                await caller.quiet(min_turns=n)
            await caller.sim.hangup()
            record = await caller.record()
    finally:
        structlog.configure(**saved)
    said = [t["caller_text"] for t in record["turns"]]
    assert all(line in said for line in CALLER_LINES), said  # the call record keeps them: that is its job
    text = buf.getvalue()
    lines = [json.loads(line) for line in text.splitlines() if line.strip()]
    assert any(ln["event"] == "bot_says" for ln in lines)  # bot lines are not personal data
    if log_transcripts:
        heard = [ln["text"] for ln in lines if ln["event"] == "caller_said" and not ln["text"].startswith("[")]
        assert heard == list(CALLER_LINES)  # (events such as "[dtmf 1]" are logged too)
    else:
        for line in CALLER_LINES:
            assert line not in text and line.rstrip(".?") not in text
        assert not [ln for ln in lines if ln["event"] == "caller_said"]
