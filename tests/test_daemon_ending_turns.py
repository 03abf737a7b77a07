"""A goodbye or a handoff with nothing left to say is decided at the short pause like any complete turn
(`daemon/early_turn.py`; the operator's `completeness.py`), from the caller's side on the simulated PBX: real RTP,
the caller's voice from espeak-ng, webrtcvad. Its line is held for `VAD_EARLY_REPLY_MS` of silence, not for the
end silence; the caller hears it in full, and only then does the bot hang up or hand the caller over; a caller
who goes on before the goodbye is heard gets one answer to the whole line, and no hang-up.

The end silence is long here (2 s): a turn ended before it, its reply held for 320 ms, is an ordering the normal
rule cannot produce on any machine (read from the turn's record, not from a clock).
"""

from __future__ import annotations

from typing import Any

import pytest

from ai_operator.daemon.services import DaemonOverrides
from policies.operator.catalog import say
from tests.support.daemon import Caller, bot_tts, hangup_requests, stage_for, synthesized_frames
from tests.test_daemon_early_turn import GatedTTS
from tests.test_daemon_speculative_turn import go_on_while_held, ready_to_help, summary_turns

END_SILENCE_MS = 2000
REPLY_MS = 320
EARLY: dict[str, Any] = {"VAD_END_SILENCE_MS": END_SILENCE_MS, "VAD_EARLY_STT_MS": 240, "VAD_EARLY_REPLY_MS": REPLY_MS}
EARLY_TURNS = "ai_operator_early_turns_total"


def decided_at_the_pause(turn: dict) -> bool:
    """The turn ended before the end silence, its reply held for the early reply's silence (not the end's)."""
    return turn["timings"]["eou_ms"] < END_SILENCE_MS and turn["timings"]["release_ms"] == REPLY_MS


async def call_ending_with(daemon_base: Any, text: str, line: str) -> tuple[Caller, dict[str, Any], list[float],
                                                                          list[Any]]:
    """A call that says `text` once the bot is ready to help, and ends there. Returns the caller, the record, the
    frames heard after `text` began (all of them `line`'s: checked) and the bot's hang-up requests."""
    async with stage_for(daemon_base, **EARLY) as stage:
        caller = await Caller.place(stage)
        await ready_to_help(caller)
        said = await caller.say(text)
        await caller.sim.wait_hangup(timeout=30)
        record = await caller.record()
        frames = await synthesized_frames(stage.svc.tts_for(stage.settings.routes["test"]), line, "ru")
        hung_up = hangup_requests(stage, caller.sim.channel_id)
    heard = caller.frames_between(said)
    assert len(heard) == frames  # the whole line ...
    assert caller.ended_at is not None and caller.ended_at >= heard[-1]  # ... then the call left the bot
    return caller, record, heard, hung_up


@pytest.mark.slow
async def test_a_goodbye_ending_on_its_farewell_is_decided_at_the_pause_heard_in_full_then_hung_up(daemon_base) -> None:
    line = say("closing", "ru")
    _caller, record, _heard, hung_up = await call_ending_with(daemon_base, "всё понятно спасибо до свидания", line)
    goodbye = record["turns"][-1]
    assert goodbye["caller_text"] == "всё понятно спасибо до свидания" and goodbye["bot_text"] == line
    assert goodbye["fields"]["hang_up"] and decided_at_the_pause(goodbye), goodbye["timings"]
    assert record["summary"]["early_turns"] == {"decided": 3, "withdrawn": 0}  # language, region, goodbye
    assert "speculative_turns" not in record["summary"]
    assert hung_up and record["ended_by"] == "bot" and record["disposition"] == "completed"  # the bot hung up


@pytest.mark.slow
async def test_a_request_for_a_person_is_decided_at_the_pause_and_the_transfer_follows_its_whole_line(daemon_base
                                                                                                     ) -> None:
    line = say("handoff", "ru")
    caller, record, _heard, hung_up = await call_ending_with(daemon_base, "соедините меня с оператором пожалуйста",
                                                             line)
    handoff = record["turns"][-1]
    assert handoff["bot_text"] == line and handoff["fields"]["transfer"] and decided_at_the_pause(handoff)
    assert caller.sim.state == "dialplan" and record["disposition"] == "handoff" and hung_up == []  # handed over


@pytest.mark.slow
async def test_a_goodbye_decided_at_the_pause_is_withdrawn_when_the_caller_goes_on_and_never_hangs_up(daemon_base
                                                                                                     ) -> None:
    tts = GatedTTS(bot_tts(daemon_base.state_dir), say("closing", "ru"))
    async with stage_for(daemon_base, overrides=DaemonOverrides(tts=tts), **EARLY) as stage:
        caller = await Caller.place(stage)
        await ready_to_help(caller)
        # the goodbye, decided at the pause as a complete turn, waits to be said while the caller goes on
        n, finished = await go_on_while_held(stage, caller, tts, "спасибо до свидания",
                                             "ой нет подождите сколько стоит роуминг", counted=EARLY_TURNS)
        await caller.quiet(min_turns=4)
        hung_up_by_bot = hangup_requests(stage, caller.sim.channel_id)
        await caller.sim.hangup()
        record = await caller.record()
    assert hung_up_by_bot == [] and caller.frames_between(caller.speech_frames[n], finished) == []
    assert list(summary_turns(record))[-1] == "спасибо до свидания ой нет подождите сколько стоит роуминг"
    last = record["turns"][-1]
    assert not last["fields"]["hang_up"] and last["state"] == "READY_TO_HELP" and last["bot_text"]  # it goes on
    assert record["summary"]["early_turns"]["withdrawn"] == 1
