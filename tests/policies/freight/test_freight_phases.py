"""Freight: every arrow of the phase diagram, the two rules, abuse, silence, hang-ups and dispositions."""

from __future__ import annotations

import pytest

from policies.freight import (
    DISPOSITIONS,
    POLICY,
    FreightSession,
    Load,
    Phase,
    hear_rate,
    utterance_may_continue,
)
from policies.freight.selftest import ARROW_SCRIPTS, CONCESSION, SAMPLE_LOAD_PATH, SELF_TEST_LOAD, run_script

LOAD = Load(
    vendor_name="सुरेश",
    origin="मुंबई",
    destination="पुणे",
    vehicle="चौदह फीट टेम्पो",
    weight="7.5",
    material="स्टील पाइप",
    pickup="परसों",
    anchor=20_000,
    ceiling=26_000,
)


def started(call_id: str = "call-1", load: Load = LOAD) -> FreightSession:
    session = FreightSession(call_id, load)
    reply = session.start()
    assert reply.fields["phase"] == "OPENING"
    assert "सुरेश" in reply.text  # the greeting asks for the vendor by name
    assert reply.language == "hi"
    return session


def say(session: FreightSession, *utterances: str):
    reply = None
    for u in utterances:
        reply = session.on_utterance(u)
    return reply


@pytest.mark.parametrize("name", sorted(ARROW_SCRIPTS))
def test_arrow_scripts(name: str) -> None:
    session = FreightSession(f"arrow-{name}", SELF_TEST_LOAD)  # the scripts' vendor names himself: Ramesh
    session.start()
    assert run_script(session, ARROW_SCRIPTS[name]) == []


# (script, phase after each turn, disposition at the end) - independent of the self-test table.
ARROWS = [
    (["हां बोलिए"], ["PITCHED"], None),
    (["नहीं, आप गलत नंबर पर कॉल कर रहे हैं"], ["CLOSING"], "wrong_number"),
    (["नहीं"], ["CLOSING"], "wrong_number"),
    (["please leave a message after the beep"], ["CLOSING"], "voicemail"),
    (["मैं मीटिंग में हूं, थोड़ी देर बाद कॉल करो"], ["CLOSING"], "callback"),
    (["हेलो", "हां जी मैं ही हूं"], ["OPENING", "PITCHED"], None),
    (["हां", "अरे साले", "हरामी"], ["PITCHED", "PITCHED", "CLOSING"], "abuse"),
    (["हां", "गाड़ी नहीं है"], ["PITCHED", "CLOSING"], "declined"),
    (["हां", "आप बताइए आपका बजट कितना है"], ["PITCHED", "PITCHED"], None),
    (["हां", "25000 लगेगा"], ["PITCHED", "PROBING"], None),
    (["हां", "20000"], ["PITCHED", "SQUEEZED"], None),  # at the anchor
    (["हां", "32 हज़ार"], ["PITCHED", "PROBING"], None),
    (["हां", "पच्चीस हज़ार", "वापसी में खाली आना पड़ता है"], ["PITCHED", "PROBING", "COUNTERED"], None),
    (["हां", "पच्चीस हज़ार", "क्या?"], ["PITCHED", "PROBING", "PROBING"], None),
    (["हां", "पच्चीस हज़ार", "चलो bye"], ["PITCHED", "PROBING", "CLOSING"], "no_deal"),
    (["हां", "पच्चीस हज़ार", "पच्चीस हज़ार ही लगेगा"], ["PITCHED", "PROBING", "COUNTERED"], None),
    (
        ["हां", "32 हज़ार", "ठीक है", "हां जी"],
        ["PITCHED", "PROBING", "PROBING", "DEFERRED"],
        "deferred_over_ceiling",
    ),
    (["हां", "32 हज़ार", "चलो 24 हज़ार"], ["PITCHED", "PROBING", "PROBING"], None),
    (["हां", "18000", "हां ठीक है"], ["PITCHED", "SQUEEZED", "DEFERRED"], "deal_at_quote"),
    (["हां", "18000", "क्यों कम करूं?"], ["PITCHED", "SQUEEZED", "DEFERRED"], "deal_at_quote"),
    (
        ["हां", "पच्चीस हज़ार", "डीज़ल", "done"],
        ["PITCHED", "PROBING", "COUNTERED", "DEFERRED"],
        "deal_at_counter",
    ),
    (["हां", "पच्चीस हज़ार", "डीज़ल", "नहीं होगा"], ["PITCHED", "PROBING", "COUNTERED", "LAST_ASK"], None),
    (
        ["हां", "पच्चीस हज़ार", "डीज़ल", "नहीं", "नहीं जी", "ठीक है"],
        ["PITCHED", "PROBING", "COUNTERED", "LAST_ASK", "DEFERRED", "CLOSING"],
        "deal_at_quote",
    ),
    (
        ["हां", "पच्चीस हज़ार", "डीज़ल", "नहीं", "चलो चौबीस हज़ार फाइनल"],
        ["PITCHED", "PROBING", "COUNTERED", "LAST_ASK", "DEFERRED"],
        "deal_at_quote",
    ),
]


