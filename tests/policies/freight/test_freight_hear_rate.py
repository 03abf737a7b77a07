"""Freight: hearing and saying figures, the turn boundary and the ceiling guard (pure functions)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from policies.freight import ceiling_leaks, hear_rate, say_number, say_rate, utterance_may_continue

HEAR_TABLE = [
    # Devanagari number words
    ("तेईस हज़ार", 23_000),
    ("तेईस हजार", 23_000),
    ("पच्चीस हज़ार रुपये लगेंगे", 25_000),
    ("एक लाख पच्चीस हज़ार", 125_000),
    ("बाईस हज़ार पांच सौ", 22_500),
    ("पच्चीस सौ", 2_500),
    ("निन्यानवे हज़ार", 99_000),
    ("उन्नीस हज़ार नौ सौ निन्यानवे", 19_999),
    ("दो लाख", 200_000),
    ("छियालीस हज़ार", 46_000),
    # fractions
    ("साढ़े बाईस हज़ार", 22_500),
    ("साढे बाईस हजार", 22_500),
    ("सवा लाख", 125_000),
    ("पौने दो लाख", 175_000),
    ("डेढ़ लाख", 150_000),
    ("ढाई हज़ार", 2_500),
    ("साढ़े तीन हज़ार", 3_500),
    ("सवा दो लाख", 225_000),
    # Devanagari and Latin digits with separators
    ("२३०००", 23_000),
    ("२३,०००", 23_000),
    ("23,000", 23_000),
    ("1,25,000", 125_000),
    ("23 000", 23_000),
    ("23000/-", 23_000),
    ("₹23,000", 23_000),
    ("23000 रुपये", 23_000),
    ("rs 23000 only", 23_000),
    ("23000 rupees", 23_000),
    # k, thousand, lakh in Latin
    ("23k", 23_000),
    ("23 K", 23_000),
    ("22.5k", 22_500),
    ("23 thousand", 23_000),
    ("1.5 लाख", 150_000),
    ("2 lakh", 200_000),
    ("twenty three thousand", 23_000),
    ("twenty-three thousand rupees", 23_000),
    ("one lakh twenty five thousand", 125_000),
    ("23 हज़ार", 23_000),
    # ranges are heard as their upper end
    ("बाईस-तेईस हज़ार", 23_000),
    ("बाईस तेईस हज़ार", 23_000),
    ("22 से 23 हज़ार", 23_000),
    ("22-23k", 23_000),
    ("22000-23000", 23_000),
    # sentences
    ("तो मेरा rate लगभग तेईस हज़ार के आस पास", 23_000),
    ("बीस टन माल का पच्चीस हज़ार लगेगा", 25_000),
    ("तेईस हज़ार नहीं, बाईस हज़ार", 22_000),
    ("तेईस हज़ार बाईस हज़ार", 22_000),
    # no figure
    ("हां जी बोलिए", None),
    ("", None),
    ("20 टन का माल है", None),
    ("एक मिनट रुकिए", None),
    ("हज़ार बातें मत कीजिए", None),
    ("गाड़ी दो दिन में पहुंचेगी", None),
    ("साढ़े", None),
]


@pytest.mark.parametrize(("text", "expected"), HEAR_TABLE)
def test_hear_rate_table(text: str, expected: int | None) -> None:
    assert hear_rate(text) == expected


@pytest.mark.parametrize(
    ("n", "words"),
    [
        (23_000, "तेईस हज़ार रुपये"),
        (23_500, "तेईस हज़ार पांच सौ रुपये"),
        (125_000, "एक लाख पच्चीस हज़ार रुपये"),
        (100_050, "एक लाख पचास रुपये"),
        (10_000_000, "एक करोड़ रुपये"),
    ],
)
def test_say_rate_spoken_forms(n: int, words: str) -> None:
    assert say_rate(n) == words
    assert not any(ch.isdigit() for ch in say_rate(n))


def test_say_number_rejects_negative() -> None:
    with pytest.raises(ValueError, match="negative"):
        say_number(-1)


@settings(max_examples=400, deadline=None)
@given(st.integers(min_value=500, max_value=99_99_99_999))
def test_hear_say_round_trip(n: int) -> None:
    assert hear_rate(say_rate(n)) == n


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=500, max_value=10_00_000))
def test_hear_say_round_trip_in_a_sentence(n: int) -> None:
    assert hear_rate(f"हमारी तरफ़ से {say_rate(n)} हो सकता है, इस पर कर दीजिए?") == n


@pytest.mark.parametrize(
    ("text", "may_continue"),
    [
        ("तो मेरा rate लगभग", True),
        ("तो मेरा rate", True),
        ("मेरा रेट करीब", True),
        ("देखिए तो", True),
        ("around", True),
        ("my rate is around", True),
        ("तेईस", True),
        ("साढ़े", True),
        ("23", True),
        ("बाईस से", True),
        ("रेट होगा...", True),
        ("तेईस हज़ार", False),
        ("23000", False),
        ("तो मेरा rate लगभग तेईस हज़ार के आस पास", False),
        ("हां जी", False),
        ("तेईस?", False),
        ("ठीक है।", False),
        ("", False),
    ],
)
def test_utterance_may_continue(text: str, may_continue: bool) -> None:
    assert utterance_may_continue(text) is may_continue


CEILING = 25_000


@pytest.mark.parametrize(
    ("text", "leaks"),
    [
        ("हम पच्चीस हज़ार तक जा सकते हैं", True),
        ("हम 25000 तक", True),
        ("हम 25,000 तक", True),
        ("२५००० तक", True),
        ("25k max", True),
        ("twenty five thousand", True),
        ("25 thousand rupees", True),
        ("चौबीस-पच्चीस हज़ार", True),  # a range end
        ("पच्चीस तक चलेगा", True),  # shorthand for 25,000
        ("तेईस हज़ार", False),
        ("पच्चीस टन माल है", False),  # a weight, not money
        ("पच्चीस तारीख को पिकअप", False),
        ("", False),
    ],
)
def test_ceiling_leaks_table(text: str, leaks: bool) -> None:
    assert ceiling_leaks(text, CEILING) is leaks


@pytest.mark.parametrize(
    ("text", "ceiling"),
    [("सवा लाख", 125_000), ("1.25 लाख", 125_000), ("साढ़े बाईस हज़ार", 22_500), ("साढ़े बाईस", 22_500)],
)
def test_ceiling_leaks_fraction_forms(text: str, ceiling: int) -> None:
    assert ceiling_leaks(text, ceiling)
    assert not ceiling_leaks(text, ceiling + 100)


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=1_000, max_value=50_00_000))
def test_ceiling_leaks_finds_every_spoken_ceiling(ceiling: int) -> None:
    assert ceiling_leaks(f"ठीक है {say_rate(ceiling)} कर देते हैं", ceiling)
    assert ceiling_leaks(f"ठीक है {ceiling:,} कर देते हैं", ceiling)
    assert not ceiling_leaks(f"ठीक है {say_rate(ceiling + 1)} कर देते हैं", ceiling)
