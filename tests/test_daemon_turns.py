"""End to end: barge-in (and a cough that must not cut the bot), idle re-prompts then give-up, STT failure and
STT timeout (the hearing-problem line, the call goes on).
"""

from __future__ import annotations

import pytest

from policies.operator.catalog import say
from tests.support.daemon import Caller, caller_pcm, runs, stage_for
from tests.support.daemon import trim_leading_silence as trim
from tests.support.wait import eventually

BARGE_IN_MS = 200
FLUSH_BUDGET_MS = 100
COUGH_FRAMES = 5  # 100 ms of voice: under the barge-in threshold


async def _wait_frames(caller: Caller, since: float, n: int) -> None:
    await eventually(lambda: len(caller.frames_between(since)) >= n, what=f"{n} frames of the bot's answer")


async def _ready_to_help(caller: Caller) -> None:
    caller.sim.send_dtmf("1")
    await caller.quiet(min_turns=2)
    await caller.say("Я живу в Караганде.")
    await caller.quiet(min_turns=3)


@pytest.mark.slow
async def test_barge_in_flushes_within_budget_and_a_cough_does_not(daemon_base) -> None:
    async with stage_for(daemon_base, BARGE_IN_MS=BARGE_IN_MS) as stage:
        caller = await Caller.place(stage)
        await _ready_to_help(caller)
        asked = await caller.say("Как оплатить домашний интернет?")
        await _wait_frames(caller, asked, 25)  # the long answer has been playing for 0.5 s

        cough = trim(await caller_pcm("Аааа", "ru"))[: COUGH_FRAMES * 160]
        n = len(caller.speech_frames)
        caller.sim.say(cough)
        await caller.sim.wait_said(timeout=5)
        cough_at = caller.speech_frames[n]
        await eventually(lambda: caller.frames_between(cough_at + 0.5), what="the answer still playing 0.5 s later")
        answer = caller.frames_between(asked)
        assert len(runs(answer)) == 1 and answer[-1] > cough_at + 0.5, "a 100 ms cough cut the bot"

        turns = caller.turns()
        started = await caller.say("Как подключить телевидение?")
        await caller.quiet(min_turns=turns + 1)
        await caller.sim.hangup()
        record = await caller.record()

    spurts = runs(caller.frames_between(asked))
    assert len(spurts) >= 2, "the answer was never cut"
    last_bot_frame = spurts[0][-1]
    assert last_bot_frame > started, "the answer had ended before the caller spoke"
    flush_ms = (last_bot_frame - (started + BARGE_IN_MS / 1000)) * 1000
    print(f"barge-in: last bot frame {flush_ms:.1f} ms after speech start + {BARGE_IN_MS} ms")
    assert flush_ms < FLUSH_BUDGET_MS
    assert flush_ms > -FLUSH_BUDGET_MS, "cut long before the threshold: not a sustained-speech detector"
    texts = [t["caller_text"] for t in record["turns"]]
    assert texts[-1] == "Как подключить телевидение?"  # the barge-in utterance was handled
    assert "Аааа" not in texts and len(texts) == 5
    assert record["turns"][-1]["fields"].get("citations")


async def test_idle_reprompts_then_gives_up_and_hangs_up(daemon_base) -> None:
    idle_s = 1.0
    async with stage_for(daemon_base, IDLE_TIMEOUT_S=idle_s) as stage:
        caller = await Caller.place(stage)
        caller.sim.send_dtmf("1")
        await caller.sim.wait_hangup(timeout=30)
        record = await caller.record()
    texts = [t["caller_text"] for t in record["turns"]]
    assert texts == [None, "[dtmf 1]", "[silence]", "[silence]", "[silence]"]
    assert record["turns"][2]["bot_text"] == say("region_prompt", "ru")
    assert record["turns"][-1]["bot_text"] == say("give_up", "ru")
    assert record["ended_by"] == "bot" and record["disposition"] == "no_input"
    assert caller.sim.hung_up_by == "app"
    spurts = runs([t for t, _ in caller.sim.received])
    assert len(spurts) >= 4
    for before, after in zip(spurts[-4:], spurts[-3:], strict=False):  # each re-prompt waited the idle timeout
        assert after[0] - before[-1] >= idle_s - 0.1
    assert caller.ended_at is not None and caller.ended_at > spurts[-1][-1]


@pytest.mark.slow
async def test_stt_failure_and_timeout_say_the_hearing_problem_line_and_the_call_goes_on(daemon_base) -> None:
    timeout_s = 0.4
    async with stage_for(daemon_base, STT_TIMEOUT_S=timeout_s) as stage:
        fake, stt = stage.fake_openai, stage.svc.stt_for(stage.settings.route("test"))
        caller = await Caller.place(stage)
        caller.sim.send_dtmf("1")
        await caller.quiet(min_turns=2)
        # the STT endpoint fails every attempt of one utterance (the connection warmed at the caller's first words,
        # a free GET /models, is not one of them)
        fake.faults.set("500", "transcriptions", count=stt.retries + 1)
        await caller.say("Я живу в Караганде.")
        await caller.quiet(min_turns=3)
        fake.delay_s = 1.0  # then it is too slow for STT_TIMEOUT_S
        await caller.say("Я живу в Караганде.")
        await caller.quiet(min_turns=4)
        fake.delay_s = 0.0
        await eventually(lambda: fake.in_flight == 0, what="the timed-out requests answered (and ignored)")
        await caller.say("Я живу в Караганде.")
        await caller.quiet(min_turns=5)
        await caller.sim.hangup()
        record = await caller.record()
        errors = stage.svc.metrics.registry.get_sample_value("ai_operator_adapter_errors_total", {"adapter": "stt"})
    failed, slow, retried = record["turns"][2:5]
    for turn in (failed, slow):
        assert turn["caller_text"] == "[not-heard]"
        assert turn["bot_text"] == say("not_heard", "ru")
        assert turn["state"] == "REGION_SELECTION"
    # every attempt timed out; the first began with the speculative request at the short pause, before the end of
    # the utterance (whence stt_ms counts): VAD_END_SILENCE_MS - VAD_EARLY_STT_MS earlier
    vad = stage.settings.vad
    assert slow["timings"]["stt_ms"] >= timeout_s * (stt.retries + 1) * 1000 - (vad.end_silence_ms - vad.early_stt_ms)
    assert retried["caller_text"] == "Я живу в Караганде."
    assert retried["fields"]["region_code"] == "KZ-35"
    assert record["ended_by"] == "caller"
    assert errors == 2
