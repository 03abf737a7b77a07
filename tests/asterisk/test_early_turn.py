"""The policy ends the turn, through a real Asterisk 22 and the real daemon process (`daemon/early_turn.py`), with
the withdrawal made certain: the caller goes on only once the daemon has decided at the pause (its log says so),
and the held reply waits far longer than that (`VAD_EARLY_REPLY_MS` 2000, `VAD_END_SILENCE_MS` 3000 here, so a
loaded box cannot make the caller's pause outlast the hold). `test_pause_mid_sentence.py` is the same with the
shipped settings and a fixed 300 ms pause.

1. A caller who says "русский", pauses, and goes on "нет лучше казахский" gets one answer, to the whole sentence.
2. Knowledge-base questions (issue 26 §3): one cut where it looks whole ("сколько стоит роуминг | за границей",
   complete: decided at the pause, its search made), one cut where it is neither ("у меня вопрос | как узнать
   баланс": decided speculatively); each withdrawn when the caller goes on, then answered once, on the whole line.
   A whole question said and stopped is decided early and answered; a goodbye that ends on its farewell is
   decided early too (a complete turn), heard in full, then the BYE. Counts: the call's early and speculative decided/withdrawn and the wasted search.

Judged from the SIP caller's side (nothing heard from the bot before the caller had finished a line, then its one
answer heard in full) and from the record and the daemon's log. The two calls share one stack (~55 s to start);
call 1 ~25 s, call 2 ~60 s.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from policies.operator.catalog import GREETING, say
from tests.support.asterisk import (
    SipCaller,
    Stack,
    bot_line,
    contains,
    talkspurts,
    voice_to_voice_report,
    wait_reply,
)
from tests.support.asterisk.early import (
    Line,
    counted,
    early_events,
    one_turn_and_answer_per_line,
    summary_counts,
    voice_to_voice,
)
from tests.support.asterisk.stack import clip
from tests.support.wait import eventually_sync

pytestmark = pytest.mark.asterisk

HEARD_IN_FULL = 0.9
ENV = {"VAD_END_SILENCE_MS": "3000", "VAD_EARLY_STT_MS": "240", "VAD_EARLY_TURN": "true", "VAD_EARLY_REPLY_MS": "2000",
       "VAD_SPECULATE": "true"}


@pytest.fixture(scope="module")
def early_stack(asterisk_ready: None) -> Iterator[Stack]:
    stack = Stack.start(**ENV)
    try:
        yield stack
    finally:
        stack.stop()


def test_a_caller_who_goes_on_after_a_pause_is_answered_once_on_the_whole_sentence(early_stack: Stack) -> None:
    stack = early_stack
    assert stack.daemon is not None
    caller = stack.dial("100")
    call_id = caller.channel_id()
    caller.wait_media()
    greeting = wait_reply(caller.rtp, 0)
    assert contains(caller.rtp.pcm(0)[1], bot_line(GREETING.splitlines()[0], "ru")) > HEARD_IN_FULL

    first = stack.say(caller, "русский", "ru")
    stack.daemon.wait_event("early_turn", timeout=30, call_id=call_id)  # the turn ended at the pause
    rest = clip("нет лучше казахский", "ru")
    stack.openai.recogniser.expect("нет лучше казахский", rest)
    second = caller.say(rest)
    stack.daemon.wait_event("early_turn_withdrawn", timeout=30, call_id=call_id)
    reply = wait_reply(caller.rtp, second.last_ns)

    heard = caller.rtp.pcm(reply[0].first_ns)[1]
    stack.say(caller, "Рахмет, сау болыңыз.", "kk")
    ending = caller.wait_ended()
    assert ending.how == "bye_received", f"{ending}: {caller.failure()}"
    record = stack.record(call_id)

    assert first.last_ns < second.first_ns
    spurts = talkspurts(caller.rtp, greeting[-1].last_ns + 1)
    assert spurts and spurts[0].first_ns > second.last_ns, "the bot said something before the caller had finished"
    turns = [t for t in record["turns"] if t["caller_text"]]
    assert [t["caller_text"] for t in turns] == ["русский нет лучше казахский", "Рахмет, сау болыңыз."]
    answer = turns[0]
    assert answer["fields"]["language"] == "kk" and answer["bot_text"].startswith(say("language_changed", "kk"))
    assert contains(heard, bot_line(answer["bot_text"], "kk")) > HEARD_IN_FULL  # one answer, heard in full
    assert len(record["turns"]) == 3  # the greeting, the answer, the goodbye: the withdrawn decision left none
    assert record["summary"]["early_turns"]["withdrawn"] == 1




def bot_says(stack: Stack, call_id: str) -> int:
    """How many replies the daemon has handed to the call's speaker (held or not: `bot_says`)."""
    assert stack.daemon is not None
    return len(stack.daemon.events("bot_says", call_id=call_id))


