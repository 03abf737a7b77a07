"""The labelled questions of the knowledge-base relevance gate (tests/data/kb_relevance.jsonl) and its figures.

Each line: `q` (an ASR-style question), `lang` (the caller's language), `region`, `expect` (the topics that answer
it: an entry id without its language prefix, e.g. "internet-tariffs"; empty = out of scope), `kind` and `split`.
The lexicon and the threshold were tuned on the "calibration" lines only; the "held-out" lines were written after
that, in other words, and were never tuned on: their figures are what to expect from new questions. The
"held-out-2" lines (91, ru+kk) were written after the third round of tuning (hH-kb-recall2), before they were
ever run, and are reported apart; so are the "held-out-3" lines (97, ru+kk), written after the fourth round
(hO-kb-round3) and run once; and the "held-out-4" lines (173, ru+kk, a quarter out of scope), written before the
fifth round (hT-kb-round4) changed anything and run once before it; that round's own phrasing sets (202, at least
20 per failure class, ru+kk) are calibration lines; the "held-out-5" lines (68, ru+kk) were written after that
round's last change and before they were ever run; the sixth round's (j2-kb-round5) phrasing sets (160, at least 20
per failure class of held-out-5, ru+kk, in scope and near misses) are calibration lines; the "held-out-6" lines
(183, ru+kk, a quarter out of scope, mostly near misses) were written during that round, independently of it, and
run once before and once after it; the seventh round's (j8-kb-context) 70 lines of questions with heavy side
context (who, why, family, a trip, a purchase; ru+kk, 46 in scope, 24 near misses) are calibration lines; the
"held-out-7" lines (209, ru+kk, a quarter out of scope, mostly near misses) were written during that round,
independently of it (without reading the lexicon, the query code or the other lines), and run once before and
once after it; the "held-out-8" lines (218, ru+kk, a quarter out of scope, mostly near misses) were written
before they were ever run, independently of the tuning (without reading the lexicon, the query code or the other
lines); so were the "held-out-9" lines (269, ru 164 / kk 105, 63 out of scope, mostly near misses; k8-heldout9),
written before they were ever run, independently of the tuning and of the held-out-8 and colloquial lines; so
were the "held-out-10" lines (288, ru 177 / kk 111, 66 out of scope, mostly near misses; m1-heldout10), written
blind (from the articles and the region names only) while the m2 tuning round ran, and run once before it
(0.884 / 0.617 / 0.909) and once after; so were the "held-out-11" lines (301, ru 181 / kk 120, 71 out of
scope, mostly near misses), written blind by m3-heldout11 while the m4 tuning round ran; so were the
"held-out-12" lines (290, ru 175 / kk 115, 70 out of scope, mostly near misses), written blind (from the
articles and the region names only) by m6-heldout12 while the m5 example-questions round ran; so were the
"held-out-13" lines (288, ru 171 / kk 117, 72 out of scope, mostly near misses), written blind (from the articles
and the region names only) by m7-heldout13 while the m8 near-miss confirmation round ran, before they were ever
run. So were the "held-out-14" lines (281, ru 170 / kk 111, 65 out of scope, mostly near misses), written blind
(from the articles and the region names only) by m8-heldout14 while a tuning round on held-out-13 ran. So were
the "held-out-15" lines (287, ru 177 / kk 110, 65 out of scope, mostly near misses), written blind (from the
articles and the region names only) by m10-heldout15 while the held-out-13 tuning round was being checked. So
were the "held-out-16" lines (293, ru 178 / kk 115, 68 out of scope, mostly near misses), written blind (from the
articles and the region names only) by m13-heldout16 while a blind check of the fourth round ran. So were
the "held-out-17" lines (296, ru 179 / kk 117, 66 out of scope, mostly near misses), written blind (from the
articles and the region names only) by m16-heldout17 while a blind check of the fifth round ran. So were
the "held-out-18" lines (319, ru 191 / kk 128, 75 out of scope, mostly near misses), written blind (from the
articles and the region names only) by m20-heldout18 while a blind check of the fifth round ran. So were the
"held-out-19" lines (317, ru 191 / kk 126, 78 out of scope, mostly near misses), written blind (from the
articles and the region names only) by m25-heldout19 while a blind check of the fifth round ran. So were the
"held-out-20" lines (315, ru 187 / kk 128, 76 out of scope, mostly near misses), written blind (from the
articles and the region names only) by m26-heldout20 while a blind check of the sixth round ran. So were the
"held-out-21" lines (324, ru 199 / kk 125, 76 out of scope, mostly near misses), written blind (from the
articles and the region names only) by m27-heldout21 while a blind check of the sixth round ran. So were the
"held-out-22" and "held-out-23" lines (320 and 323, ru 191 / kk 129 and ru 183 / kk 140, 75 and 78 out of scope),
written blind by two helpers while the question classifier (policies/operator/kb_classifier.py) was being built,
and the "held-out-24" lines (321, ru 193 / kk 128, 77 out of scope), written blind after it was, and run once
before anything was changed for them. The classifier learns every split but these five and "held-out"
(`kb_classifier.HELD_OUT`). The "calibration-near-misses" and "calibration-near-misses-2" lines (420 and 320, all
out of scope: questions that borrow an article's words or a question's shape about things not ours: another
operator, a TV programme, a gas bill, a printer, a lottery SMS) were written blind, as training lines for the
classifier's out-of-scope class. The
"calibration-colloquial" lines (71, ru 42 / kk 29; k2-kb-semantic: 48 in scope asked in words
neither the articles nor the lexicon use, "затащить интернет", "расценки на домашку", 23 near misses in the same
words) are tuning lines that no mechanism answers yet (10 of 48 before the round, 15 with word vectors, which were
not kept): they are reported apart and hold no floor, so they do not pull the calibration split's recall floor
down until a mechanism answers them; move them into "calibration" then. The "calibration-situations" lines (173,
ru 99 / kk 74; m9-classes) are the phrasing sets of the held-out-13 round's seven classes (a place abroad by
name, services and bills not ours, speed slang, Kazakh verbs of our actions, watching later, paying at a cash desk,
long stories), written from the class descriptions without reading the lexicon, after the round's first change:
reported apart, they say how much of each class the round reached. Tune on none of the held-out lines.

A question counts as answered when the best hit's relevance reaches the threshold; an answer is correct when that
hit's topic is expected. Precision = correct answers / answers; recall = correct answers / in-scope questions.
Below the threshold, a best hit in the near band (`confirmation.CONFIRM_SHARE` of it) is offered to the caller
("do you mean ...?") and read out only after a yes: "after a yes" counts those offers that name an expected topic
as answers too (the caller confirms them), and "asked" is the share of out-of-scope questions that hear the offer
once (and answer no); neither is part of precision, recall or rejection, which are what is answered unasked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from policies.operator.confirmation import CONFIRM_SHARE
from policies.operator.kb_query import knowledge_query

LABELLED = Path(__file__).resolve().parent.parent / "data" / "kb_relevance.jsonl"
SPLITS = (
    "calibration",
    "held-out",
    "held-out-2",
    "held-out-3",
    "held-out-4",
    "held-out-5",
    "held-out-6",
    "held-out-7",
    "held-out-8",
    "held-out-9",
    "held-out-10",
    "held-out-11",
    "held-out-12",
    "held-out-13",
    "held-out-14",
    "held-out-15",
    "held-out-16",
    "held-out-17",
    "held-out-18",
    "held-out-19",
    "held-out-20",
    "held-out-21",
    "held-out-22",
    "held-out-23",
    "held-out-24",
    "calibration-colloquial",
    "calibration-situations",
    "calibration-near-misses",
    "calibration-near-misses-2",
)


@dataclass(frozen=True)
class Labelled:
    q: str
    lang: str
    region: str
    expect: tuple[str, ...]
    kind: str
    split: str

    @property
    def in_scope(self) -> bool:
        return bool(self.expect)


def load() -> list[Labelled]:
    rows = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [Labelled(r["q"], r["lang"], r["region"], tuple(r["expect"]), r["kind"], r["split"]) for r in rows]


def asked(item: Labelled) -> str:
    """The question as the operator policy asks the knowledge base (places named become their region)."""
    return knowledge_query(item.q, item.lang)


def topic(entry_id: str) -> str:
    return entry_id.split("-", 1)[1]


@dataclass(frozen=True)
class Outcome:
    """A labelled question and the knowledge base's best hit for it (topic and relevance; "" / 0.0 if none)."""

    item: Labelled
    best_topic: str
    best_relevance: float
    fallback: bool


