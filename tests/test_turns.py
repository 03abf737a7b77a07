"""The turn-boundary holder and the console's script clock."""

from __future__ import annotations

from ai_operator.console import parse_script
from ai_operator.turn_boundary import TurnHolder


def dangling(text: str) -> bool:
    return text.endswith(("лагбхаг", "लगभग", "तो"))


def test_complete_utterance_is_decided_at_once():
    h = TurnHolder(dangling, 1.5)
    assert h.feed("पच्चीस हज़ार", 10.0) == ["पच्चीस हज़ार"]
    assert h.pending is None


def test_dangling_fragment_is_held_and_merged_with_its_continuation():
    h = TurnHolder(dangling, 1.5)
    assert h.feed("तो मेरा rate लगभग", 10.0) == []
    assert h.deadline() == 11.5
    assert h.poll(11.0) == []
    assert h.feed("तेईस हज़ार के आस पास", 11.2) == ["तो मेरा rate लगभग तेईस हज़ार के आस पास"]
    assert h.pending is None


def test_held_fragment_is_decided_as_it_stands_when_nothing_arrives():
    h = TurnHolder(dangling, 1.5)
    h.feed("तो मेरा rate लगभग", 10.0)
    assert h.poll(11.5) == ["तो मेरा rate लगभग"]
    # a late continuation is a turn of its own
    assert h.feed("तेईस हज़ार", 20.0) == ["तेईस हज़ार"]


def test_late_continuation_fed_after_deadline_yields_both_in_order():
    h = TurnHolder(dangling, 1.5)
    h.feed("मेरा rate लगभग", 0.0)
    assert h.feed("तेईस हज़ार", 5.0) == ["मेरा rate लगभग", "तेईस हज़ार"]


def test_zero_hold_never_holds():
    h = TurnHolder(dangling, 0.0)
    assert h.feed("तो", 0.0) == ["तो"]


def test_script_virtual_clock_and_events():
    lines = list(parse_script(["हां जी", "", "+0.8 तेईस हज़ार", "[dtmf 1]", "+1 [silence]", "[not-heard]"]))
    assert [(round(x.at, 2), x.text, x.event) for x in lines] == [
        (3.0, "हां जी", None),
        (3.8, "तेईस हज़ार", None),
        (6.8, "1", "dtmf"),
        (7.8, "", "silence"),
        (10.8, "", "not-heard"),
    ]


def test_speech_onset_within_the_hold_keeps_holding_until_its_transcript():
    h = TurnHolder(dangling, 1.5)
    h.feed("तो मेरा rate लगभग", 10.0)
    h.continuation_started()  # he speaks again at 10.8 s
    assert h.poll(15.0) == []  # his utterance is long; nothing is decided meanwhile
    assert h.feed("छब्बीस हज़ार के आस पास", 15.2) == ["तो मेरा rate लगभग छब्बीस हज़ार के आस पास"]


def test_empty_continuation_rearms_the_hold_then_decides_the_fragment():
    h = TurnHolder(dangling, 1.5)
    h.feed("तो मेरा rate लगभग", 10.0)
    h.continuation_started()
    assert h.feed("", 12.0) == []  # a cough: nothing transcribed
    assert h.deadline() == 13.5
    assert h.poll(13.5) == ["तो मेरा rate लगभग"]


def test_continuation_started_without_a_fragment_changes_nothing():
    h = TurnHolder(dangling, 1.5)
    h.continuation_started()
    assert h.pending is None and h.feed("हां जी", 1.0) == ["हां जी"]