@pytest.mark.parametrize(("script", "phases", "disposition"), ARROWS)
def test_arrows_table(script: list[str], phases: list[str], disposition: str | None) -> None:
    session = started(f"table-{'-'.join(script)}")
    got = [session.on_utterance(u).fields["phase"] for u in script]
    assert got == phases
    assert session.disposition == disposition
    assert disposition is None or disposition in DISPOSITIONS


def test_squeeze_is_once_and_asks_for_less_without_a_figure() -> None:
    session = started()
    reply = say(session, "हां", "उन्नीस हज़ार")
    assert reply.fields["phase"] == "SQUEEZED"
    assert "कम" in reply.text and hear_rate(reply.text) is None
    reply = say(session, "चलो अठारह हज़ार")  # a lower figure is taken as his quote
    assert reply.fields["phase"] == "DEFERRED"
    assert session.ladder.quote == 18_000


def test_counter_voices_exactly_the_concession_and_only_once() -> None:
    session = started("counter-call")
    reply = say(session, "हां", "पच्चीस हज़ार", "टोल बहुत है")
    assert reply.fields["offered_rate"] == session.concession
    assert hear_rate(reply.text) == session.concession
    assert LOAD.anchor < session.concession < LOAD.ceiling
    reply = say(session, "नहीं", "नहीं जी")
    assert session.offered == [session.concession]
    assert reply.fields["offered_rate"] is None


def test_quote_at_or_under_concession_is_accepted_not_countered_upwards() -> None:
    session = started("cheap-call")
    low = session.concession - 100
    assert low > LOAD.anchor
    reply = say(session, "हां", str(low), "डीज़ल महंगा है")
    assert reply.fields["phase"] == "DEFERRED"
    assert session.disposition == "deal_at_quote"
    assert session.offered == []


def test_offer_anchor_when_he_asks_our_rate() -> None:
    session = started()
    reply = say(session, "हां", "आप बताइए आप कितना दोगे?")
    assert reply.fields["offered_rate"] == LOAD.anchor
    assert hear_rate(reply.text) == LOAD.anchor


def test_deferred_is_terminal_and_next_acknowledgement_closes() -> None:
    session = started()
    say(session, "हां", "32 हज़ार", "इससे कम नहीं होगा")
    assert session.phase is Phase.DEFERRED
    reply = say(session, "अच्छा 20 हज़ार कर दूंगा")  # a new figure does not reopen the ladder
    assert reply.fields["phase"] == "DEFERRED" and reply.fields["offered_rate"] is None
    reply = say(session, "ठीक है धन्यवाद")
    assert reply.hang_up and reply.fields["phase"] == "CLOSING"
    assert reply.disposition == "deferred_over_ceiling" and reply.hang_up_reason == "deferred"
    assert say(session, "हेलो").text is None  # nothing after CLOSING


def test_deal_closes_with_deal_closed_reason() -> None:
    session = started()
    reply = say(session, "हां", "पच्चीस हज़ार", "डीज़ल", "हां ठीक है", "ओके bye")
    assert reply.hang_up and reply.hang_up_reason == "deal_closed" and reply.disposition == "deal_at_counter"


def test_abuse_first_strike_warns_second_closes_in_any_phase() -> None:
    session = started()
    reply = say(session, "हां", "पच्चीस हज़ार", "साले")
    assert reply.fields["phase"] == "PROBING" and not reply.hang_up and "ठीक से" in reply.text
    reply = say(session, "बेवकूफ")
    assert reply.hang_up and reply.hang_up_reason == "abuse" and reply.disposition == "abuse"


def test_silence_reprompts_then_gives_up() -> None:
    session = started()
    first = session.on_silence()
    assert first.text == "हेलो? आप सुन रहे हैं?" and not first.hang_up
    second = session.on_silence()
    assert second.hang_up and second.disposition == "no_response" and second.fields["phase"] == "CLOSING"


def test_speech_resets_the_silence_count() -> None:
    session = started()
    session.on_silence()
    session.on_utterance("हां जी")
    assert not session.on_silence().hang_up


def test_not_heard_and_dtmf_keep_the_phase() -> None:
    session = started()
    say(session, "हां", "पच्चीस हज़ार")
    reply = session.on_not_heard()
    assert reply.text == "माफ़ कीजिए, आवाज़ साफ़ नहीं आई, फिर से बोलिए?"
    assert reply.fields["phase"] == "PROBING"
    reply = session.on_dtmf("5")
    assert reply.fields["phase"] == "PROBING" and not reply.hang_up
    assert say(session, "टोल").fields["phase"] == "COUNTERED"  # PROBING still expects his answer


