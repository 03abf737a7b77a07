"""Word normal forms for the relevance score (pure, no I/O after the dictionary is loaded): Russian lemmas from
pymorphy3 (the OpenCorpora dictionary, loaded once on first use), and Kazakh words through the suffix-aware
normaliser in `kazakh.py`.

`normal_forms(word)` gives the forms of one lower-case word to try against the lexicon, best first: the word,
then its Russian lemma (a word the dictionary knows and that has no Kazakh letter), else its Kazakh stem. Both
questions and articles go through it, so "проведите", "провести" and "провёл" are one term, and so are
"қосылғым", "қосылу" and "қосыламын". Results are cached per word (a phone question has a dozen words; articles
come back search after search).
"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

from ai_operator.kb.kazakh import _strip, is_kazakh, kazakh_stem

_MORPH: list[Any] = []  # the pymorphy3 analyser, made on first use (about 0.1 s; 15 MB)
PROPER = frozenset({"Name", "Surn", "Patr", "Geox", "Orgn"})  # a proper name's reading ("электр": "Электра") is no person
CONTENT_READING = 0.2  # the share of pymorphy3's parse scores a noun/adjective reading needs to win ("подать": a verb)
_CYRILLIC = frozenset("абвгдеёжзийклмнопрстуфхцчшщъыьэюя")


def _analyser() -> Any:
    if not _MORPH:
        import pymorphy3

        _MORPH.append(pymorphy3.MorphAnalyzer(lang="ru"))
    return _MORPH[0]


@lru_cache(maxsize=65536)
def _russian(word: str) -> tuple[str, str] | None:
    """(lemma, part of speech) of a Russian word the dictionary knows, from one analysis; None otherwise
    (pymorphy3's guesses for unknown words are not used: a Kazakh word is not a Russian one)."""
    if not word or not set(word) <= _CYRILLIC:
        return None
    morph = _analyser()
    if not morph.word_is_known(word):  # a dictionary lookup; parsing an unknown word would guess (slow)
        return None
    parses = morph.parse(word)
    tags = [str(p.tag.POS or "") for p in parses]
    pos = tags[0]
    for reading in ("NOUN", "ADJF"):  # a likely enough noun or adjective reading wins ("максимум": a tariff)
        if sum(p.score for p, t in zip(parses, tags, strict=True) if t == reading) >= CONTENT_READING:
            pos = reading
            break
    if pos == "ADJF" and "Apro" in parses[0].tag:  # "тот", "такой": a pronoun, whatever its form
        pos = "NPRO"
    return str(parses[0].normal_form).replace("ё", "е"), pos


def russian_lemma(word: str) -> str:
    """The dictionary form of a Russian word ("проведите" -> "провести"); `word` itself when the dictionary does
    not know it."""
    known = _russian(word)
    return known[0] if known else word


@lru_cache(maxsize=65536)
def russian_noun_reading(word: str) -> tuple[bool, frozenset[str]]:
    """Whether a Russian noun the dictionary knows is animate in its likeliest noun reading (a person: "бабушка",
    "соседи", "курьер"), and the cases its noun or adjective readings allow ("дачу": accusative); (False, {}) for
    any other word."""
    if russian_pos(word) not in ("NOUN", "ADJF"):
        return False, frozenset()
    readings = [p for p in _analyser().parse(word) if p.tag.POS in ("NOUN", "ADJF")]
    animate = next(("anim" in p.tag and not PROPER & p.tag.grammemes for p in readings if p.tag.POS == "NOUN"), False)
    return animate, frozenset(str(p.tag.case) for p in readings if p.tag.case)


def russian_pos(word: str) -> str:
    """The part of speech of a Russian word the dictionary knows (pymorphy3's OpenCorpora tag: NOUN, VERB, INFN,
    ADJF, ADVB, ...; a noun or adjective reading wins: "максимум" is a tariff's name before it is a particle);
    "" for a word it does not know (a Kazakh word, a name)."""
    known = _russian(word)
    return known[1] if known else ""


@lru_cache(maxsize=65536)
def normal_forms(word: str) -> tuple[str, ...]:
    """`word` (lower case, unfolded) and its normal form: the Russian lemma, or for a Kazakh word (or one the
    Russian dictionary does not know) its Kazakh stem."""
    known = None if is_kazakh(word) else _russian(word)
    other = known[0] if known else kazakh_stem(word)
    return (word,) if other == word else (word, other)


def clear_caches() -> None:
    """Forget every word analysed (benchmarks measure words new to the caches)."""
    _russian.cache_clear()
    russian_noun_reading.cache_clear()
    normal_forms.cache_clear()
    kazakh_stem.cache_clear()
    _strip.cache_clear()


def warm_up() -> None:
    """Load the dictionary now (the daemon calls this at start, so no caller waits for it)."""
    russian_lemma("интернет")