@dataclass(frozen=True)
class Figures:
    threshold: float
    in_scope: int
    out_of_scope: int
    answered: int
    correct: int
    false_answers: int  # out-of-scope questions answered
    wrong_topic: int  # in-scope questions answered with another topic
    confirmed: int = 0  # in-scope questions offered an expected topic in the near band (answered after a yes)
    out_asked: int = 0  # out-of-scope questions offered a topic in the near band (one "no" more)

    @property
    def precision(self) -> float:
        return self.correct / self.answered if self.answered else 1.0

    @property
    def recall(self) -> float:
        return self.correct / self.in_scope if self.in_scope else 1.0

    @property
    def rejection(self) -> float:
        """Share of out-of-scope questions that got no answer."""
        return 1 - self.false_answers / self.out_of_scope if self.out_of_scope else 1.0

    def f(self, beta: float = 0.5) -> float:
        p, r = self.precision, self.recall
        return (1 + beta**2) * p * r / (beta**2 * p + r) if p + r else 0.0

    def line(self, name: str) -> str:
        return (
            f"{name}: threshold {self.threshold:.2f}  precision {self.precision:.3f}  recall {self.recall:.3f}  "
            f"out-of-scope rejected {self.rejection:.3f}  (in-scope {self.in_scope}, out-of-scope "
            f"{self.out_of_scope}, answered {self.answered}, correct {self.correct}, wrong topic "
            f"{self.wrong_topic}, out-of-scope answered {self.false_answers}); after a yes to a near article: "
            f"recall {self.recall_after_yes:.3f}, out-of-scope asked {self.asked_share:.3f}"
        )

    @property
    def recall_after_yes(self) -> float:
        return (self.correct + self.confirmed) / self.in_scope if self.in_scope else 1.0

    @property
    def asked_share(self) -> float:
        return self.out_asked / self.out_of_scope if self.out_of_scope else 0.0