def test_hearing_problem_repeats_the_last_line() -> None:
    session = started()
    counter = say(session, "हां", "पच्चीस हज़ार", "डीज़ल")
    again = say(session, "आवाज़ नहीं आ रही, फिर से बोलिए")
    assert again.text == counter.text and again.fields["phase"] == "COUNTERED"
    assert again.fields["offered_rate"] == session.concession
    assert set(session.offered) == {session.concession}


@pytest.mark.parametrize(
    ("ended_by", "prior", "expected"),
    [
        ("caller", [], "caller_hung_up"),
        ("caller", ["हां", "18000", "ठीक"], "deal_at_quote"),
        ("watchdog", [], "ended_by_watchdog"),
        ("system", ["हां", "पच्चीस हज़ार"], "ended_by_system"),
    ],
)
def test_call_ended_disposition(ended_by: str, prior: list[str], expected: str) -> None:
    session = started()
    say(session, *prior) if prior else None
    session.on_call_ended(ended_by)
    session.on_call_ended("bot")  # idempotent
    assert session.snapshot()["disposition"] == expected and expected in DISPOSITIONS
    assert session.snapshot()["phase"] == "CLOSING"


def test_start_twice_does_not_restart_the_call() -> None:
    session = started()
    say(session, "हां", "पच्चीस हज़ार")
    again = session.start()
    assert again.text is None and session.phase is Phase.PROBING
    session.on_call_ended("caller")
    assert FreightSession("x", LOAD).start().text  # a fresh session still greets
    assert session.start().text is None and session.phase is Phase.CLOSING


def test_spec_turn_boundary_example() -> None:
    session = started()
    say(session, "हां जी")
    fragment = "तो मेरा rate लगभग"
    assert session.utterance_may_continue(fragment)
    merged = f"{fragment} तेईस हज़ार के आस पास"
    assert not utterance_may_continue(merged)
    reply = session.on_utterance(merged)
    assert LOAD.anchor < 23_000 <= LOAD.ceiling
    assert reply.fields["heard_rate"] == 23_000 and reply.fields["phase"] == "PROBING"


def test_fields_and_tools() -> None:
    session = started()
    assert set(session.snapshot()) == set(POLICY.turn_fields)
    call = session.call_tool("search_kb", {"q": "x"})
    assert not call.allowed and call.reason and session.tool_calls == [call]


def test_self_test_cases_all_pass_and_cover_every_phase() -> None:
    cases = POLICY.self_test()
    results = [c.run() for c in cases]
    assert all(r.passed for r in results), [r for r in results if not r.passed]
    reached = {phase for steps in ARROW_SCRIPTS.values() for _, phase, _ in steps}
    assert reached == {p.name for p in Phase}
    assert CONCESSION in str(ARROW_SCRIPTS)


def test_turns_she_cannot_read_in_a_row_end_the_call_politely() -> None:
    """MAX_MISUNDERSTOOD_TURNS: a vendor she cannot read, turn after turn, is not asked for ever."""
    from tests.support.policies import freight_route, session

    s = session(freight_route(SAMPLE_LOAD_PATH), "mis-1", max_misunderstood_turns=3)
    s.start()
    s.on_utterance("हां जी मैं ही बोल रहा हूं")  # pitched
    for garble in ("ब्लू ब्लू", "टर्र टर्र"):
        r = s.on_utterance(garble)
        assert not r.hang_up
    r = s.on_utterance("क्र्र्र")
    assert r.hang_up and r.disposition == "misunderstood" and "फिर से कॉल करेगी" in r.text

    s = session(freight_route(SAMPLE_LOAD_PATH), "mis-2", max_misunderstood_turns=2)
    s.start()
    s.on_utterance("हां जी मैं ही बोल रहा हूं")
    s.on_utterance("ब्लू ब्लू")
    r = s.on_utterance("पच्चीस हज़ार")  # read: the count starts again
    assert not r.hang_up


def test_a_forced_end_for_a_dead_provider_is_the_polite_goodbye_not_the_time_limit_line() -> None:
    from policies.freight import lines as freight_lines
    from tests.support.freight import started

    for reason, line in (("stt_unavailable", freight_lines.SHUTDOWN), ("shutdown", freight_lines.SHUTDOWN),
                         ("max_call_length", freight_lines.MAX_CALL_LENGTH)):
        reply = started(f"forced-{reason}").on_forced_end(reason)
        assert reply.text == line and reply.hang_up and reply.disposition == reason
