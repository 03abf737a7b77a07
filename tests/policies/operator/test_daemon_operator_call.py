"""End to end: a full operator call through the simulated PBX and the real daemon (issue 4's "done when"):
greeting heard, language and region chosen, a question answered from the sample KB with a citation, the goodbye
heard in full and only then (after the playout grace) exactly one hang-up; the record is complete.
"""

from __future__ import annotations

import pytest

from ai_operator.daemon.turn_log import TURN_STAGES
from policies.operator.catalog import GREETING
from tests.support.daemon import FRAME_S, Caller, hangup_requests, runs, stage_for, synthesized_frames

TIMING_KEYS = ("eou_ms", "stt_ms", "policy_ms", "tts_first_chunk_ms", "first_rtp_ms", "bridge_ms")
GRACE_MS = 400


@pytest.mark.slow
async def test_full_operator_call_greeting_kb_answer_goodbye_then_hangup(daemon_base) -> None:
    async with stage_for(daemon_base, HANGUP_GRACE_MS=GRACE_MS) as stage:
        caller = await Caller.place(stage)
        tts = stage.svc.tts_for(stage.settings.routes["test"])
        await caller.quiet(min_turns=1)
        # The greeting was heard in full before the caller said anything.
        greeting_frames = await synthesized_frames(tts, GREETING, "ru")
        assert len(caller.sim.received) == greeting_frames

        script = [("По-русски, пожалуйста.", "REGION_SELECTION"), ("Я живу в Караганде.", "READY_TO_HELP"),
                  ("Как оплатить домашний интернет?", None)]
        for line, _ in script:
            turns = caller.turns()
            await caller.say(line)
            await caller.quiet(min_turns=turns + 1)

        turns = caller.turns()
        bye_started = await caller.say("Спасибо, до свидания.")
        await caller.sim.wait_hangup(timeout=20)
        record = await caller.record()

    # Goodbye heard in full: every frame of its synthesized audio reached the caller, then the hang-up.
    goodbye = record["turns"][-1]
    assert goodbye["caller_text"] == "Спасибо, до свидания."
    assert goodbye["fields"]["hang_up"] is True
    expected = await synthesized_frames(tts, goodbye["bot_text"], "ru")
    after = caller.frames_between(bye_started)
    assert len(after) == expected, f"goodbye: {len(after)} frames heard of {expected}"
    assert len(runs(after)) == 1, "the goodbye was interrupted"
    last_frame = after[-1]
    assert caller.ended_at is not None
    assert caller.sim.hung_up_by == "app"
    # The hang-up came after the last goodbye frame had played out plus the grace, and only once.
    assert caller.ended_at - (last_frame + FRAME_S) >= GRACE_MS / 1000 - 0.03
    assert len(hangup_requests(stage, caller.sim.channel_id)) == 1

    assert record["ended_by"] == "bot"
    assert record["disposition"] == "completed"
    assert turns + 1 == len(record["turns"])
    for turn in record["turns"]:
        assert turn["state"], turn
        for key in ("state", "language", "region_code"):
            assert key in turn["fields"], (key, turn)
        assert isinstance(turn["tool_calls"], list)
    by_text = {t["caller_text"]: t for t in record["turns"]}
    assert by_text["По-русски, пожалуйста."]["fields"]["language"] == "ru"
    assert any(c["name"] == "set_language" and c["allowed"] for c in by_text["По-русски, пожалуйста."]["tool_calls"])
    assert by_text["Я живу в Караганде."]["fields"]["region_code"] == "KZ-35"
    answer = by_text["Как оплатить домашний интернет?"]
    assert any(c["name"] == "search_knowledge_base" and c["allowed"] for c in answer["tool_calls"])
    citations = answer["fields"]["citations"]
    assert citations and citations[0]["id"] and citations[0]["source"].startswith("http")
    assert citations[0]["title"] in answer["bot_text"]
    for turn in record["turns"][1:]:  # every caller turn carries the whole latency breakdown
        missing = [k for k in TIMING_KEYS if k not in turn["timings"]]
        assert not missing, (turn["caller_text"], missing, turn["timings"])
        assert turn["timings"]["first_rtp_ms"] >= turn["timings"]["eou_ms"] > 0
        stages = [turn["timings"].get(k, 0.0) for k in TURN_STAGES]  # they add up to the caller's wait
        assert sum(stages) == pytest.approx(turn["timings"]["first_rtp_ms"], abs=0.01)
        assert turn["timings"]["playout_ms"] >= 0
