"""Freight class 8: figures as vendors say them - romanised Hindi numerals, Devanagari misspellings, ranges,
digits one by one, phone numbers (never a rate), per-ton/km quotes (the bot asks for the trip rate) and a bare
"पच्चीस" meaning 25,000 while a rate is awaited. Phrasings are STT-like: lower case, no punctuation, fillers."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.freight import lines as L
from policies.freight import numerals as N
from policies.freight.quotes import hear_quote, hear_rate
from policies.freight.spelling import key
from tests.support.freight import CONFIRM, LOAD, QUOTE, cli_call, play, started

ANCHOR = LOAD.anchor  # 20,000: shorthand reads "पच्चीस" as thousands

RATES = [
    # romanised Hindi numerals, as vendors type or an STT writes them
    ("pachees hazaar", 25_000),
    ("saade teis hazar", 23_500),
    ("bees hazaar rupaye", 20_000),
    ("unnis hajar paanch sau", 19_500),
    ("rate hoga chaubis hazaar", 24_000),
    ("sava lakh", 125_000),
    ("dedh lakh lagega", 150_000),
    ("ikkis hazaar final", 21_000),
    ("teis hajaar de dena", 23_000),
    ("chhabbis hazar lagega bhai", 26_000),
    ("bais hazar paanch sau", 22_500),
    ("atthaees hazaar se kam nahi", 28_000),
    ("tees hajar", 30_000),
    ("paune do lakh", 175_000),
    ("ji athara hazaar chalega", 18_000),
    ("teis hajar paanch sou", 23_500),
    # Devanagari as an STT misspells it
    ("पच्चिस हजार", 25_000),
    ("इक्किस हज़ार", 21_000),
    ("तेइस हजार लगेगा", 23_000),
    ("बाइस हजार पांच सौ", 22_500),
    ("उन्निस हजार", 19_000),
    ("चोबिस हजार", 24_000),
    ("सताईस हज़ार", 27_000),
    ("पैतीस हजार", 35_000),
    ("साडे बाईस हजार", 22_500),
    # ranges: the upper end
    ("उन्नीस-बीस हज़ार", 20_000),
    ("unnis bees hazaar", 20_000),
    ("बाईस से चौबीस हज़ार", 24_000),
    ("22-23 hazaar", 23_000),
    ("pachees-chhabbis hajar", 26_000),
    ("20 se 22 thousand", 22_000),
    # digits said one by one
    ("1 9 5 0 0", 19_500),
    ("एक नौ पांच शून्य शून्य", 19_500),
    ("two two five zero zero", 22_500),
    ("do teen paanch shunya shunya", 23_500),
    ("mera rate 2 4 0 0 0 hai", 24_000),
    ("rate hai ek nau pach sunya sunya", 19_500),
    # a phone number and a rate in one turn
    ("मेरा नंबर 98765 43210 है और रेट पच्चीस हज़ार", 25_000),
    # a self-correction borrowing the multiplier
    ("pachees hazaar nahi nahi chaubis", 24_000),
    ("तेईस हज़ार नहीं बाईस", 22_000),
    # per-unit and total in one turn: the total is the rate
    ("1500 per ton matlab total 22500", 22_500),
    ("बीस टन माल का पच्चीस हज़ार लगेगा", 25_000),
    ("diesel toll sab milake pachees hazaar", 25_000),  # the costs summed up: the rate
]

PHONES = [
    "मेरा फ़ोन नंबर 91234 56789 है",
    "mera number 98xxxxxxx",
    "mera number 9876543210 hai note karo",
    "whatsapp kar do 98765 43210 pe",
    "नंबर लिख लीजिए नौ आठ सात छह पांच चार तीन दो एक शून्य",
    "mobile 99887 766 55",
    "my number is 98 765 43210",
]

PER_UNIT = [
    "पंद्रह सौ रुपये टन",
    "1500 per ton",
    "प्रति किलोमीटर चालीस रुपये",
    "kilo ke hisaab se do rupaye",
    "टन का अठारह सौ लगेगा",
    "per km 45 rupees",
    "एक टन का पंद्रह सौ",
    "hum to ton ke hisaab se lete hain",
    "१८०० रुपये प्रति टन",
    "quintal ka 150 rupaye",
    "sir 1600 rupaye ton lagega",
    "हर टन का सत्रह सौ",
]

SHORTHAND = [
    ("पच्चीस दे दो", 25_000),
    ("bas pachees", 25_000),
    ("बाईस में कर दूंगा", 22_000),
    ("saade bais final", 22_500),
    ("chaubis lagega", 24_000),
    ("तेईस", 23_000),
    ("haan ji chhabbis", 26_000),
    ("अट्ठाईस से कम नहीं होगा", 28_000),
]
NOT_RATES = [
    "दो दिन लगेंगे",
    "पच्चीस तारीख को लोडिंग",
    "तीन गाड़ी हैं",
    "एक मिनट रुकिए",
    "बीस टन है ना",
    "पांच",
    "haan ji bolo",
    "mic testing ek do teen char",
    "गाड़ी नंबर 1234 है",
    "do din mein pahuncha dunga",
    "toll hi chaar hazaar ka hai madam",  # one cost of the trip, not its rate
    "डीज़ल में पंद्रह हज़ार जाता है",
]


@pytest.mark.parametrize(("text", "rate"), RATES)
def test_rates_as_vendors_say_them(text: str, rate: int) -> None:
    assert hear_rate(text) == rate
    assert hear_quote(text, anchor=ANCHOR).rate == rate


@pytest.mark.parametrize("text", PHONES)
def test_a_phone_number_is_never_a_rate(text: str) -> None:
    quote = hear_quote(text, anchor=ANCHOR)
    assert quote.rate is None and quote.phone
    session = started(f"phone-{text}")
    reply = play(session, CONFIRM, text)
    assert reply.fields["heard_rate"] is None and reply.fields["phase"] == "PITCHED"
    assert reply.text == L.CANNED[L.NUMBER_NOTED]  # noted, and the rate asked for


@pytest.mark.parametrize("text", PER_UNIT)
def test_a_per_unit_quote_is_not_the_trip_rate(text: str) -> None:
    quote = hear_quote(text, anchor=ANCHOR)
    assert quote.rate is None and quote.per_unit
    session = started(f"unit-{text}")
    reply = play(session, CONFIRM, text)
    assert reply.fields["heard_rate"] is None and reply.fields["phase"] == "PITCHED"
    assert reply.text == L.CANNED[L.ASK_TRIP_RATE]
    reply = play(session, "achha poora trip ka chaubis hazaar")
    assert reply.fields["heard_rate"] == 24_000 and reply.fields["phase"] == "PROBING"


@pytest.mark.parametrize("text", PER_UNIT[:4])
def test_a_per_unit_quote_while_probing_asks_for_the_trip_rate_and_keeps_waiting(text: str) -> None:
    session = started(f"unit-probe-{text}")
    play(session, CONFIRM, QUOTE)
    reply = play(session, text)
    assert reply.fields["phase"] == "PROBING" and reply.text == L.CANNED[L.ASK_TRIP_RATE]
    assert session.offered == []


@pytest.mark.parametrize(("text", "rate"), SHORTHAND)
def test_a_bare_number_in_rate_talk_means_thousands(text: str, rate: int) -> None:
    assert hear_quote(text, anchor=ANCHOR).rate == rate
    assert hear_quote(text).rate is None  # outside rate talk it is no rate
    session = started(f"short-{text}")
    reply = play(session, CONFIRM, text)
    assert reply.fields["heard_rate"] == rate


def test_shorthand_scale_follows_the_anchor_not_the_ceiling() -> None:
    assert hear_quote("dedh final", anchor=110_000).rate == 150_000
    assert hear_quote("dhai lagega", anchor=200_000).rate == 250_000
    assert hear_quote("pachees de do", anchor=300_000).rate is None  # 25k and 25 lakh are both far off


@pytest.mark.parametrize("text", NOT_RATES)
def test_counts_dates_and_measures_are_no_rate(text: str) -> None:
    assert hear_quote(text, anchor=ANCHOR).rate is None


def test_in_opening_a_bare_number_is_no_rate() -> None:
    session = started("short-opening")
    reply = play(session, "पच्चीस")
    assert reply.fields["heard_rate"] is None


def test_spelling_keys_merge_variants_and_keep_numbers_apart() -> None:
    for a, b in [("पच्चीस", "pachees"), ("पच्चिस", "pachchis"), ("हज़ार", "hajar"), ("हजार", "hazaar"),
                 ("इक्कीस", "ikkis"), ("उन्नीस", "unnees"), ("साठ", "saath"), ("सात", "saat")]:  # fmt: skip
        assert key(a) == key(b), (a, b)
    assert key("साठ") != key("सात") and key("तीस") != key("तेईस") and key("नौ") != key("नो")
    seen: dict[str, int] = {}
    for value, word in enumerate(N.HINDI_UNITS):  # no two numbers share a key, variants included
        assert seen.setdefault(key(word), value) == value, word
    for word, value in N.HINDI_VARIANTS.items():
        assert seen.setdefault(key(word), value) == value, word


def test_figures_through_the_command_line(tmp_path: Path) -> None:
    out = cli_call(tmp_path, ["haan ji main hi hoon", "mera number 91234 56789 hai", "पंद्रह सौ रुपये टन",
                              "achha total pachees de do"])  # fmt: skip
    assert [t["heard_rate"] for t in out[1:]] == [None, None, None, 25_000]
    assert [t["phase"] for t in out[1:]] == ["PITCHED", "PITCHED", "PITCHED", "PROBING"]
