"""7. The daemon's life beside a real Asterisk, each part a whole call through the real PBX:

- SIGTERM mid-call (`systemctl stop`): a call arriving while the daemon drains goes back to the dialplan and
  hears the sample's fallback; the call in progress hears the policy's closing line in full, then gets the BYE;
  the daemon exits 0 and the record says the bot ended it, disposition `shutdown`.
- Asterisk restarting mid-call (`core stop now` and start, or killed and started): the call is recorded as
  ended by the system, disposition `channel_lost`; the daemon reconnects and serves the next call.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Iterator

import pytest

from policies.operator.catalog import GREETING
from tests.support.asterisk import SipCaller, Stack, bot_line, contains, talkspurts, wait_reply
from tests.support.asterisk.fallback import heard_the_fallback
from tests.support.wait import eventually_sync

pytestmark = pytest.mark.asterisk

HEARD_IN_FULL = 0.9
DRAIN_S = 5  # DRAIN_TIMEOUT_S: long enough for a call placed during the drain to arrive while it lasts


@pytest.fixture
def draining_stack(asterisk_ready: None) -> Iterator[Stack]:
    # No idle re-prompt while the daemon drains: the first thing the caller hears after SIGTERM is the closing line.
    stack = Stack.start(DRAIN_TIMEOUT_S=str(DRAIN_S), IDLE_TIMEOUT_S="120")
    try:
        yield stack
    finally:
        stack.stop()


def greeted(caller: SipCaller) -> None:
    """Until the caller has heard the greeting to its end (its Russian line in full)."""
    caller.wait_media()
    wait_reply(caller.rtp, 0)
    ru_line = GREETING.splitlines()[0]
    assert contains(caller.rtp.pcm()[1], bot_line(ru_line, "ru")) > HEARD_IN_FULL, "greeting not heard"


def served_to_the_goodbye(stack: Stack, caller: SipCaller) -> dict:
    """The caller is greeted, says goodbye and gets the daemon's BYE; the call's record."""
    call_id = caller.channel_id()
    greeted(caller)
    stack.say(caller, "До свидания.", "ru")
    ending = caller.wait_ended()
    assert ending.how == "bye_received", f"{ending}: {caller.failure()}"
    record = stack.record(call_id)
    assert record["ended_by"] == "bot" and record["disposition"] == "completed", record
    return record


def test_sigterm_mid_call_plays_the_closing_line_then_bye_and_exits_0(draining_stack: Stack) -> None:
    stack = draining_stack
    daemon = stack.daemon
    assert daemon is not None
    caller = stack.dial("100")
    call_id = caller.channel_id()
    greeted(caller)

    term_ns = time.time_ns()
    daemon.signal(signal.SIGTERM)
    daemon.wait_event("draining", timeout=30)
    late = stack.dial("100")  # arrives while the daemon drains: back to the dialplan
    daemon.wait_event("call_rejected", reason="draining", call_id=late.channel_id())
    late_ending = late.wait_ended()
    ending = caller.wait_ended()
    assert ending.how == "bye_received", f"{ending}: {caller.failure()}"
    assert daemon.proc is not None and daemon.proc.wait(90) == 0, daemon.tail()

    record = stack.record(call_id)
    assert record["ended_by"] == "bot" and record["disposition"] == "shutdown", record
    closing = record["turns"][-1]
    assert closing["caller_text"] is None and closing["fields"]["hang_up"] is True, closing
    assert contains(caller.rtp.pcm(term_ns)[1], bot_line(closing["bot_text"], "ru")) > HEARD_IN_FULL, \
        "the closing line was not heard in full"
    spurts = talkspurts(caller.rtp, term_ns)
    assert spurts and ending.at_ns > spurts[-1].last_ns, "the BYE came before the closing line's last voiced frame"
    assert spurts[0].first_ns - term_ns >= DRAIN_S * 1e9 * 0.9, "the call was not given DRAIN_TIMEOUT_S to finish"

    heard_the_fallback(stack.pbx, late, late_ending)


@pytest.mark.parametrize("how", ["restart", "crash"])
def test_asterisk_going_away_mid_call_records_channel_lost_and_the_next_call_is_served(
        fresh_stack: Stack, how: str) -> None:
    stack = fresh_stack
    daemon = stack.daemon
    assert daemon is not None
    caller = stack.dial("100")
    call_id = caller.channel_id()
    greeted(caller)

    if how == "restart":  # `core stop now`: Asterisk hangs its channels up (soft hang-up: shutdown) and exits
        stack.pbx.restart()
        ending = caller.wait_ended()
        assert ending.how == "bye_received", f"Asterisk's BYE on shutdown: {ending}"
    else:  # killed: no hang-up at all; the daemon finds the call gone when it reconnects
        stack.pbx.crash()
        stack.pbx.start()
        caller.close()
    daemon.wait_event("ari_connected", timeout=120, reconnected=True)

    record = stack.record(call_id)
    assert record["ended_by"] == "system" and record["disposition"] == "channel_lost", record
    ended = daemon.wait_event("call_ended", call_id=call_id)
    assert ended["ended_by"] == "system" and ended["disposition"] == "channel_lost", ended
    if how == "crash":
        assert daemon.events("reconciled", closed=1), daemon.tail()

    served_to_the_goodbye(stack, stack.dial("100"))
    assert daemon.returncode is None, "the daemon stopped"
    eventually_sync(lambda: not stack.pbx.channels() and not stack.pbx.bridges(), 30,
                    what="no channel or bridge left in Asterisk")
