"""Freight, the fifth round of the understanding classes (issue 27, classes 6-9), each in many phrasings as an STT
returns them:

- (7) a counter refused after a yes to the argument, whatever the negator's spelling ("हओ बात तो सही है पर इतने
  में नईं पड़ेगा", "nahee", "नाही"), mocked as alms ("bhikh de rahe ho kya", "khairat"), or answered with the
  market ("sab jagah rate badha hua hai", "aap purana rate bol rahe ho") moves to the last ask, naming no figure;
  a "no" spelled so is a no;
- (6) a Bengali or Marathi possessive after his name ("ramesh er wife", "ramesh cha bhau") is his relation, and a
  mother ("amma", "maai") no wrong number: no pitch; after a stand-in, the vendor naming himself ("main ramesh aa
  gaya", "ramesh speaking sorry about that": an apology, no correction) gets it;
- (8) a turn that ends on "tak", "pe", "wahi", on "bas" before any figure, on how he addresses us after the rate
  word ("rate to bhaiya"), on "aap samjho", or on a Bhojpuri future ("भाड़ा होई", "rate lagi") is held for the
  figure; "nahi bas", "theek hai bas" are whole;
- (9) in rate talk, money too small to be the trip rate ("पाँच सौ" on a 20,000 load: the hundreds of a figure or
  an amount off it) is never a deal at that sum: the whole rate is asked for again; "twenty three thousand two
  fifty" is 23,250; a figure corrected twice is the last ("बाईस हज़ार नहीं नहीं तेईस मतलब साढ़े बाईस": 22,500)."""

from __future__ import annotations

import pytest

from policies.freight import lines as L
from policies.freight.intents import classify, utterance_may_continue
from policies.freight.quotes import hear_quote, hear_rate
from tests.support.freight import CONFIRM, LOAD, assert_last_ask, countered, load_with, play, started

REFUSED = [
    "हओ बात तो सही है पर इतने में नईं पड़ेगा",
    "haan baat sahi hai par itne mein nahee padega",
    "हां जी सही है लेकिन इसमें नहि होगा",
    "ji aapki baat theek hai magar itne mein naahi hoga",
    "kya madam bhikh de rahe ho kya",
    "ये तो भीख दे रहे हो आप",
    "bhai sahab koi khairat nahi maang rahe",
    "bhai sahab sab jagah rate badha hua hai aap purana rate bol rahe ho",
    "आप पुराना रेट बोल रहे हो जी",
    "madam this is the old rate everything went up",
    "rate badh gaya hai bhai sahab sab taraf",
]


@pytest.mark.parametrize("text", REFUSED)
def test_a_refusal_after_a_yes_or_as_mockery_or_the_market_moves_to_the_last_ask(text: str) -> None:
    session = countered(f"refused5-{text}")
    assert_last_ask(session, play(session, text))


@pytest.mark.parametrize("text", ["नईं जी", "nahee bhai", "नाही जी", "नहि"])
def test_a_no_however_spelled_is_a_no(text: str) -> None:
    it = classify(text)
    assert it.no and not it.yes


@pytest.mark.parametrize("text", ["ha ha bolo ami ramesh er wife bolchi o bari nei", "ramesh cha bhau boltoy",
                                  "mi ramesh chi mulgi boltey"])  # fmt: skip
def test_a_bengali_or_marathi_relation_gets_no_pitch(text: str) -> None:
    load = load_with(vendor_name="रमेश")
    session = started(f"relation5-{text}", load)
    reply = play(session, text)
    assert reply.fields["phase"] == "OPENING" and L.PITCH not in session.moves
    assert load.origin not in (reply.text or "")


HELD = ["is load ka rate rahega bas", "hamara to bas", "bhai sahab bas", "delhi se jaipur tak", "इस गाड़ी पे",
        "aaj ke rate pe", "हमार भाड़ा होई", "ekar rate lagi", "rate to bhaiya", "rate to bhaiya wahi",
        "is trip ka bhada sahab"]  # fmt: skip
WHOLE = ["nahi bas", "theek hai bas", "ok bas", "bees hazaar bas", "haan ji"]