def say_line(stack: Stack, caller: SipCaller, call_id: str, pieces: tuple[str, ...]) -> Line:
    """The caller says a line; one in two pieces it says as: the first, silence until the daemon has decided at
    the pause and handed the reply to the speaker (held), the rest. Then it waits for the reply."""
    clips = stack.arm_pieces(pieces, "ru")
    before = len(early_events(stack, call_id))
    decided = bot_says(stack, call_id) + 1
    first = last = caller.say(clips[0])
    if len(pieces) == 2:
        eventually_sync(lambda: bot_says(stack, call_id) >= decided, 30, f"{pieces[0]!r} decided at the pause",
                        poll_s=0.02)
        last = caller.say(clips[1])
    wait_reply(caller.rtp, last.last_ns)
    return Line(" ".join(pieces), first, last, clips[-1], early_events(stack, call_id)[before:])


LOOKS_WHOLE = ("сколько стоит роуминг", "за границей")  # complete at the pause: decided there, its search made
NEITHER = ("у меня вопрос", "как узнать баланс")  # neither complete nor dangling: decided speculatively
WHOLE = "сколько стоит домашний интернет"
GOODBYE = "спасибо до свидания"


def test_kb_questions_decided_at_a_pause_are_withdrawn_when_the_caller_goes_on_and_answered_once(
        early_stack: Stack, record_property: Any) -> None:
    stack = early_stack
    caller = stack.dial("100")
    call_id = caller.channel_id()
    caller.wait_media()
    wait_reply(caller.rtp, 0)
    try:
        lines = [say_line(stack, caller, call_id, pieces)
                 for pieces in (("русский",), ("караганда",), LOOKS_WHOLE, NEITHER, (WHOLE,), (GOODBYE,))]
        ending = caller.wait_ended()
    finally:
        stack.openai.recogniser.expect_pieces([])
    assert ending.how == "bye_received", f"{ending}: {caller.failure()}"
    record, turns = one_turn_and_answer_per_line(stack, call_id, caller.rtp, lines, "ru")
    for line, speculative in ((lines[2], False), (lines[3], True)):  # decided at the pause, withdrawn, decided again
        assert line.kinds()[:2] == [("early_turn", speculative), ("early_turn_withdrawn", speculative)], line.kinds()
        assert [k for k, _ in line.kinds()[2:]] == ["early_turn"], line.kinds()
    assert lines[2].events[1]["wasted"] == ["kb"], lines[2].events  # its knowledge-base search, made for nothing
    assert lines[4].kinds() == [("early_turn", False)] and turns[4]["timings"]["release_ms"] == 2000
    assert turns[4]["fields"]["citations"], turns[4]  # the whole question that stopped: decided early, answered
    # a goodbye that ends on its farewell is a complete turn: decided at the pause, held as long, then the BYE
    assert lines[5].kinds() == [("early_turn", False)] and turns[5]["fields"]["hang_up"] is True
    assert turns[5]["timings"]["release_ms"] == 2000
    counts = summary_counts(record)
    assert counts == counted(lines), (record["summary"], [line.events for line in lines])
    assert counts["early_turns"]["withdrawn"] == counts["speculative_turns"]["withdrawn"] == 1, counts
    assert record["summary"]["early_turns_wasted"]["kb"] >= 1, record["summary"]

    pauses = ", ".join(f"{line.text!r} {(line.last.first_ns - line.first.last_ns) / 1e6:.0f}"
                       for line in lines if line.first is not line.last)
    record_property("report", voice_to_voice_report("KB questions withdrawn at a pause (reply held 2 s)",
                                                    voice_to_voice(caller.rtp, lines)))
    record_property("report", f"asterisk early turns withdrawn: the caller's pause (ms) {pauses}; {counts}, wasted "
                    f"{record['summary']['early_turns_wasted']}; per line " + "; ".join(
                        f"{line.text!r} {line.kinds()}" for line in lines))
