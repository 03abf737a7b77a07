"""CallEnd: the hang-up state machine of the freight spec, driven with an explicit clock."""

from __future__ import annotations

import pytest

from ai_operator.callend import (
    FIRED_GRACE,
    FIRED_LINE_DEADLINE,
    LINE_MARGIN_S,
    PLAYOUT_GRACE_S,
    SECONDS_PER_CHAR,
    SYNTH_BUDGET_S,
    WATCHDOG_S,
    CallEnd,
    expected_line_s,
)


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
    assert ce.ended_by == "watchdog" and ce.fired == "watchdog" and ce.poll(121) is None


def test_second_arm_is_a_noop() -> None:
    ce = CallEnd()
    assert ce.arm("abuse", 1.0)
    assert ce.arm("model_goodbye", 15.0) is False
    assert ce.reason == "abuse"
    assert ce.poll(21.0) == "watchdog"  # the watchdog still counts from the first arm
    assert "arm:model_goodbye" in ce.late_events


def test_a_stopped_ending_line_still_ends_the_call() -> None:
    ce = CallEnd()
    ce.arm("goodbye", 0.0)
    ce.on_bot_started(0.1, 0.1)
    ce.on_bot_stopped(1.02, interrupted=True)  # stopped (flushed at teardown, cut by a forced end): over all the same
    assert ce.poll(1.4) is None
    assert ce.poll(1.42) == "bot" and ce.fired == FIRED_GRACE


def test_a_line_that_never_plays_ends_the_call_at_once() -> None:
    ce = CallEnd()
    ce.arm("goodbye", 5.0, expected_line_s("до свидания"))
    ce.line_lost(5.2)  # the TTS failed, nothing audible came out
    assert ce.next_deadline() == pytest.approx(5.2)
    assert ce.poll(5.2) == "bot" and ce.fired == FIRED_GRACE


def test_line_lost_while_the_line_plays_waits_for_its_stop() -> None:
    ce = CallEnd()
    ce.arm("goodbye", 0.0)
    ce.on_bot_started(0.1, 0.1)
    ce.line_lost(0.5)  # a late error about audio that is still playing
    assert ce.poll(0.6) is None
    ce.on_bot_stopped(2.0)
    assert ce.poll(2.4) == "bot"


def test_the_armed_end_has_its_own_deadline_past_its_line() -> None:
    text = "x" * 40  # 4 s expected
    ce = CallEnd(watchdog_s=30.0)
    ce.arm("shutdown", 10.0, expected_line_s(text))
    assert expected_line_s(text) == pytest.approx(40 * SECONDS_PER_CHAR)
    assert ce.next_deadline() == pytest.approx(10.0 + SYNTH_BUDGET_S + 4.0 + LINE_MARGIN_S)  # the TTS's time too
    ce.on_bot_started(12.0, 12.0)  # the synthesis took 2 s: the deadline counts from the first frame
    assert ce.next_deadline() == pytest.approx(12.0 + 4.0 + LINE_MARGIN_S)
    assert ce.poll(18.99) is None  # the line's stop never came (a stream that stalled)
    assert ce.poll(19.0) == "bot" and ce.fired == FIRED_LINE_DEADLINE
    assert ce.ended_by == "bot" and ce.poll(40.0) is None


def test_the_line_deadline_never_passes_the_watchdog() -> None:
    ce = CallEnd(watchdog_s=5.0)
    ce.arm("goodbye", 0.0, expected_line_s("x" * 100))
    assert ce.next_deadline() == pytest.approx(5.0)


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
    with pytest.raises(ValueError, match="line_margin_s"):
        CallEnd(line_margin_s=-1)
