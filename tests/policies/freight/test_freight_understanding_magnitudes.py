"""Freight, fractional and colloquial magnitudes (issue 27, class 9): half, quarter, one-and-a-half and
"less a quarter" forms of thousand and lakh (आधा, सवा, डेढ़, ढाई, पौने, साढ़े and their romanised and misspelt
forms, the English "one and a half lakh", "half a lakh", "one point five lakh"), decimals before a multiplier
("2.5 lakh", "1.25 lakh") and "ek lakh pachees" are heard as the figure they mean, alone and in rate sentences,
and through a call. Phrasings are STT-like: no punctuation, fillers, code switching."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.freight.quotes import PLAUSIBLE_RANGE, hear_quote, hear_rate
from tests.support.freight import CONFIRM, cli_call, load_with, play, started

LAKH_LOAD = load_with(anchor=120_000, ceiling=200_000)

MAGNITUDES = [
    ("सवा लाख", 125_000),
    ("डेढ़ हज़ार", 1_500),
    ("ढाई लाख", 250_000),
    ("पौने दो लाख", 175_000),
    ("साढ़े तीन हज़ार", 3_500),
    ("adha lakh", 50_000),
    ("aadha lakh rupaye", 50_000),
    ("savva lakh lagega", 125_000),
    ("derh lakh final", 150_000),
    ("dhaai lakh se kam nahi", 250_000),
    ("pone do lakh", 175_000),
    ("2.5 lakh", 250_000),
    ("1.25 lakh", 125_000),
    ("mera rate sava do lakh rahega", 225_000),
    ("आधा लाख", 50_000),
    ("पौना लाख", 75_000),
    ("one and a half lakh", 150_000),
    ("two and a half lakh", 250_000),
    ("half a lakh", 50_000),
    ("one point five lakh", 150_000),
    ("डेड़ लाख", 150_000),
    ("ढेड़ लाख", 150_000),
    ("सव्वा लाख", 125_000),
    ("पोने दो लाख", 175_000),
    ("sadhe teen hazaar", 3_500),
    ("saadhe char lakh", 450_000),
    ("1.75 lakh", 175_000),
    ("ek lakh pachees", 125_000),
    ("तेईस हज़ार पांच", 23_500),
    ("dedh lakh ke aas paas", 150_000),
    ("डेढ़ से पौने दो लाख", 175_000),
    ("a lakh and a half", 150_000),
    ("one and a quarter lakh", 125_000),
    ("2.5 लाख रुपए", 250_000),
    ("dhai hazar", 2_500),
    ("paune teen lakh", 275_000),
    ("ढाई लाख तक हो जाएगा", 250_000),
    ("१.५ लाख", 150_000),
    ("paune lakh", 75_000),
    ("haan ji do point paanch lakh", 250_000),
    ("rate hoga derh lakh bas", 150_000),
    ("साढ़े बाईस हज़ार", 22_500),
    # English compounds around the fraction, and "der" as an STT writes डेढ़ before a magnitude
    ("twenty two and a half thousand", 22_500),
    ("twenty one and a half thousand", 21_500),
    ("rate is twenty three and half thousand", 23_500),
    ("twenty four point five thousand", 24_500),
    ("twenty one thousand and five hundred", 21_500),
    ("21 thousand and 500 final", 21_500),
    ("mera rate der lakh hai", 150_000),
    ("dekhiye dher lakh rahega", 150_000),
    # "aur" (and) after a magnitude joins the hundreds; Rajasthani "sadha", Bengali-accented "sare ... baish"
    ("bees hazaar aur dhai sau", 20_250),
    ("बाईस हज़ार और पांच सौ लगेगा", 22_500),
    ("ikkis hajar aur saadhe teen sau", 21_350),
    ("23 hazaar aur 500", 23_500),
    ("sadha teis hajar lagsi", 23_500),
    ("sare baish hajar dada", 22_500),
    ("teish hajar hobe", 23_000),
]
# Not money, or not a fraction of a money figure: unchanged.
NOT_MAGNITUDES = [
    ("आधे घंटे बाद बात करेंगे", None),
    ("adha ghanta lagega", None),
    ("डेढ़ दिन में पहुंचा देंगे", None),
    ("dhai ton maal hai", None),
    ("das ton ka do lakh", 200_000),
    ("thodi der mein batata hoon", None),
    ("twenty thousand and that is final", 20_000),
    ("bees hazaar aur do din lagenge", 20_000),
]


@pytest.mark.parametrize(("text", "value"), MAGNITUDES)
def test_a_fractional_magnitude_is_heard_as_the_figure_it_means(text: str, value: int) -> None:
    assert hear_rate(text) == value
    # in a lakh load's rate talk, a figure under a tenth of the anchor ("डेढ़ हज़ार") is no trip rate
    plausible = value >= LAKH_LOAD.anchor / PLAUSIBLE_RANGE
    assert hear_quote(text, anchor=LAKH_LOAD.anchor).rate == (value if plausible else None)


@pytest.mark.parametrize(("text", "value"), NOT_MAGNITUDES)
def test_measures_and_times_stay_no_rate(text: str, value: int | None) -> None:
    assert hear_rate(text) == value


@pytest.mark.parametrize(("text", "value"), [m for m in MAGNITUDES if m[1] >= 50_000])
def test_a_fractional_quote_in_a_call(text: str, value: int) -> None:
    session = started(f"frac-{text}", LAKH_LOAD)
    reply = play(session, CONFIRM, text)
    assert reply.fields["heard_rate"] == value


def test_a_fractional_quote_through_the_command_line(tmp_path: Path) -> None:
    out = cli_call(tmp_path, ["haan ji main hi hoon", "sir rate sava do hazaar kam karke teis hazaar hoga",
                              "nahi nahi saadhe teis hazaar"])  # fmt: skip
    assert [t["heard_rate"] for t in out[2:]] == [23_000, 23_500]
