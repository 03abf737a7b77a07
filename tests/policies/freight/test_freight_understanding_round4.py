"""Freight, the fourth round of the understanding classes (issue 27, classes 6-9), each in many phrasings as an STT
returns them:

- (7) a counter refused without a plain "no": a proverb of a rate too low, sarcasm, "let whoever goes take it", a
  rhetorical question ("who will go at this rate", "what is left for me"), even ending on a polite "ji", is never
  booked as a deal at our figure: a polite "ji" or a "bataiye" is no yes (`Intent.firm_yes`); it moves to the last
  ask, naming no figure, while "haan ji theek hai" and a bare "ji" still accept; so does a yes to the argument
  followed by "but" and the rate's trouble ("sab theek hai lekin rate mein dikkat hai"), "I am fine" ("ghar baitha
  hi theek hoon") and laughter ("ha ha very funny");
- (6) "who is this" is no wrong number, and "good morning" no time to call back; Punjabi stand-ins and hand-overs ("main ohna da driver haan", "bapu ji nu bulaunda", "ik minute ji") get no
  pitch; the vendor who then comes on gets it;
- (8) a lower bound ("bees se upar", "above twenty") or a figure taken back ("bees nahi") is held for what follows
  and never heard as his figure;
- (9) "ikkees pachaas" is 21,500 (the rate shorthand), not 21 and 50 (fifty thousand), and Punjabi numbers ("pachi",
  "teyi", "ikki") are heard."""

from __future__ import annotations

import pytest

from policies.freight import lines as L
from policies.freight.intents import classify, utterance_may_continue
from policies.freight.quotes import hear_quote, hear_rate
from tests.support.freight import CONFIRM, LOAD, assert_last_ask, countered, play, started

NOT_A_YES = [
    "ye to oont ke munh mein jeera hai ji",
    "ऊंट के मुंह में जीरा है जी ये तो",
    "ghoda ghaas se dosti karega to khayega kya ji",
    "घोड़ा घास से दोस्ती करेगा तो खाएगा क्या",
    "sasta roye baar baar ji",
    "jisko itne mein jana ho usi se mangwa lo ji",
    "जिसको इतने में जाना हो उसी से करवा लो जी",
    "aap hi bataiye itne mein hamare paas kya bachega",
    "अब आप ही बताइए इसमें हमारे पास क्या बचेगा जी",
    "kya main apni jeb se diesel bharun ji",
    "मैं अपनी जेब से डीज़ल डालूं क्या",
    "tussi vi kamaal karde ho ji eh rate te kaun jaayega",
    "madam come on who will run a truck for that",
    "itne mein to kuch nahi bachega ji",
    "bhai saab itne mein kaun jayega batao",
    "arre sahab gaadi ka kiraya hai ji koi khairat nahi",
    "achha ji samajh gaye aapki baat bhi ji",
    "dekhiye ji humne bhi bacche paalne hain ji",
    "ji itne mein hamari gaadi ki EMI bhi nahi niklegi",
    "bataiye ji aise kaise chalega dhanda",
    # yes to the argument, then "but" and the rate's trouble; "I am fine" and laughter are no assent
    "ji ji sab theek hai lekin rate mein dikkat hai",
    "aap theek keh rahi ho madam par hamara kharcha hi itna hai",
    "सही बात है आपकी लेकिन इतने में मुश्किल है",
    "haan ji baat sahi hai magar humko suit nahi karega",
    "ok madam i understand but the cost is too high for us",
    "accha offer hai lekin humko suit nahi karega",
    "arre bhai sahab itna kam mein to main ghar baitha hi theek hoon",
    "ha ha very funny madam next",
    "हा हा मज़ाक अच्छा है",
    "aapka rate aapko mubarak ho",
    "main bees saal se isi line pe gaadi chala raha hoon diesel badh gaya to itne mein to nahi ho payega",
]
STILL_YES = ["haan ji theek hai", "ji", "ji haan kar denge", "theek hai ji bhej denge gaadi", "chalo ji done",
             "ji bilkul pakka", "ok ji chalega", "हां जी ठीक है", "theek hai lekin payment jaldi karna",
             "ok but send the loading address on whatsapp"]  # fmt: skip



@pytest.mark.parametrize("text", NOT_A_YES)
def test_no_plain_no_is_still_no_deal_at_the_counter(text: str) -> None:
    session = countered(f"not-yes-{text}")
    assert_last_ask(session, play(session, text))


