"""A turn decided on the streaming partial transcript (`daemon/early_turn.py`, `VAD_EARLY_PARTIAL`), from the
caller's side on the simulated PBX: real RTP, the caller's voice from espeak-ng, webrtcvad, real websockets to
the local server's Realtime transcription endpoint, whose final transcript comes half a second after each commit.

At the pause the turn is decided at once on what the stream has heard so far, and its reply is held until the
final transcript says the same words: then it is heard, and recorded with the final's words. When the final says
something else, the decision made on the partial is withdrawn before anything of it is heard and the final is
decided instead: the caller hears one answer, the answer to what they said.
"""

from __future__ import annotations

from typing import Any

import pytest

from ai_operator.sim.latency_profiles import LatencyProfile, ProviderLatency
from ai_operator.sim.openai_server import FakeOpenAI
from tests.support.daemon import Caller, metric, runs
from tests.test_daemon_provider_failures import provider_stage

FINAL_S = 0.5  # the final transcript comes this long after the commit
LATE_FINAL = ProviderLatency(LatencyProfile("late-final", stream_final_s=(FINAL_S, FINAL_S)))
EARLY: dict[str, Any] = {"STT_PROVIDER": "openai_realtime", "VAD_END_SILENCE_MS": 2000, "VAD_EARLY_STT_MS": 240}
ONE_REPLY_GAP_S = 0.6  # a pause this long inside what the caller heard would be two replies


def pause_commit(fake: FakeOpenAI, after: float) -> float:
    """When the call's stream committed the utterance said after `after` at its pause (its first commit)."""
    (session,) = [r for r in fake.requests if r["path"] == "/v1/realtime"]
    return next(at for kind, at in session["events"] if kind == "input_audio_buffer.commit" and at > after)


async def say_and_hear(caller: Caller, line: str) -> tuple[float, list[float]]:
    """The caller says `line` once the greeting is over; when it started, and the frames it heard after."""
    await caller.quiet(min_turns=1)
    start = await caller.say(line)
    await caller.quiet(min_turns=2)
    return start, caller.frames_between(start)


@pytest.mark.slow
async def test_a_partial_the_final_transcript_confirms_is_answered_and_recorded_as_the_final_says(
        daemon_base) -> None:
    async with FakeOpenAI(latency=LATE_FINAL) as fake, provider_stage(daemon_base, fake, **EARLY) as stage:
        fake.realtime_partial = lambda text: text.lower().rstrip(".")  # the final adds case and punctuation
        caller = await Caller.place(stage)
        start, heard = await say_and_hear(caller, "Русский.")
        committed = pause_commit(fake, start)
        await caller.sim.hangup()
        record = await caller.record()
        redone = metric(stage, "ai_operator_early_stt_total", {"outcome": "partial_redone"})
    (turn,) = [t for t in record["turns"] if t["caller_text"]]
    assert turn["caller_text"] == "Русский." and turn["state"] == "REGION_SELECTION"
    assert record["summary"]["early_stt"] == {"partial": 1} and redone == 0
    assert turn["timings"]["stt_ms"] == 0 and turn["timings"]["stt_final_ms"] > 0  # decided before the final
    assert heard and heard[0] >= committed + FINAL_S  # but not heard before the final had said the same
    assert len(runs(heard, gap_s=ONE_REPLY_GAP_S)) == 1


@pytest.mark.slow
async def test_a_partial_the_final_transcript_revises_is_withdrawn_and_the_caller_hears_the_answer_to_the_final(
        daemon_base) -> None:
    async with FakeOpenAI(latency=LATE_FINAL) as fake, provider_stage(daemon_base, fake, **EARLY) as stage:
        fake.realtime_partial = lambda text: "қазақша" if text == "русский" else text  # heard wrong until the end
        caller = await Caller.place(stage)
        start, heard = await say_and_hear(caller, "русский")
        committed = pause_commit(fake, start)
        await caller.sim.hangup()
        record = await caller.record()
        withdrawn = metric(stage, "ai_operator_early_turns_total", {"outcome": "withdrawn"})
        wasted = sum(metric(stage, "ai_operator_early_turn_requests_wasted_total", {"request": r})
                     for r in ("kb", "model"))
    turns = [t for t in record["turns"] if t["caller_text"]]
    assert [t["caller_text"] for t in turns] == ["русский"]  # one turn: the Kazakh one was never recorded
    assert turns[0]["state"] == "REGION_SELECTION" and turns[0]["fields"]["language"] == "ru"
    assert record["summary"]["early_stt"] == {"partial": 1, "partial_redone": 1}
    assert record["summary"]["early_turns"] == {"decided": 2, "withdrawn": 1} and withdrawn == 1
    assert wasted == 0  # a language choice asks no search or model
    assert heard and heard[0] >= committed + FINAL_S  # nothing of the Kazakh reply before the final came
    assert len(runs(heard, gap_s=ONE_REPLY_GAP_S)) == 1  # and then one answer, not two