def figures(outcomes: Sequence[Outcome], threshold: float) -> Figures:
    answered = [o for o in outcomes if o.best_topic and o.best_relevance >= threshold]
    correct = [o for o in answered if o.best_topic in o.item.expect]
    near = [o for o in outcomes if o.best_topic and CONFIRM_SHARE * threshold <= o.best_relevance < threshold]
    return Figures(
        threshold=threshold,
        in_scope=sum(o.item.in_scope for o in outcomes),
        out_of_scope=sum(not o.item.in_scope for o in outcomes),
        answered=len(answered),
        correct=len(correct),
        false_answers=sum(not o.item.in_scope for o in answered),
        wrong_topic=sum(o.item.in_scope and o.best_topic not in o.item.expect for o in answered),
        confirmed=sum(o.best_topic in o.item.expect for o in near),
        out_asked=sum(not o.item.in_scope for o in near),
    )


def calibrate(outcomes: Sequence[Outcome], beta: float = 0.5) -> tuple[float, list[float]]:
    """The threshold (on a 0.05 grid) with the best F-beta (precision weighs more: a wrong answer costs more
    than an offered specialist), and every threshold within 0.01 of that best score (the plateau)."""
    grid = [round(0.05 * k, 2) for k in range(1, 20)]
    scores = {t: figures(outcomes, t).f(beta) for t in grid}
    top = max(scores.values())
    plateau = [t for t in grid if scores[t] >= top - 0.01]
    best = max(grid, key=lambda t: (scores[t], -abs(t - sum(plateau) / len(plateau))))
    return best, plateau
