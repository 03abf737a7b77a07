"""A region's name as a speech recogniser mis-writes it (pure, no I/O): one letter off ("павладар", "шимкент",
"астона", "усть каменагорск"), split in two ("петро павловск", "жез казган", "ақ төбе", "уст каменогорск") or a
Kazakh plural demonym ("ақтөбеліктерміз", "қарағандылықтармыз": we are from Aktobe, from Karaganda).

`final_i_written(words)` reads a final "й" written "и" ("кордаи", "абаи"), `region_word_written(words)` "облыс"
written "обылыс".

`respelled(words)` gives the folded words with such a name written as a region alias writes it (its case ending
kept), or None when there is none; the resolver (regions.py) reads the words again with it only when nothing was
found as said. Only the regions' own names and large towns are guessed (never a district's or a village's, which
count only beside "село" or "ауданы"), and never one shorter than `MIN_STEM` letters ("тараз", "орал"): too many
ordinary words lie near them. Unstressed vowels a recogniser writes either way count alike ("павладор", "кизилорда":
`_skeleton`); beyond that, a name of `MIN_NEAR` letters may be one letter off. Names are looked up by their first
and by their last three letters (one edit leaves one of the two as it is).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from policies.operator.region_data import OWN_ALIASES, SUFFIX_MAX

MIN_STEM = 6  # letters a name must have to be read from words split apart ("ақ төбе")
MIN_NEAR = 7  # ... and from a word one letter off ("шимкент")
MIN_SECOND = 3  # letters of the second word a name split in two must take ("петро павловск", not "денисов звонил")
MAX_JOINED = 2  # words an ASR may have split a name into
_PLAIN = re.compile(r"[а-яa-z ]+")
# "-лық-тар-мыз": a plural demonym with the copula ("актобеликтермиз"): the place is what comes before it
_DEMONYM = re.compile(r"(?:лык|лик|дык|дик|тык|тик)(?:тар|тер|лар|лер|дар|дер)(?:мыз|миз|быз|биз|пыз|пиз)?$")


def _names() -> dict[str, str]:
    """Each plain alias of `MIN_STEM` letters or more, without its spaces, -> the alias as written ("устькаменогорск"
    -> "усть каменогорск"); aliases with a pattern or a region word ("обл*") are left to the resolver."""
    out: dict[str, str] = {}
    for aliases in OWN_ALIASES.values():
        for alias in aliases:
            body = alias.removesuffix("*")
            if alias.startswith("re:") or "*" in body or "обл" in body or not _PLAIN.fullmatch(body):
                continue
            joined = body.replace(" ", "")
            if len(joined) >= MIN_STEM:
                out.setdefault(joined, body)
    return out


# Unstressed Russian vowels sound alike and a recogniser writes either ("павладор", "петрапавловск"), and "ы" is
# heard "и" ("кизилорда"): names are compared by their vowel classes
_VOWEL_CLASS = str.maketrans({"о": "а", "е": "и", "я": "и", "ы": "и"})  # akanye, ikanye; "ы" heard "и"


def _skeleton(word: str) -> str:
    return word.translate(_VOWEL_CLASS)


def _by(part: slice) -> dict[str, tuple[str, ...]]:
    index: dict[str, list[str]] = {}
    for joined in _NAMES:
        index.setdefault(_skeleton(joined)[part], []).append(joined)
    return {k: tuple(sorted(v)) for k, v in index.items()}


_NAMES = _names()
_EDGE = 3  # one edit leaves a name's first or last letters as they are: names are looked up by both
_BY_HEAD, _BY_TAIL = _by(slice(None, _EDGE)), _by(slice(-_EDGE, None))
_LENGTHS = frozenset(len(n) for n in _NAMES)


def one_edit(a: str, b: str) -> bool:
    """`a` and `b` differ by at most one letter inserted, dropped or replaced."""
    if abs(len(a) - len(b)) > 1:
        return False
    i = 0
    while i < min(len(a), len(b)) and a[i] == b[i]:
        i += 1
    return a[i + 1 :] == b[i + 1 :] or a[i:] == b[i + 1 :] or a[i + 1 :] == b[i:]


def _name_in(word: str, lowest: int, split: bool) -> tuple[str, str] | None:
    """(the alias, the ending after it) when `word` starts with a name (its first `lowest` letters at least) as
    written or one edit away (`MIN_NEAR` letters or more), its ending at most `SUFFIX_MAX` letters; the longest
    such start wins, the name as written before one a letter off; a name of two words ("бас қала") only from two
    words (`split`)."""
    for cut in range(len(word), max(MIN_STEM - 1, lowest, len(word) - SUFFIX_MAX) - 1, -1):
        start = word[:cut]
        if start in _NAMES:
            return _NAMES[start], word[cut:]
        if cut < MIN_STEM or not any(abs(cut - n) <= 1 for n in _LENGTHS):
            continue
        skeleton = _skeleton(start)
        for name in (*_BY_HEAD.get(skeleton[:_EDGE], ()), *_BY_TAIL.get(skeleton[-_EDGE:], ())):
            if not (split or " " not in _NAMES[name]):
                continue
            if _skeleton(name) == skeleton or (len(name) >= MIN_NEAR and one_edit(start, name)):
                return _NAMES[name], word[cut:]  # vowels alike ("павладор"), or one letter off ("шимкент")
    return None


@lru_cache(maxsize=1024)
def _respelled(words: tuple[str, ...]) -> tuple[str, ...] | None:
    out: list[str] = []
    changed = False
    i = 0
    while i < len(words):
        word = words[i]
        plain = _DEMONYM.sub("", word) if len(word) > MIN_STEM else word
        for n in range(MAX_JOINED, 0, -1):
            if i + n > len(words):
                continue
            joined = plain if n == 1 else "".join(words[i : i + n])
            hit = _name_in(joined, 0 if n == 1 else len(joined) - len(words[i + n - 1]) + MIN_SECOND, n > 1)
            if hit is None or (n == 1 and joined.startswith(hit[0].replace(" ", "")) and plain == word):
                continue  # nothing, or the name as said: the resolver has read it already
            out.append(hit[0] + hit[1])
            changed = True
            i += n
            break
        else:
            out.append(word)
            i += 1
    return tuple(out) if changed else None


def respelled(words: Sequence[str]) -> list[str] | None:
    """`words` (folded) with a mis-written region name respelled as its alias, or None (see the module docstring)."""
    found = _respelled(tuple(words))
    return None if found is None else list(found)


_SHORT_I = re.compile(r"(?<=[аеоуыя])и$")  # "костанаи", "семеи", "абаи": a final "й" written "и"
_REGION_WORD = re.compile(r"^обылыс")  # "обылысы": "облысы" with a vowel heard between


def _changed(words: Sequence[str], out: list[str]) -> list[str] | None:
    return out if out != list(words) else None


def region_word_written(words: Sequence[str]) -> list[str] | None:
    """`words` (folded) with "облыс" an ASR wrote "обылыс" ("алматы обылысы"), or None when there is none."""
    return _changed(words, [_REGION_WORD.sub("облыс", w) for w in words])


def final_i_written(words: Sequence[str]) -> list[str] | None:
    """`words` (folded) with a final "й" an ASR wrote "и" after a vowel ("кордаи", "абаи"), or None when there is
    none (the resolver reads them again only when nothing was found as said: "мои" stays "мои")."""
    return _changed(words, [_SHORT_I.sub("й", w) if len(w) >= 4 else w for w in words])
