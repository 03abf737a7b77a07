"""Freight class 7: a vendor who puts the call off (busy, call later, "let me think and tell you"), in Hindi,
Hinglish and English as an STT writes them, closes the call politely with the `callback` disposition: from
OPENING, after the pitch, while probing and after the counter. Negated and past forms, and talk about the load's
own timing, are no callback."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.freight import lines as L
from policies.freight.intents import classify
from policies.freight.quotes import hear_rate
from tests.support.freight import CONFIRM, QUOTE, cli_call, play, started

# Put-offs said instead of confirming who he is.
OPENING_PUT_OFFS = [
    # Devanagari Hindi
    "अभी मैं बिज़ी हूं बाद में फोन करना",
    "हां जी बोलिए पर अभी मीटिंग में हूं थोड़ी देर बाद कॉल कीजिए",
    "भाई अभी गाड़ी चला रहा हूं शाम को बात करते हैं",
    "अभी टाइम नहीं है कल सुबह फोन करना",
    "मैं रास्ते में हूं आधे घंटे बाद बात करेंगे",
    "अभी बात नहीं कर सकता बाद में करना",
    "अभी पूजा में बैठा हूं बाद में",
    "नहीं अभी नहीं कल बात करेंगे",
    "मीटिंग में हूँ",
    # Hinglish
    "abhi busy hoon yaar kal phone karna",
    "haan ji bolo lekin abhi meeting me hoon baad me call karo",
    "sham ko baat karte hain abhi thoda kaam hai",
    "driving kar raha hoon ek ghante baad call karna",
    "abhi time nahi hai bhai kal baat karte",
    "hello haan ji thodi der mein call karna",
    "umm abhi bizi hu na baad me phone karo",
    "yaar abhi free nahi hoon",
    # English
    "i am busy right now call me later",
    "sorry in a meeting can you call back in an hour",
]

# Put-offs after the pitch ("do you have a truck, what is your rate?").
PITCHED_PUT_OFFS = [
    "ठीक है मैं सोच कर बताऊंगा",
    "गाड़ी देख के बताता हूं",
    "मालिक से बात करके बताता हूं",
    "हम्म रेट चेक करके बताता हूं आपको",
    "ठीक है शाम तक बताता हूं",
    "सुबह फोन कीजिएगा अभी सो रहा हूं",
    "ok ji main aapko call back karta hoon",
    "rate puch ke batata hoon thodi der me",
    "abhi gaadi ka pata nahi sham tak confirm karunga",
    "bhai kal baat karte hain is load ke baare mein",
    "dekh ke batata hoon sir",
    "abhi kuch nahi bol sakta baad mein baat karo",
    "let me think about it i will call you",
    "i will confirm and call you back",
    "let me check with my owner and get back to you",
    "i will discuss and revert",
    "sochna padega baad me bolta hoon",
]

# Put-offs instead of explaining the rate, and after the counter.
LATER_PUT_OFFS = [
    "सोच कर बताऊँगा",
    "ok main soch ke batata hoon",
    "अभी जल्दी में हूं शाम को बात करते हैं",
    "i will think and let you know",
    "partner se puchkar bataunga",
]

# Not put-offs: negated busy/later, a past "कल", the load's own timing.
OPENING_NOT_PUT_OFFS = [
    "हां जी बोलिए बिज़ी नहीं हूं",
    "busy nahi hoon bolo",
    "बाद में नहीं अभी बोलिए",
    "haan haan abhi free hoon boliye",
    "i am not busy tell me",
    "galat number nahi hai sahi jagah lagaya hai bolo",
]
PITCHED_NOT_PUT_OFFS = [
    ("कल सुबह गाड़ी लग जाएगी रेट पच्चीस हज़ार", "PROBING"),
    ("kal baat hui thi aapke office se pachees hazaar bola tha", "PROBING"),
    ("हां गाड़ी है शाम को लोडिंग हो जाएगी", "PITCHED"),
    ("haan gaadi khali hai subah tak pahunch jayegi", "PITCHED"),
    ("baad mein mat karna abhi bata deta hoon bees hazaar", "SQUEEZED"),
]


def closes_with_callback(reply, session) -> None:
    assert reply.hang_up and reply.fields["phase"] == "CLOSING", (reply.text, session.moves)
    assert reply.disposition == "callback" and session.disposition == "callback"
    assert reply.hang_up_reason == "callback"
    assert reply.text == L.CANNED[L.CALLBACK]  # a polite close, no rate asked again
    assert hear_rate(reply.text) is None


@pytest.mark.parametrize("text", OPENING_PUT_OFFS)
def test_opening_put_off_closes_with_callback(text: str) -> None:
    session = started(f"cb-open-{text}")
    closes_with_callback(play(session, text), session)


@pytest.mark.parametrize("text", PITCHED_PUT_OFFS)
def test_put_off_after_the_pitch_closes_with_callback(text: str) -> None:
    session = started(f"cb-pitch-{text}")
    assert play(session, CONFIRM).fields["phase"] == "PITCHED"
    closes_with_callback(play(session, text), session)


@pytest.mark.parametrize("text", LATER_PUT_OFFS)
def test_put_off_while_probing_closes_with_callback(text: str) -> None:
    session = started(f"cb-probe-{text}")
    assert play(session, CONFIRM, QUOTE).fields["phase"] == "PROBING"
    closes_with_callback(play(session, text), session)
    assert session.offered == []  # no counter was made to a vendor who is leaving


@pytest.mark.parametrize("text", LATER_PUT_OFFS)
def test_put_off_after_the_counter_closes_with_callback(text: str) -> None:
    session = started(f"cb-counter-{text}")
    assert play(session, CONFIRM, QUOTE, "diesel bahut mehnga hai").fields["phase"] == "COUNTERED"
    closes_with_callback(play(session, f"haan {text}"), session)


@pytest.mark.parametrize("text", OPENING_NOT_PUT_OFFS)
def test_negated_busy_is_no_callback(text: str) -> None:
    assert not classify(text).callback
    session = started(f"cb-not-{text}")
    reply = play(session, text)
    assert not reply.hang_up and session.disposition is None
    assert reply.fields["phase"] in ("PITCHED", "OPENING")


@pytest.mark.parametrize(("text", "phase"), PITCHED_NOT_PUT_OFFS)
def test_load_timing_and_past_talk_are_no_callback(text: str, phase: str) -> None:
    assert not classify(text).callback
    session = started(f"cb-not-pitched-{text}")
    reply = play(session, CONFIRM, text)
    assert not reply.hang_up and reply.fields["phase"] == phase


def test_self_correction_the_last_clause_wins() -> None:
    assert classify("kal phone karna nahi nahi abhi bolo").callback is False
    assert classify("abhi bol do matlab nahi abhi busy hoon baad mein call karna").callback is True
    session = started("cb-correct")
    assert play(session, "हां बोलिए मतलब अभी मीटिंग में हूं बाद में बात करेंगे").disposition == "callback"


def test_callback_through_the_command_line(tmp_path: Path) -> None:
    out = cli_call(tmp_path, ["haan ji main hi hoon", "theek hai main soch ke bataunga"])
    assert [t["phase"] for t in out] == ["OPENING", "PITCHED", "CLOSING"]
    assert out[-1]["hang_up"] and out[-1]["disposition"] == "callback"
