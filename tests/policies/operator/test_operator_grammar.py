"""The operator's shared grammar: token normalisation (fillers, look-alike letters, transliteration, Kazakh
copula), negation scope, self-correction and the explicit unknown of `choose`."""

from __future__ import annotations

import pytest

from policies.operator.grammar import AMBIGUOUS, CHOSEN, UNKNOWN, Mention, analyse, choose, kk_negative_verb

NORMALISED = [
    ("Ну, э-э, ммм… как бы РУССКИЙ", ("русский",), ("русский",)),
    ("слушайте Қазақша", ("казакша",), ("казакша",)),
    ("бiлмеймiн", ("билмеймин",), ("билмеймин",)),  # Latin i typed inside a Kazakh word
    ("qazaqsha", ("qazaqsha",), ("казакша",)),
    ("operatorga qosynyzshy please", ("operatorga", "qosynyzshy", "please"), ("операторга", "косынызшы", "please")),
    ("I don't speak Russian", ("i", "dont", "speak", "russian"), ("i", "dont", "speak", "russian")),
    ("Қарағандыданмын", ("карагандыдан",), ("карагандыдан",)),
    ("шымкенттікпін", ("шымкенттик",), ("шымкенттик",)),
    ("рақмет", ("рахмет",), ("рахмет",)),
    ("соедините с кем-нибудь", ("соедините", "с", "кемнибудь"), ("соедините", "с", "кемнибудь")),
    ("то есть", ("тоесть",), ("тоесть",)),
]


@pytest.mark.parametrize(("text", "words", "cyr"), NORMALISED)
def test_normalisation(text: str, words: tuple[str, ...], cyr: tuple[str, ...]) -> None:
    utt = analyse(text)
    assert utt.words == words and utt.cyr == cyr


def _choice(text: str, values: dict[str, str], complement: dict[str, str] | None = None):
    toks = analyse(text).cyr
    mentions = [Mention(i, i + 1, values[t]) for i, t in enumerate(toks) if t in values]
    return choose(toks, mentions, complement)


LANG = {"русский": "ru", "русском": "ru", "казахский": "kk", "казахском": "kk", "орысша": "ru", "казакша": "kk"}
OTHER = {"ru": "kk", "kk": "ru"}


@pytest.mark.parametrize(
    ("text", "status", "value", "how"),
    [
        ("русский", CHOSEN, "ru", "named"),
        ("не на русском", CHOSEN, "kk", "negation"),
        ("казахский не понимаю", CHOSEN, "ru", "negation"),
        ("казахский нет русский", CHOSEN, "ru", "correction"),
        ("на русском то есть на казахском", CHOSEN, "kk", "correction"),
        ("казакша емес орысша", CHOSEN, "ru", "named"),
        ("русский или казахский", AMBIGUOUS, None, "several named"),
        ("русский или казахский не знаю", AMBIGUOUS, None, "several named"),
        ("ни русский ни казахский", UNKNOWN, None, "only negated"),
        ("алло", UNKNOWN, None, "nothing named"),
    ],
)
def test_choose(text: str, status: str, value: str | None, how: str) -> None:
    c = _choice(text, LANG, OTHER)
    assert (c.status, c.value, c.how) == (status, value, how)


def test_without_a_complement_a_negation_names_nothing() -> None:
    c = _choice("не русский", LANG)
    assert c.status == UNKNOWN and c.rejected == ("ru",)


@pytest.mark.parametrize("word", ["билмеймин", "тусинбеймин", "коспаныз", "келмейди", "озгертпениз", "турмаймын"])
def test_kazakh_negative_verbs(word: str) -> None:
    assert kk_negative_verb(word)


@pytest.mark.parametrize("word", ["билемин", "косыныз", "келеди", "озгертиниз", "мамандар", "караганда"])
def test_kazakh_positive_forms_are_not_negative(word: str) -> None:
    assert not kk_negative_verb(word)
