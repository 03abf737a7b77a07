"""Labelled sets for the `kb calibrate` tests, made from the sample set (tests/data/kb_relevance.jsonl) by what the
real search gives each question: its best hit at every gate the calibration tries (`measure`), then sets whose
fitted gate is known to lie below or above the default one (`lower_set`, `higher_set`).

A question's answer at a gate is what a call answers (`calibration.answer`: the first hit passing it). A question
is `steady` when every gate that answers it answers with the same entry and the gates that do are all those up to
its `reach` (the highest gate tried that answers it; 0 for none); `right` when that entry is one it expects. In a
set of steady right questions and never-answered out-of-scope ones, precision and out-of-scope rejection are 1 at
every gate, so the rule picks the lowest reach; labelling some steady questions with another topic makes every
gate that answers them fail the precision floor.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, replace
from pathlib import Path

from ai_operator.dialogue import KnowledgeProfile, knowledge_profile
from ai_operator.kb import calibration as C
from ai_operator.kb.store import KnowledgeBase
from policies import load_policy
from policies.operator.kb_classifier import HELD_OUT
from tests.support import kb_gate as G

_profile = knowledge_profile(load_policy("operator"))  # with the policy's `asks`: asked as a call asks
assert _profile is not None and _profile.asks is not None
PROFILE: KnowledgeProfile = _profile
ASKS = _profile.asks
SPOKEN_REGIONS_TO_AVOID = ("KZ-75", "KZ-19")  # "Алматы" is asked back (city or region?)
RIGHT_MIN = 0.75  # the steady right questions a set is built on score at least this
LOW_BAND = (0.45, 0.60)  # questions scoring here are answered only below the default gate
MID_BAND = (0.60, RIGHT_MIN)  # ... and here only up to a gate a wrong label pushes up


@dataclass(frozen=True)
class Measured:
    item: G.Labelled
    entry: str  # the entry it is answered with ("" when no gate answers it)
    reach: float  # the highest gate tried that answers it (0.0: none)
    steady: bool
    right: bool

    @property
    def never_answered(self) -> bool:
        return not self.reach


async def measure(kb: KnowledgeBase, *, in_scope: int = 100, low: int = 3, mid: int = 6, outside: int = 30
                  ) -> list[Measured]:
    """The questions the policy's classifier never learnt (kb_classifier.HELD_OUT: those it learnt it answers at
    every gate) in file order, measured until there are `in_scope` steady right ones reaching `RIGHT_MIN` or more,
    `low` and `mid` in the bands, and `outside` never-answered out-of-scope ones."""
    out: list[Measured] = []
    counts = {"right": 0, "low": 0, "mid": 0, "outside": 0}
    for item in (i for i in G.load() if i.split in HELD_OUT):
        if counts["right"] >= in_scope and counts["low"] >= low and counts["mid"] >= mid and counts["outside"] >= outside:
            break
        ask = ASKS(item.q, item.lang, item.region)
        found = await kb.candidates(ask.query, ask.language, ask.scope, ask.limit, ask.fallback_languages,
                                    profile=PROFILE)
        answers = [C.answer(found.choose(g)[0]) if found is not None and found.rows else None for g in C.GATES]
        reached = [g for g, a in zip(C.GATES, answers, strict=True) if a is not None]
        entries = {a.entry_id for a in answers if a is not None}
        m = Measured(item, min(entries) if entries else "", max(reached, default=0.0),
                     len(entries) == 1 and reached == list(C.GATES[: len(reached)]),
                     bool(entries) and all(G.topic(e) in item.expect for e in entries))
        out.append(m)
        if item.in_scope and m.steady and m.right:
            counts["right"] += m.reach >= RIGHT_MIN
            counts["low"] += LOW_BAND[0] <= m.reach < LOW_BAND[1] and callable_question(m)
            counts["mid"] += MID_BAND[0] <= m.reach < MID_BAND[1] and callable_question(m)
        counts["outside"] += not item.in_scope and m.never_answered
    return out


def callable_question(m: Measured) -> bool:
    """A Russian question from a region a caller names without being asked back."""
    return m.item.lang == "ru" and m.item.region not in SPOKEN_REGIONS_TO_AVOID


def _pools(measured: list[Measured]) -> tuple[list[Measured], list[Measured], list[Measured], list[Measured]]:
    good = [m for m in measured if m.item.in_scope and m.steady and m.right]
    right = [m for m in good if m.reach >= RIGHT_MIN][:100]
    low = [m for m in good if LOW_BAND[0] <= m.reach < LOW_BAND[1] and callable_question(m)]
    mid = [m for m in good if MID_BAND[0] <= m.reach < MID_BAND[1]]
    outside = [m for m in measured if not m.item.in_scope and m.never_answered][:30]
    return right, low, mid, outside


def write(path: Path, items: list[G.Labelled]) -> Path:
    """`items` as a labelled file of one split, "calibration" (`kb calibrate`'s default)."""
    path.write_text("".join(json.dumps({"q": i.q, "lang": i.lang, "region": i.region, "expect": list(i.expect),
                                        "kind": i.kind, "split": "calibration"}, ensure_ascii=False) + "\n"
                            for i in items), encoding="utf-8")
    return path


def lower_set(measured: list[Measured]) -> tuple[list[G.Labelled], Measured]:
    """A set whose fitted gate is below the default: its lines and the question of the low band with the lowest
    reach (the gate the rule must pick: answered there, not at the default)."""
    right, low, mid, outside = _pools(measured)
    return [m.item for m in (*right, *low, *mid, *outside)], min(low, key=lambda m: m.reach)


def higher_set(measured: list[Measured], *, all_wrong: bool = False) -> tuple[list[G.Labelled], Measured]:
    """A set whose fitted gate is above the default: the mid band labelled with another topic, so a gate that
    answers them fails the precision floor (`all_wrong`: every in-scope question so, and no gate passes); with the
    question of the mid band a caller can ask that reaches least high."""
    right, _, mid, outside = _pools(measured)
    wrong = [replace(m.item, expect=(_other_topic(m),)) for m in (right + mid if all_wrong else mid)]
    kept = [] if all_wrong else [m.item for m in right]
    return [*kept, *wrong, *(m.item for m in outside)], min(filter(callable_question, mid), key=lambda m: m.reach)


def _other_topic(m: Measured) -> str:
    return next(t for t in ("mobile-roaming", "internet-tariffs") if t != G.topic(m.entry) and t not in m.item.expect)
