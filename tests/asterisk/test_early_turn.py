"""The policy ends the turn, through a real Asterisk 22 and the real daemon process (`daemon/early_turn.py`): a
caller who says "русский", pauses, and goes on "нет лучше казахский" gets one answer, to the whole sentence.

The caller goes on as soon as the daemon has ended the turn at the pause (its `early_turn` log line), so the
withdrawal is what is tested, not whether a transcript came before the caller went on; the early reply waits
for `VAD_EARLY_REPLY_MS` of silence, which is much longer than that, so it cannot start before the caller goes
on. Judged from the SIP caller's side (nothing heard from the bot between the two halves, one reply after, in
Kazakh) and from the record and the daemon's log.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from policies.operator.catalog import GREETING, say
from tests.support.asterisk import Stack, bot_line, contains, talkspurts, wait_reply
from tests.support.asterisk.stack import clip

pytestmark = pytest.mark.asterisk

HEARD_IN_FULL = 0.9
ENV = {"VAD_END_SILENCE_MS": "2500", "VAD_EARLY_STT_MS": "240", "VAD_EARLY_TURN": "true", "VAD_EARLY_REPLY_MS": "1500"}


@pytest.fixture
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
