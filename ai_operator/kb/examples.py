"""An article's example questions in its relevance score (pure, no I/O): a question worded the way a known caller
worded it is covered.

A knowledge-base entry may carry example questions (the JSONL line's optional "questions", ingest.py): ways
callers ask for it, as FAQ products keep "alternative questions". They are never read aloud (answers and the
sentence chosen come from the title and the text alone); they only count as what the article covers when
`Scorer.relevance` scores it. The right article is often the nearest one already, but under the gate, because the
caller's words are not the article's ("затащить интернет" for "Подключение домашнего интернета").

`by_examples`: the article's relevance is the better of its own and that of its nearest example with the title
("Подключение домашнего интернета. как затащить интернет в квартиру"), where an example counts only when it is
near from both sides:

- the question must hold at least `EXAMPLE_REVERSE` of the example's own weight (its terms read as a question's):
  among fifty examples some incidental word of some caller's ("карту поменял", "через каспи", "ночью") would
  otherwise cover the one word a near miss adds to the article's topic;
- what weighs more than a topic word (a product or company not ours, a word no candidate article has: unseen) is
  covered by the article's own text or not at all: a caller who once named a bank or a town does not make the
  article about them; except an unseen plain word ("коробочку", "хату") of an example the question holds nearly
  all of (`EXAMPLE_UNSEEN_REVERSE`): the very words a known caller used;
- a term only the example has (not the article) counts `EXAMPLE_WORD_FACTOR` of its weight: another caller's
  words vouch for the article less than its own, so a near miss that an example brings close stays under the gate;
- a question naming a place (a region or city) the article does not name is answered by the article alone: an
  example ("в караганде ночью интернет пропадает") does not make a national article about a region's works.

Measured on the labelled questions (tests/test_kb_relevance.py) with example questions from the in-scope lines of
the calibration, calibration-colloquial and held-out-2..9 splits (precision / recall / out-of-scope rejected):
held-out-10 (the development split, never an example) 0.894 / 0.685 / 0.924 -> 0.909 / 0.761 / 0.924; the blind
held-out-11 0.883 / 0.622 / 0.915 -> 0.890 / 0.665 / 0.915 and held-out 0.949 / 0.947 / 0.979 -> 0.948 / 0.956 /
0.969 (two more of its 192 near misses answered: under its floor, so the sample knowledge base ships without
examples). The pseudo-document design (every example's words added to the article's) and the nearest example
without the checks above lifted recall more but let a quarter to a half of the near misses through.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING

from ai_operator.kb.clauses import covered_share

if TYPE_CHECKING:
    from ai_operator.kb.relevance import DocTerms, Relevance, Scorer, Term

EXAMPLE_REVERSE = 0.7  # the share of an example's own weight the question must have for the example to count
EXAMPLE_UNSEEN_REVERSE = 0.9  # ... for a word no candidate article has (unseen) to be covered by the example
EXAMPLE_WORD_FACTOR = 0.8  # a question term the example has and the article lacks counts for this much of it
EXAMPLE_MAX_WEIGHT = 1.0  # question terms weighing more than a topic word are the article's own to cover


Probe = tuple[
    frozenset[str], frozenset[str], float
]  # a term's concepts, else its stem's prefixes; its weight


@dataclass(frozen=True)
class Example:
    """One example question of an article, read once: its terms as a question's (`probes`, total `weight`), and
    what it covers with the article's title (`doc`)."""

    probes: tuple[Probe, ...]
    weight: float
    doc: DocTerms


def _score(fixed: float, matched: list[tuple[Term, bool]], total: float) -> float:
    """The relevance when terms weighing `fixed` and `matched` (each with whether the article has it: an example's
    word weighs `EXAMPLE_WORD_FACTOR`) of the question's `total` are covered."""
    got = fixed + sum(t.weight * (1.0 if own else EXAMPLE_WORD_FACTOR) for t, own in matched)
    return covered_share(got, total)


def _probe(scorer: Scorer, term: Term) -> Probe:
    return term.names, frozenset() if term.names else frozenset(scorer.prefixes(term.key)), term.weight


def _has(doc: DocTerms, probe: Probe) -> bool:
    """As `relevance._has`, with the term's prefixes worked out once."""
    return not probe[0].isdisjoint(doc.concepts) if probe[0] else not probe[1].isdisjoint(doc.prefixes)


def read_examples(scorer: Scorer, title: str, examples: tuple[str, ...]) -> tuple[Example, ...]:
    """The examples of the article titled `title`, read by `scorer` (cached per article by `Scorer.examples_of`)."""
    out = []
    for example in examples:
        probes = tuple(_probe(scorer, t) for t in scorer.read_terms(example))
        out.append(Example(probes, sum(p[2] for p in probes), scorer.read_doc(f"{title}. {example}")))
    return tuple(out)


def by_examples(
    scorer: Scorer,
    question: str,
    title: str,
    text: str,
    base: Relevance,
    examples: Sequence[str],
    unseen: frozenset[str],
) -> Relevance:
    """`base` (the article's own relevance to `question`), or its relevance through its nearest example when that
    is higher (see the module docstring); the article's title and sentence shares stay its own."""
    if base.score >= 1.0:
        return base
    article = scorer.doc_terms(f"{title}. {text}")
    wanted = scorer.weighed(question, article, unseen)
    total = sum(t.weight for t in wanted)
    has, places = scorer.has, scorer.vocabulary.places
    if total <= 0 or any(t.names & places and not has(article, t) for t in wanted):
        return base
    own = [
        t for t in wanted if t.weight > EXAMPLE_MAX_WEIGHT and has(article, t)
    ]  # heavy: the article's alone
    light = [(t, _probe(scorer, t), has(article, t)) for t in wanted if t.weight <= EXAMPLE_MAX_WEIGHT]
    unseen_plain = [
        (t, _probe(scorer, t), False)
        for t in wanted
        if t.weight > EXAMPLE_MAX_WEIGHT and t.key in unseen and not has(article, t)
    ]
    if all(in_article for _, _, in_article in light) and not unseen_plain:
        return base  # what is missing, no example may cover
    fixed = sum(t.weight for t in own)
    asked = scorer.doc_terms(question)
    best, best_matched = base.score, None
    for example in scorer.examples_of(title, tuple(examples)):
        matched = [(t, in_article) for t, probe, in_article in light if _has(example.doc, probe)]
        rare = [(t, False) for t, probe, _ in unseen_plain if _has(example.doc, probe)]
        if _score(fixed, matched + rare, total) <= best or example.weight <= 0:
            continue
        said = sum(p[2] for p in example.probes if _has(asked, p)) / example.weight
        if said < EXAMPLE_REVERSE:
            continue  # the example says much the question does not: another caller's question
        matched += rare if said >= EXAMPLE_UNSEEN_REVERSE else []
        if (score := _score(fixed, matched, total)) > best:
            best, best_matched = score, [t for t, _ in matched]
    if best_matched is None:
        return base
    keys = {t.key for t in best_matched + own}
    return replace(
        base,
        score=round(best, 4),
        matched=tuple(t.key for t in wanted if t.key in keys),
        missing=tuple(t.key for t in wanted if t.key not in keys),
    )
