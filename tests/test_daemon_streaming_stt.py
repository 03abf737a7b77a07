"""Streaming STT in a whole call (`STT_PROVIDER=openai_realtime`, `daemon/live_stt.py`), from the caller's side:
the simulated PBX, real RTP, the caller's voice from espeak-ng, webrtcvad, and real websockets to the local
server's Realtime transcription endpoint. The caller's audio reaches the provider while they speak (one stream
per utterance, no batch upload) over ONE websocket per call, opened when the media starts and closed at hang-up;
a short answer is decided at the pause on the partial transcript; a provider failing mid-stream is what a failing
batch STT is to the caller ("sorry?", then the goodbye) and to /healthz; a socket broken mid-call is made again
for the next utterance.
"""

from __future__ import annotations

from typing import Any

import pytest

from ai_operator.sim.openai_server import FakeOpenAI
from tests.support.daemon import Caller, metric
from tests.support.wait import eventually
from tests.test_daemon_provider_failures import (
    HEARD_S,
    get_json,
    provider_stage,
    stt_down_call,
    transcription_requests,
    voiced_s,
)

STREAMING: dict[str, Any] = {"STT_PROVIDER": "openai_realtime"}
EARLY: dict[str, Any] = {"VAD_END_SILENCE_MS": 2000, "VAD_EARLY_STT_MS": 240}  # an end silence no early answer can be mistaken for


def sessions(fake: FakeOpenAI) -> list[dict[str, Any]]:
    return [r for r in fake.requests if r["path"] == "/v1/realtime"]


def utterances(session: dict[str, Any]) -> list[list[tuple[str, float]]]:
    """The socket's events per utterance (each starts with `input_audio_buffer.clear`), those it committed."""
    cut = [i for i, (kind, _) in enumerate(session["events"]) if kind == "input_audio_buffer.clear"]
    parts = [session["events"][a:b] for a, b in zip(cut, [*cut[1:], len(session["events"])], strict=True)]
    return [p for p in parts if any(kind == "input_audio_buffer.commit" for kind, _ in p)]


def first_append_at(events: list[tuple[str, float]]) -> float:
    return next(at for kind, at in events if kind == "input_audio_buffer.append")


async def all_closed(fake: FakeOpenAI) -> None:
    await eventually(lambda: all("closed" in s for s in sessions(fake)), what="every websocket of the call closed")


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
        await all_closed(fake)  # nothing of the call is left open after its hang-up
        _, health = await get_json(stage, "/healthz")
    turns = [t for t in record["turns"] if t["caller_text"]]
    assert [t["caller_text"] for t in turns] == ["По-русски, пожалуйста.", "Я живу в Караганде."]
    assert turns[0]["state"] == "REGION_SELECTION" and turns[1]["fields"]["region_code"] == "KZ-35"
    assert transcription_requests(fake) == 0  # no batch upload at all
    (socket,) = sessions(fake)  # one websocket for the whole call
    assert socket["time"] < spoken[0][0]  # made when the media started, not at the caller's first word
    assert socket["events"][0][0] == "transcription_session.update"
    assert len(utterances(socket)) == 2  # one stream per utterance, on it
    for events, (start, last_frame) in zip(utterances(socket), spoken, strict=True):
        assert start <= first_append_at(events) < last_frame  # fed while the caller was still speaking
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
    assert len(sessions(fake)) == 1


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


async def test_a_websocket_broken_mid_call_is_made_again_for_the_next_utterance(daemon_base) -> None:
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, **STREAMING) as stage:
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        fake.realtime_fault = "close"  # the call's socket is closed at its next commit
        first = await caller.say("По-русски, пожалуйста.")
        await caller.quiet(min_turns=2)
        fake.realtime_fault = None
        second = await caller.say("По-русски, пожалуйста.")
        await caller.quiet(min_turns=3)
        await caller.sim.hangup()
        record = await caller.record()
        await all_closed(fake)
        _, health = await get_json(stage, "/healthz")
    assert voiced_s(caller, first, second) > HEARD_S  # "Извините, не расслышал...": the failure line, not silence
    assert [t["caller_text"] for t in record["turns"]][:3] == [None, "[not-heard]", "По-русски, пожалуйста."]
    assert record["turns"][2]["state"] == "REGION_SELECTION"
    assert "connection closed (1011)" in record["summary"]["provider_failures"]["stt"]
    broken, again = sessions(fake)  # the broken socket, then one made again for the next utterance
    assert len(utterances(broken)) == len(utterances(again)) == 1
    assert health["providers"]["openai_realtime/stt"]["state"] == "up"
    assert transcription_requests(fake) == 0
