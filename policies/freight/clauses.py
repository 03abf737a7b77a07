"""The clause structure of one vendor turn: self-correction and negation scope, over spelling keys.

Owns
- `last_clause`: what a self-correcting vendor finally says. A correction marker ("नहीं नहीं", "na na", "no no",
  "मतलब"/"matlab", "यानी", "बल्कि", "sorry"/"सॉरी", "I mean", "actually") starts a new clause and the last clause
  wins ("kal phone karna, nahi nahi, abhi bolo" is "abhi bolo"); a marker at the very end corrects nothing.
- `negated`: whether a phrase found at tokens[i:j] is in a negator's scope. Hindi puts the negator after what it
  negates ("busy नहीं हूं", "बाद में मत करना", "ग़लत नंबर नहीं है"), English before it ("not busy", "don't call
  later"). A negator before a Hindi phrase answers the question instead ("नहीं, बाद में करना" is still later);
  a clause-final "ना" is the emphatic particle ("busy हूं ना"), not a negator.
- `find`: phrase matching on key tuples, indexed by first word, with the negation check when asked.
Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from policies.freight.spelling import key, keys

Phrase = tuple[str, ...]
Table = dict[str, tuple[Phrase, ...]]  # first word -> phrases starting with it


def table(*phrases: str) -> Table:
    """A phrase table: each phrase as spelling keys, grouped by first word for lookup by token."""
    grouped: dict[str, list[Phrase]] = {}
    for p in phrases:
        k = keys(p)
        if k:
            grouped.setdefault(k[0], []).append(k)
    return {first: tuple(sorted(v, key=len, reverse=True)) for first, v in grouped.items()}


def _set(*words: str) -> frozenset[str]:
    return frozenset(key(w) for w in words)


# Negators. Hindi ones scope backwards (over what precedes them); English ones forwards.
HINDI_NEGATORS = _set("नहीं", "नही", "मत", "ना", "nahi", "nahin", "nhi", "nai", "mat", "na", "naa", "नइ", "नई", "नईं",
                       "नइं", "नहिं", "नहि", "नाहीं", "नाही", "naahi", "nahee", "nahi'n")
# "ना" negates before a verb ("बाद में ना करना") but is the emphatic particle at a clause's end ("busy हूं ना").
WEAK_NEGATORS = _set("ना", "na", "naa")
ENGLISH_NEGATORS = _set("not", "don't", "dont", "never", "no", "isn't", "aren't", "can't", "cannot", "won't")
NEGATORS = HINDI_NEGATORS | ENGLISH_NEGATORS
HINDI_SCOPE = 3  # a Hindi negator up to this many words after the phrase ("busy तो नहीं हूं")
ENGLISH_SCOPE = 2  # an English negator up to this many words before it ("i am not really busy")
CLAUSE_BREAKS = _set("लेकिन", "पर", "but", "magar", "मगर", "lekin", "par", "और", "aur", "and")

CORRECTIONS = table(
    "मतलब", "matlab", "यानी", "yani", "yaani", "बल्कि", "balki", "sorry", "सॉरी", "i mean", "actually",
    "एक्चुअली", "नहीं नहीं", "nahi nahi", "nahin nahin", "na na", "no no", "नही नही", "ना ना",
)  # fmt: skip


def find_all(tokens: Sequence[str], phrases: Table) -> Iterable[tuple[int, int]]:
    """(start, end) of every phrase occurrence in `tokens` (longest phrase first at each position)."""
    n = len(tokens)
    for i, tok in enumerate(tokens):
        for phrase in phrases.get(tok, ()):
            m = len(phrase)
            if m == 1 or (i + m <= n and tuple(tokens[i : i + m]) == phrase):
                yield i, i + m
                break


def negated(tokens: Sequence[str], i: int, j: int) -> bool:
    """Whether tokens[i:j] is in a negator's scope (see the module docstring)."""
    for k in range(j, min(len(tokens), j + HINDI_SCOPE)):
        if tokens[k] in CLAUSE_BREAKS:
            break
        if tokens[k] in HINDI_NEGATORS:
            emphatic = tokens[k] in WEAK_NEGATORS and (k + 1 >= len(tokens) or tokens[k + 1] in CLAUSE_BREAKS)
            if not emphatic:
                return True
    for k in range(i - 1, max(-1, i - 1 - ENGLISH_SCOPE), -1):
        if tokens[k] in CLAUSE_BREAKS:
            break
        if tokens[k] in ENGLISH_NEGATORS and tokens[k] not in HINDI_NEGATORS:
            return True
    return False


def find(tokens: Sequence[str], phrases: Table, *, negation: bool = False) -> bool:
    """Whether a phrase of the table occurs in `tokens`; with `negation`, only an occurrence nobody negated."""
    return any(not negation or not negated(tokens, i, j) for i, j in find_all(tokens, phrases))


# After "sorry", these make it an apology, not a correction: "ramesh speaking, sorry about that", "sorry ji"
APOLOGY_AFTER = _set("about", "for", "to", "ji", "जी", "sir", "सर", "madam", "मैडम", "bhai", "भाई", "yaar", "boss")
_SORRY = frozenset(key(w) for w in ("sorry", "सॉरी"))


def last_clause(tokens: Sequence[str]) -> list[str]:
    """The tokens after the last self-correction marker (all of them when there is none, or nothing follows); a
    "sorry" that apologises ("sorry about that", "sorry ji") corrects nothing."""
    cut = 0
    for i, j in find_all(tokens, CORRECTIONS):
        if j < len(tokens) and not (tokens[i] in _SORRY and tokens[j] in APOLOGY_AFTER):
            cut = j
    return list(tokens[cut:])


def corrected(tokens: Sequence[str]) -> bool:
    """Whether the turn corrects itself somewhere."""
    return any(True for _ in find_all(tokens, CORRECTIONS))


def negated_spans(tokens: Sequence[str], *tables: Table) -> list[tuple[int, int]]:
    """Spans of every negated phrase of `tables` together with its negator ("busy नहीं", "ग़लत नंबर नहीं",
    "not busy"), merged, in order: a negator spent on a phrase is no "no" answer of its own."""
    spans = []
    for tab in tables:
        for i, j in find_all(tokens, tab):
            if negated(tokens, i, j):
                after = [k for k in range(j, min(len(tokens), j + HINDI_SCOPE)) if tokens[k] in NEGATORS]
                spans.append((i, after[0] + 1) if after else (max(0, i - ENGLISH_SCOPE), j))
    merged: list[tuple[int, int]] = []
    for i, j in sorted(spans):
        if merged and i < merged[-1][1]:
            merged[-1] = (merged[-1][0], max(j, merged[-1][1]))
        else:
            merged.append((i, j))
    return merged