@pytest.mark.parametrize("text", STILL_YES)
def test_a_yes_with_a_polite_ji_still_takes_the_counter(text: str) -> None:
    assert classify(text).firm_yes
    session = countered(f"yes-{text}")
    reply = play(session, text)
    assert reply.fields["phase"] == "DEFERRED" and session.disposition == "deal_at_counter"


STAND_INS = [
    "main ohna da driver haan ji",
    "मैं ओहना दा ड्राइवर हां जी सेठ जी शहर गए ने",
    "हांजी मैं उन्हां दा भरा बोल रेहा हां",
    "main ohda munda haan",
    "ji main unhan da munshi haan",
    "bapu ji khetan vich gaye ne",
    "साब जी बाहर गए ने जी",
]
HOLDS = ["ruko ji ik minute bapu ji nu bulaunda", "ik minute ji", "ek minute ji", "ruko ji", "one moment please",
         "इक मिनट जी बुलाउंदा", "just a minute i will get him"]  # fmt: skip


@pytest.mark.parametrize("text", STAND_INS)
def test_a_punjabi_stand_in_gets_no_pitch(text: str) -> None:
    session = started(f"stand-in-{text}")
    reply = play(session, text)
    assert reply.fields["phase"] == "OPENING" and L.PITCH not in session.moves
    assert LOAD.origin not in (reply.text or "")


@pytest.mark.parametrize("text", HOLDS)
def test_a_hold_is_waited_for_and_the_vendor_then_gets_the_pitch(text: str) -> None:
    session = started(f"hold4-{text}")
    reply = play(session, text)
    assert session.moves[-1] == L.HOLD_ON and reply.fields["phase"] == "OPENING"
    reply = play(session, "haanji mahesh boldaan")
    assert reply.fields["phase"] == "PITCHED" and LOAD.origin in (reply.text or "")


def test_a_minute_that_puts_the_call_off_is_no_hold() -> None:
    assert not classify("ek minute mein call karta hoon").handover


BOUNDS = ["rate to bees se upar", "rate hoga bees hazaar se upar", "rate hoga bees nahi", "बीस हज़ार से ऊपर",
          "bees se zyada", "it is above twenty", "rate pachees nahi"]  # fmt: skip


@pytest.mark.parametrize("text", BOUNDS)
def test_a_bound_or_a_figure_taken_back_waits_and_is_no_figure(text: str) -> None:
    assert hear_quote(text, anchor=LOAD.anchor).rate is None
    if not text.startswith("it is"):
        assert utterance_may_continue(text)
    session = started(f"bound-{text}")
    reply = play(session, CONFIRM, text)
    assert reply.fields["heard_rate"] is None and session.disposition is None


@pytest.mark.parametrize(("text", "value"), [
    ("rate to bees se upar saade ikkees hazaar", 21_500), ("bees nahi ikkees hazaar", 21_000),
    ("pachees hazaar se kam nahi", 25_000), ("ikkees pachaas lagega", 21_500), ("bais pachas final", 22_500),
    ("इक्कीस पचास लगेगा", 21_500), ("teis pachaas ho jayega", 23_500), ("pachi hazaar lagu", 25_000),
    ("teyi hajaar lagu ji", 23_000), ("ikki hazaar", 21_000), ("bees pachees hazaar", 25_000),
    ("pachees hazaar se zyada nahi lagega", 25_000), ("not more than twenty five thousand", 25_000),
    ("bees hazaar se upar nahi jaunga", 20_000),
])  # fmt: skip
def test_the_figure_he_means(text: str, value: int) -> None:
    assert hear_quote(text, anchor=LOAD.anchor).rate == value


def test_forty_fifty_stays_a_range() -> None:
    assert hear_rate("chalees pachaas hazaar") == 50_000


@pytest.mark.parametrize("text", ["hello who is this", "haan ji kaun bol raha hai", "good morning who is calling"])
def test_who_is_calling_is_no_wrong_number(text: str) -> None:
    session = started(f"who-{text}")
    reply = play(session, text)
    assert session.disposition is None and reply.fields["phase"] == "OPENING" and L.PITCH not in session.moves


def test_good_morning_is_a_greeting_not_a_time_to_call_back() -> None:
    session = started("good-morning")
    reply = play(session, "good morning this is priya his daughter may i know who is calling")
    assert not reply.hang_up and session.moves[-1] == L.ASK_PERSON
