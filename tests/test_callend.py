"""CallEnd: the hang-up state machine of the freight spec, driven with an explicit clock."""

from __future__ import annotations

import pytest

from ai_operator.callend import PLAYOUT_GRACE_S, WATCHDOG_S, CallEnd


def test_defaults_match_the_spec() -> None:
    assert (WATCHDOG_S, PLAYOUT_GRACE_S) == (20.0, 0.4)


def test_goodbye_ends_400_ms_after_stop() -> None:
    ce = CallEnd()
    assert ce.next_deadline() is None and ce.poll(5.0) is None  # not armed: nothing
    assert ce.arm("vendor_ended_call", 10.0) is True
    assert ce.armed and ce.reason == "vendor_ended_call"
    assert ce.next_deadline() == pytest.approx(30.0)  # watchdog
    ce.on_bot_started(10.5, 10.5)
    assert ce.poll(12.0) is None
    ce.on_bot_stopped(13.0)
    assert ce.next_deadline() == pytest.approx(13.4)
    assert ce.poll(13.39) is None
    assert ce.poll(13.4) == "bot"
    assert ce.ended and ce.ended_by == "bot"
    assert ce.poll(13.5) is None and ce.poll(40.0) is None  # exactly once
    assert ce.next_deadline() is None


def test_audio_that_started_before_arming_never_ends_the_call() -> None:
    ce = CallEnd()
    ce.on_bot_started(1.0, 1.0)  # previous line, before any decision
    ce.arm("goodbye", 2.0)
    ce.on_bot_started(1.0, 2.1)  # a late "started" of the previous line: does not count
    ce.on_bot_stopped(2.2, interrupted=True)  # barge-in on the previous line delivers its stop after arming
    ce.on_bot_stopped(2.3)
    assert ce.next_deadline() == pytest.approx(22.0)
    assert ce.poll(10.0) is None
    ce.on_bot_started(3.0, 3.0)  # the goodbye
    ce.on_bot_stopped(5.0)
    assert ce.poll(5.3) is None
    assert ce.poll(5.41) == "bot"


def test_watchdog_ends_a_call_whose_goodbye_never_plays() -> None:
    ce = CallEnd()
    ce.arm("give_up", 100.0)
    assert ce.poll(119.99) is None
    assert ce.poll(120.0) == "watchdog"
    assert ce.ended_by == "watchdog" and ce.poll(121) is None


def test_second_arm_is_a_noop() -> None:
    ce = CallEnd()
    assert ce.arm("abuse", 1.0)
    assert ce.arm("model_goodbye", 15.0) is False
    assert ce.reason == "abuse"
    assert ce.poll(21.0) == "watchdog"  # the watchdog still counts from the first arm
    assert "arm:model_goodbye" in ce.late_events


def test_barge_in_on_goodbye_holds_the_line_until_next_utterance_finishes() -> None:
    ce = CallEnd()
    ce.arm("goodbye", 0.0)
    ce.on_bot_started(0.1, 0.1)
    ce.on_barge_in(1.0)  # caller talks over the goodbye
    ce.on_bot_stopped(1.02, interrupted=True)  # playout flushed
    assert ce.held
    assert ce.next_deadline() == pytest.approx(20.0)
    assert ce.poll(5.0) is None  # line held while the caller speaks and the bot answers
    ce.on_bot_started(6.0, 6.0)  # the bot's next line re-enables ending
    assert not ce.held
    ce.on_bot_stopped(8.0)
    assert ce.poll(8.39) is None
    assert ce.poll(8.4) == "bot"


def test_barge_in_during_grace_cancels_it_and_watchdog_still_bounds() -> None:
    ce = CallEnd(watchdog_s=10.0)
    ce.arm("goodbye", 0.0)
    ce.on_bot_started(0.5, 0.5)
    ce.on_bot_stopped(2.0)
    ce.on_barge_in(2.2)  # within the 400 ms grace
    assert ce.poll(2.5) is None
    ce.on_bot_stopped(3.0)  # a stray stop with no new utterance does not restart the grace
    assert ce.poll(9.9) is None
    assert ce.poll(10.0) == "watchdog"


def test_stop_that_races_a_barge_in_does_not_end_the_call() -> None:
    ce = CallEnd()
    ce.arm("goodbye", 0.0)
    ce.on_bot_started(0.1, 0.1)
    ce.on_barge_in(1.0)
    ce.on_bot_stopped(1.01, interrupted=False)  # the goodbye's last frame went out just as the caller spoke
    assert ce.poll(1.5) is None and ce.held


def test_new_utterance_during_grace_waits_for_it() -> None:
    ce = CallEnd()
    ce.arm("goodbye", 0.0)
    ce.on_bot_started(0.1, 0.1)
    ce.on_bot_stopped(1.0)
    ce.on_bot_started(1.2, 1.2)  # a second sentence of the goodbye
    assert ce.poll(1.5) is None
    ce.on_bot_stopped(3.0)
    assert ce.poll(3.4) == "bot"


def test_record_ended_by_first_wins_and_later_are_kept() -> None:
    ce = CallEnd()
    ce.arm("goodbye", 0.0)
    assert ce.record_ended_by("caller") is True  # caller hung up during the goodbye
    assert ce.ended and ce.ended_by == "caller"
    ce.on_bot_started(0.1, 0.1)
    ce.on_bot_stopped(1.0)
    assert ce.poll(1.5) is None and ce.poll(30.0) is None  # no second end
    assert ce.record_ended_by("system") is False
    assert ce.arm("idle", 31.0) is False
    assert ce.ended_by == "caller"
    assert ce.late_events == ["system", "arm:idle"]


def test_bot_end_then_late_caller_hangup_is_a_noop() -> None:
    ce = CallEnd()
    ce.arm("goodbye", 0.0)
    ce.on_bot_started(0.0, 0.0)
    ce.on_bot_stopped(2.0)
    assert ce.poll(2.4) == "bot"
    assert ce.record_ended_by("caller") is False
    assert ce.ended_by == "bot" and ce.late_events == ["caller"]


def test_caller_can_hang_up_before_any_arm() -> None:
    ce = CallEnd()
    assert ce.record_ended_by("caller") is True
    assert ce.arm("goodbye", 1.0) is False
    assert ce.poll(100.0) is None


def test_bad_configuration_is_rejected() -> None:
    with pytest.raises(ValueError, match="watchdog_s"):
        CallEnd(watchdog_s=0)
