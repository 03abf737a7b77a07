"""A question's clauses for the relevance score (pure, no I/O): which of its terms are only background.

A caller often tells a story before asking ("мы купили квартиру | как провести интернет"). `background(scorer,
question)` cuts the question into clauses: one opens at a lexicon `CLAUSE_OPENERS` word and after a word the
`WordAnalysis` reads as closing one (`ends_clause`: a Kazakh finite verb). The question's focus is its LAST clause
that names a topic of ours (a concept of `TOPIC_WEIGHT`); the clauses before it are the background, when they are
a clause (`CONTEXT_MIN_WORDS` words with a verb, or `CONTEXT_VERBLESS_WORDS` words). The keys of the question's
terms found only there are returned; `relevance.Scorer` weighs them `CONTEXT_FACTOR` when the article lacks them.
"""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ai_operator.kb.relevance import Scorer

CONTEXT_MIN_WORDS = 3  # a background clause has at least so many words and a verb (`CLAUSE_VERBS`, or a verb form)
CONTEXT_VERBLESS_WORDS = 5  # ... or at least so many ("у меня ребёнок школьник онлайн уроки")
CLAUSE_VERBS = frozenset({"VERB", "INFN", "GRND", "PRTS"})
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def sentences(text: str) -> list[str]:
    """The sentences of an article (split after . ! ? …); the relevance score's unit of an answer."""
    return [s for s in _SENTENCE_END.split(" ".join((text or "").split())) if s]


CONTEXT_FACTOR = 0.25  # a term only in a clause before the question's focus: background
TOPIC_WEIGHT = 1.0  # a concept at least this heavy is a topic of ours; what matched must weigh this much ...
TOPICLESS_FACTOR = 0.5  # ... else the relevance is halved (relevance.py, examples.py)


def covered_share(got: float, total: float) -> float:
    """The relevance when question terms weighing `got` of `total` are covered: halved when what matched weighs
    less than one topic word (an article that only shares "price" or a city does not answer)."""
    return got / total if got >= TOPIC_WEIGHT else TOPICLESS_FACTOR * got / total


def background(scorer: Scorer, question: str) -> frozenset[str]:
    """The keys of the question's terms that only its background has (see the module docstring)."""
    vocabulary, words_analysis = scorer.vocabulary, scorer.words
    words = vocabulary.fold_words(question)
    raw = vocabulary.raw_words(question)
    if len(raw) != len(words):
        raw = words
    starts = sorted({i for i, w in enumerate(words) if i and w in vocabulary.clause_openers}
                    | {i + 1 for i, w in enumerate(raw[:-1]) if words_analysis.ends_clause(w)}, reverse=True)
    for start in starts:
        if start < CONTEXT_MIN_WORDS or (start < CONTEXT_VERBLESS_WORDS and not any(
                words_analysis.ends_clause(w) or words_analysis.dictionary_pos(w) in CLAUSE_VERBS
                for w in raw[:start])):
            continue  # a background is a clause: a few words with a verb ("мы купили квартиру")
        focus = scorer.terms(" ".join(raw[start:]))
        if any(t.names and t.weight >= TOPIC_WEIGHT for t in focus):
            keys = {t.key for t in focus}
            names = {n for t in focus for n in t.names}
            return frozenset(t.key for t in scorer.terms(question)
                             if t.key not in keys and (not t.names or t.names.isdisjoint(names)))
    return frozenset()
