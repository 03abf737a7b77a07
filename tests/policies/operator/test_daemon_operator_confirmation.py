"""End to end through the simulated PBX and the real daemon: a question asked in words the knowledge base does
not use reaches the caller as "do you mean <article>?" (heard in full, nothing of the article read, no citation
in the record); the caller's "yes" is answered with that article and its citation, without a second search."""

from __future__ import annotations

import pytest

from tests.support.daemon import Caller, runs, stage_for, synthesized_frames

NEAR_QUESTION = "слушайте после наурыза у нас весь дом трое суток без связи сидел я что полностью абонплату платить должна"


@pytest.mark.slow
async def test_a_near_miss_is_asked_about_and_answered_after_yes(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        tts = stage.svc.tts_for(stage.settings.routes["test"])
        await caller.quiet(min_turns=1)
        for line in ("по-русски", "я из актобе"):
            await caller.turn(line)
        asked_at = await caller.turn(NEAR_QUESTION)
        yes_at = await caller.turn("да именно")
        await caller.say("спасибо до свидания")
        record = await caller.record()

    asked, answered = record["turns"][-3], record["turns"][-2]
    assert asked["caller_text"] == NEAR_QUESTION and asked["fields"]["answer"] == "confirm", asked
    assert asked["fields"]["best"] == "ru-outage-compensation" and "citations" not in asked["fields"]
    assert asked["bot_text"].startswith("Уточню") and "«" in asked["bot_text"]
    heard = caller.frames_between(asked_at, yes_at)
    expected = await synthesized_frames(tts, asked["bot_text"], "ru")
    assert len(heard) == expected and len(runs(heard)) == 1, f"the question: {len(heard)} frames heard of {expected}"
    assert answered["caller_text"] == "да именно" and answered["fields"]["answer"] == "kb", answered
    assert answered["fields"]["confirmed"] is True
    assert [c["id"] for c in answered["fields"]["citations"]] == ["ru-outage-compensation"]
    assert not answered["timings"].get("kb_ms")  # read from the search already made