@pytest.mark.parametrize("text", HELD)
def test_a_turn_ending_where_the_figure_is_still_to_come_is_held(text: str) -> None:
    assert utterance_may_continue(text)
    assert hear_quote(text, anchor=LOAD.anchor).rate is None


@pytest.mark.parametrize("text", WHOLE)
def test_a_no_or_a_yes_or_a_figure_with_bas_is_whole(text: str) -> None:
    assert not utterance_may_continue(text)


@pytest.mark.parametrize("text", ["paanch sau", "पाँच सौ", "dedh hazaar", "सात सौ रुपये"])
def test_money_too_small_for_the_trip_is_asked_again_never_a_deal(text: str) -> None:
    assert hear_quote(text, anchor=LOAD.anchor).rate is None
    session = started(f"small-{text}")
    reply = play(session, CONFIRM, "dekhiye rate hoga bees hazaar", text)
    assert session.moves[-1] == L.ASK_WHOLE_RATE and reply.fields["phase"] == "SQUEEZED"
    assert reply.fields["heard_rate"] is None and session.disposition is None
    reply = play(session, "bees hazaar paanch sau")
    assert reply.fields["phase"] == "DEFERRED" and session.disposition == "deal_at_quote"
    assert session.ladder.quote == 20_000  # a higher figure after the squeeze keeps the quote he gave


def test_a_small_sum_is_still_heard_outside_rate_talk() -> None:
    assert hear_rate("paanch sau") == 500


@pytest.mark.parametrize(("text", "value"), [
    ("twenty three thousand two fifty", 23_250), ("twenty two thousand seven fifty five", 22_755),
    ("twenty one thousand four fifty", 21_450), ("twenty three thousand two hundred fifty", 23_250),
])  # fmt: skip
def test_hundreds_said_as_two_fifty(text: str, value: int) -> None:
    assert hear_rate(text) == value


# (6) after a stand-in, the vendor who comes on naming himself ("main ramesh aa gaya", "ramesh speaking, sorry
# about that": an apology, no correction) gets the pitch; "main ramesh ko bulata hoon" is still the stand-in
@pytest.mark.parametrize("text", ["haan bhai main mahesh aa gaya bolo", "मैं महेश आ गया जी बोलिए",
                                  "mahesh speaking sorry about that", "sorry ji mahesh bol raha hoon"])  # fmt: skip
def test_the_vendor_coming_on_after_a_stand_in_gets_the_pitch(text: str) -> None:
    session = started(f"comes-on-{text}")
    play(session, "arre main munshi hoon seth ji godown gaye hain")
    reply = play(session, text)
    assert reply.fields["phase"] == "PITCHED" and LOAD.origin in (reply.text or ""), session.moves


@pytest.mark.parametrize("text", ["main mahesh ko bulata hoon", "main mahesh ka bhai hoon"])
def test_naming_him_in_another_case_is_still_someone_else(text: str) -> None:
    it = classify(text, vendor=LOAD.vendor_name)
    assert not it.identifies


@pytest.mark.parametrize("text", ["hum unki amma bolit hai u abhin nahi aaye", "main unki ammi hoon wo bahar gaye",
                                  "हम उनकी माई बोलत हई"])  # fmt: skip
def test_a_mother_answering_is_no_wrong_number(text: str) -> None:
    session = started(f"mother-{text}")
    reply = play(session, text)
    assert reply.fields["phase"] == "OPENING" and session.disposition is None and L.PITCH not in session.moves


@pytest.mark.parametrize("text", ["rate to aap samjho", "आप समझो", "bhada maan lo"])
def test_a_turn_ending_on_you_understand_is_held(text: str) -> None:
    assert utterance_may_continue(text)


@pytest.mark.parametrize(("text", "value"), [
    ("बाईस हज़ार नहीं नहीं तेईस मतलब साढ़े बाईस", 22_500),
    ("twenty thousand no twenty one no sorry twenty one and a half", 21_500),
    ("bees hazaar nahi ikkees nahi saadhe ikkees", 21_500),
])  # fmt: skip
def test_a_figure_corrected_twice_is_the_last(text: str, value: int) -> None:
    assert hear_quote(text, anchor=LOAD.anchor).rate == value
