"""Every ending ends on a real Asterisk 22 with a SIP caller (ARCHITECTURE.md "Ending lines"):

- SIGTERM while the caller talks (DRAIN_TIMEOUT_S=0): the shutdown line is not cut by the caller's voice, nothing
  is answered after it, and the BYE follows its last frame (before: cut after 2.0 s, then 17.7 s of silence until
  the watchdog); the same line with the caller silent.
- A freight call whose model (the local OpenAI-compatible server) writes a long goodbye, which the vendor talks
  over in its middle: heard in full, then the BYE; the record says the bot ended a deal (before: the goodbye was
  cut, the bot never hung up, `ended_by=caller`).

Each asserts what the caller heard (the whole line, nothing after it) and the gap between the line's last voiced
frame and the BYE, both as the caller received them (kernel receive times and sipp's log).
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field

import pytest

from policies.operator.catalog import bilingual
from tests.support.asterisk import SipCaller, Stack, bot_line, contains, talkspurts, wait_reply
from tests.support.asterisk.stack import clip
from tests.support.freight import DEAL_AT_QUOTE, LONG_MODEL_GOODBYE
from tests.support.wait import eventually_sync

pytestmark = pytest.mark.asterisk

BYE_WITHIN_S = 2.0
HEARD_IN_FULL = 0.9
TALK = {
    "ru": "Подождите, подождите, я ещё не договорил, у меня вопрос по оплате интернета, по тарифу и по подключению "
          "телевидения, и ещё скажите, пожалуйста, как перейти на другой тариф",
    "hi": "अरे सुनिए मेरी बात, गाड़ी का भाड़ा और डीज़ल दोनों बढ़ गए हैं, और टोल भी लगता है, पेमेंट कब मिलेगा?",
}  # fmt: skip


@dataclass
class Case:
    exten: str
    text: str  # the ending line
    language: str
    policy: str
    disposition: str
    env: dict[str, str] = field(default_factory=dict)
    talk_at: float | None = None  # the caller talks over the line from this fraction of it; None: silent
    before_line: bool = False  # the caller is already talking when the line is decided


def _shutdown(stack: Stack, caller: SipCaller, case: Case) -> int:
    """Greeted; then SIGTERM (the caller already talking, for `before_line`). Returns when the line may start."""
    wait_reply(caller.rtp, 0)
    if case.before_line:
        caller.rtp.say(clip(TALK[case.language], case.language))
        eventually_sync(lambda: caller.rtp.sent > 25, 30, what="the caller talking")  # half a second of it
    term_ns = time.time_ns()
    assert stack.daemon is not None
    stack.daemon.signal(signal.SIGTERM)
    return term_ns


def _deal(stack: Stack, caller: SipCaller, case: Case) -> int:
    """The vendor closes a deal at his quote and thanks the bot; returns when he finished his thanks."""
    stack.openai.server.goodbye = LONG_MODEL_GOODBYE
    stack.openai.server.chat_script = lambda _body: {"content": ""}  # every other move: the canned line
    wait_reply(caller.rtp, 0)
    for line in DEAL_AT_QUOTE[:-1]:
        said = stack.say(caller, line, "hi")
        wait_reply(caller.rtp, said.last_ns)
    return stack.say(caller, DEAL_AT_QUOTE[-1], "hi").last_ns


LEAD_IN: dict[str, Callable[[Stack, SipCaller, Case], int]] = {"shutdown": _shutdown, "model_goodbye": _deal}
SHUTDOWN = {"DRAIN_TIMEOUT_S": "0", "IDLE_TIMEOUT_S": "120"}  # no language chosen: the line in both
CASES = {
    "shutdown-caller-talking": ("shutdown", Case("100", bilingual("shutdown"), "ru", "operator", "shutdown", SHUTDOWN,
                                                 talk_at=None, before_line=True)),
    "shutdown-caller-silent": ("shutdown", Case("100", bilingual("shutdown"), "ru", "operator", "shutdown", SHUTDOWN)),
    "model-goodbye-talked-over": ("model_goodbye", Case("200", LONG_MODEL_GOODBYE, "hi", "freight", "deal_at_quote",
                                                        {"LLM_PROVIDER": "openai"}, talk_at=0.5)),
}  # fmt: skip


@pytest.fixture(params=list(CASES))
def ending_case(request: pytest.FixtureRequest, asterisk_ready: None) -> Iterator[tuple[str, Case, Stack]]:
    kind, case = CASES[request.param]
    stack = Stack.start(**case.env)
    try:
        yield kind, case, stack
    finally:
        stack.stop()


def test_an_ending_line_is_heard_whole_and_the_bye_follows_its_last_frame(ending_case) -> None:
    kind, case, stack = ending_case
    caller = stack.dial(case.exten)
    call_id = caller.channel_id()
    caller.wait_media()
    since_ns = LEAD_IN[kind](stack, caller, case)
    line = bot_line(case.text, case.language, case.policy)
    if case.talk_at is not None:  # the caller talks over the line from `talk_at` of it
        first = eventually_sync(lambda: talkspurts(caller.rtp, since_ns), 60, what="the ending line")[0].first_ns
        target_ns = first + int(case.talk_at * len(line) / 8000 * 1e9)
        time.sleep(max(0.0, (target_ns - time.time_ns()) / 1e9))  # schedules the caller's words, asserts nothing
        caller.rtp.say(clip(TALK[case.language], case.language))
    ending = caller.wait_ended()
    assert ending.how == "bye_received", f"{ending}: {caller.failure()}"
    if kind == "shutdown":
        assert stack.daemon is not None and stack.daemon.proc is not None
        assert stack.daemon.proc.wait(90) == 0, stack.daemon.tail()
    record = stack.record(call_id)

    heard = caller.rtp.pcm(since_ns)[1]
    assert contains(heard, line) > HEARD_IN_FULL, "the ending line was not heard in full"
    spurts = talkspurts(caller.rtp, since_ns)
    assert contains(spurts[-1].audio, line[-8000:]) > HEARD_IN_FULL, "the bot said something after the ending line"
    gap_s = (ending.at_ns - spurts[-1].last_ns) / 1e9
    print(f"ENDING_GAP_ASTERISK {kind} talk_at={case.talk_at} before_line={case.before_line} "
          f"last_bot_frame->bye={gap_s:.3f}s")
    assert 0 < gap_s <= BYE_WITHIN_S, f"the BYE came {gap_s:.2f} s after the line's last voiced frame"
    assert record["turns"][-1]["bot_text"] == case.text and record["turns"][-1]["fields"]["hang_up"] is True
    assert record["ended_by"] == "bot" and record["disposition"] == case.disposition, record
    assert record["summary"]["end_fired"] == "grace", record["summary"]
    eventually_sync(lambda: not stack.pbx.channels(), 30, what="no channel left in Asterisk")
