"""Choosing the hits of one knowledge-base search from its scored candidates at a relevance gate (pure, no I/O).

The store fetches and scores a search's candidates once (`KnowledgeBase.candidates`: one SQL statement, each
candidate's relevance); `Candidates.choose(gate)` then decides, for that gate, which language answers (the asked
one, or the fallback when only it has something relevant: kk -> ru), the order (an entry for the caller's scope
value that passes the gate first when it covers more than any entry for all) and whether the question named
another scope value's entry (then no hit at all). A search chooses at the gate in use (gate.py); `kb calibrate`
chooses at every gate it tries, from the same candidates, so what it measures is what a call gets.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from ai_operator.dialogue import KnowledgeHit
from ai_operator.kb.relevance import Relevance, Scorer

FALLBACK_MIN_SIMILARITY = 0.30  # below this (and no full-text match) the asked language's best is "not found"
FALLBACK_MARGIN = 0.2  # a fallback entry this much more relevant wins over a passing entry in the asked language
STRONG_SIMILARITY = 0.45  # a hit this close is kept even when the question has a word its language lacks
REGIONAL_BONUS = 0.3  # ordering only: an entry for the caller's scope value that passes the gate comes first


@dataclass(frozen=True)
class Candidates:
    """The scored candidates of one search: `rows` (the search statement's own rows, search_sql.py), their
    relevance by entry id (`scored`), that of the other scope values' entries the text matched (`elsewhere`), the
    asked `language` and its `fallback` (or None), the `scorer` and the number of hits wanted (`limit`);
    `stored_gate`: the gate calibrated for the embedder as the statement read it (gate.py; None: none); `judge`:
    the policy's classifier's say on the scores at a gate (classifier.judged; None: the scores as they are)."""

    rows: Sequence[tuple]
    scored: dict[str, Relevance]
    elsewhere: Sequence[Relevance]
    language: str
    fallback: str | None
    scorer: Scorer
    limit: int
    stored_gate: str | None = None
    judge: Callable[[Mapping[str, Relevance], float], dict[str, Relevance]] | None = None

    def choose(self, gate: float) -> tuple[list[KnowledgeHit], Relevance | None]:
        """The hits at `gate`, most relevant first, and the other scope value's entry the question is about (then
        no hits), if any."""
        scored = self.judge(self.scored, gate) if self.judge else dict(self.scored)
        rel = {k: v.score for k, v in scored.items()}
        primary = [r for r in self.rows if r[5] == self.language]
        hits_rows, is_fallback = primary, False
        if self.fallback:
            other = [r for r in self.rows if r[5] == self.fallback]
            if other and _falls_back(primary, other, rel, self.language, self.fallback, gate):
                hits_rows, is_fallback = other, True
        national = max((rel[r[0]] for r in hits_rows if not r[11]), default=0.0)
        hits_rows = sorted(hits_rows, key=lambda r: (-_rank(scored[r[0]], r[11], national, gate), -r[4], r[0]))
        named = _other_region_match(scored[hits_rows[0][0]] if hits_rows else None, self.elsewhere,
                                    self.scorer, gate)
        if named is not None:
            return [], named
        return [KnowledgeHit(entry_id=r[0], title=r[1], source=r[2], text=r[3], score=round(float(r[4]), 6),
                             language=r[5], fallback=is_fallback, relevance=rel[r[0]], gate=gate)
                for r in hits_rows[: self.limit]], None


def _rank(hit: Relevance, regional: bool, national: float, gate: float) -> float:
    """The ordering key of a candidate: its relevance rank, plus `REGIONAL_BONUS` for an entry written for the
    caller's scope value (the search only brings those and the ones for all) that passes the gate and covers more
    of the question than any entry for all (`national`, the best of their scores): "наурызда интернет өшеді ме"
    from Karaganda is about the works planned there, more than about a lost connection."""
    bonus = regional and hit.score >= gate and hit.score > national
    return hit.rank + (REGIONAL_BONUS if bonus else 0.0)


def _other_region_match(best: Relevance | None, elsewhere: Sequence[Relevance], scorer: Scorer,
                        gate: float) -> Relevance | None:
    """The other scope value's article the question is about, if any: it passes the gate, is at least as relevant
    as the best own hit (`best`), and matched a place the question names (the scorer's) that `best` did not."""
    own = best.score if best else 0.0
    own_places = set(best.matched) if best else set()
    for other in sorted(elsewhere, key=lambda r: -r.score):
        if other.score >= max(gate, own) and any(
                scorer.is_place(t) and t not in own_places for t in other.matched):
            return other
    return None


def _falls_back(primary: list, other: list, rel: dict[str, float], language: str, fallback: str,
                gate: float) -> bool:
    """Answer from the fallback language: its best entry passes the relevance gate and the asked language's
    best does not (or is clearly worse); when neither passes, by the ranking signals (`_weak`, `_foreign_topic`)."""
    best = max((rel[r[0]] for r in primary), default=0.0)
    best_other = max(rel[r[0]] for r in other)
    if best_other >= gate:
        return best < gate or best_other - best >= FALLBACK_MARGIN
    if best >= gate:
        return False
    return _weak(primary) or _foreign_topic(primary, other, language, fallback)


def _foreign_topic(primary: list, other: list, language: str, fallback: str) -> bool:
    """The question names a topic word that the best `fallback` hit contains but no `language` candidate does
    (e.g. a Kazakh question about roaming when only Russian entries cover roaming), and the best `language` hit
    is not a close match anyway."""
    present = set(other[0][9] or ())
    foreign = {t for t in other[0][8] if f"{language} {t}" not in present}
    best_sim = max((r[6] or 0.0) for r in primary) if primary else 0.0
    return bool(foreign) and best_sim < STRONG_SIMILARITY


def _weak(rows: list) -> bool:
    """No result, or none matched a topic word and the nearest is far (cosine similarity below threshold)."""
    if not rows:
        return True
    if any(r[7] for r in rows):
        return False
    return max((r[6] or 0.0) for r in rows) < FALLBACK_MIN_SIMILARITY
