"""Streaming STT in a whole call (`STT_PROVIDER=openai_realtime`, `daemon/live_stt.py`), from the caller's side:
the simulated PBX, real RTP, the caller's voice from espeak-ng, webrtcvad, and real websockets to the local
server's Realtime transcription endpoint. The caller's audio reaches the provider while they speak (one stream
per utterance, no batch upload); a short answer is decided at the pause on the partial transcript; a provider
failing mid-stream is what a failing batch STT is to the caller ("sorry?", then the goodbye) and to /healthz.
"""

from __future__ import annotations

from typing import Any

import pytest

from ai_operator.sim.openai_server import FakeOpenAI
from tests.support.daemon import Caller, metric
from tests.support.wait import eventually
from tests.test_daemon_provider_failures import (
    get_json,
    provider_stage,
    stt_down_call,
    transcription_requests,
)

STREAMING: dict[str, Any] = {"STT_PROVIDER": "openai_realtime"}
EARLY: dict[str, Any] = {"VAD_END_SILENCE_MS": 2000, "VAD_EARLY_STT_MS": 240}  # an end silence no early answer can be mistaken for


def sessions(fake: FakeOpenAI) -> list[dict[str, Any]]:
    return [r for r in fake.requests if r["path"] == "/v1/realtime"]


def first_append_at(session: dict[str, Any]) -> float:
    return next(at for kind, at in session["events"] if kind == "input_audio_buffer.append")


async def test_a_call_is_heard_through_the_realtime_stream_fed_while_the_caller_speaks(daemon_base) -> None:
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, **STREAMING) as stage:
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        spoken: list[tuple[float, float]] = []
        for line, count in (("По-русски, пожалуйста.", 2), ("Я живу в Караганде.", 3)):
            start = await caller.say(line)
            spoken.append((start, caller.speech_frames[-1]))
            await caller.quiet(min_turns=count)
            assert caller.frames_between(start)  # the caller heard the answer
        await caller.sim.hangup()
        record = await caller.record()
        _, health = await get_json(stage, "/healthz")
    turns = [t for t in record["turns"] if t["caller_text"]]
    assert [t["caller_text"] for t in turns] == ["По-русски, пожалуйста.", "Я живу в Караганде."]
    assert turns[0]["state"] == "REGION_SELECTION" and turns[1]["fields"]["region_code"] == "KZ-35"
    assert transcription_requests(fake) == 0  # no batch upload at all
    streams = [s for s in sessions(fake) if any(k == "input_audio_buffer.commit" for k, _ in s.get("events", []))]
    assert len(streams) == 2  # one stream per utterance
    for session, (start, last_frame) in zip(streams, spoken, strict=True):
        assert start <= first_append_at(session) < last_frame  # fed while the caller was still speaking
        assert session["events"][0][0] == "transcription_session.update"
    assert health["providers"]["openai_realtime/stt"]["state"] == "up"


@pytest.mark.slow
async def test_a_short_answer_is_decided_at_the_pause_on_the_partial_transcript(daemon_base) -> None:
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, **STREAMING, **EARLY) as stage:
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        start = await caller.say("русский")
        await eventually(lambda: caller.turns() >= 2, what="the answer to 'русский'")
        await eventually(lambda: caller.frames_between(start), what="the reply heard")
        reply_after_s = caller.frames_between(start)[0] - caller.speech_frames[-1]
        await caller.quiet(min_turns=2)
        await caller.sim.hangup()
        record = await caller.record()
        decided = metric(stage, "ai_operator_early_turns_total", {"outcome": "decided"})
    turn = next(t for t in record["turns"] if t["caller_text"])
    assert turn["caller_text"] == "русский" and turn["state"] == "REGION_SELECTION"
    assert turn["timings"]["eou_ms"] < EARLY["VAD_END_SILENCE_MS"]  # ended at the pause, not by the end silence
    assert reply_after_s < EARLY["VAD_END_SILENCE_MS"] / 1000
    assert decided == 1.0
    assert record["summary"]["early_stt"] == {"partial": 1}  # decided on the partial: no second STT request
    assert transcription_requests(fake) == 0
    assert len([s for s in sessions(fake) if "events" in s]) == 1


@pytest.mark.parametrize("fault", ["error", "close"])
async def test_a_stream_failing_mid_utterance_is_not_silence(daemon_base, fault: str) -> None:
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, **STREAMING) as stage:
        assert (await get_json(stage, "/healthz"))[1]["status"] == "ok"
        fake.realtime_fault = fault  # every stream fails at its first commit, after its audio and partials
        _, record = await stt_down_call(stage)  # "sorry?" twice, then the goodbye: as with a failing batch STT
        status, health = await get_json(stage, "/healthz")
    said = {"error": "Injected failure", "close": "connection closed"}[fault]
    assert said in record["summary"]["provider_failures"]["stt"]
    assert status == 200 and health["status"] == "degraded"
    stt = health["providers"]["openai_realtime/stt"]
    assert stt["state"] == "open" and said in stt["reason"]
    assert transcription_requests(fake) == 0
