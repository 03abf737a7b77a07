"""What morphology costs per knowledge-base turn: the relevance of one caller question against the candidate
articles a search re-ranks (10 of the asked language, 3 of other regions), with the question's words new to
the morphology caches each turn (the Russian lemma from pymorphy3, the Kazakh stem), the articles' terms cached
as in the daemon; then the policy's part, picking the sentences that answer (`answers.answer_text`, a policy
decision: budget p99 < 1 ms). Also the first-use load of the pymorphy3 dictionary. The collector is paused while
timing, as the daemon's paced GC never runs inside a turn. `python -m benchmarks.morphology_bench`;
`run() -> dict`. Times are the thread's CPU time (what a turn costs the event loop, not what a loaded box's
scheduler adds). Budget: p99 per turn < 8 ms (the search itself: kb_bench, p95 < 25 ms)."""

from __future__ import annotations

import gc
import json
import random
import time
from pathlib import Path
from typing import Any

from ai_operator.kb import morphology
from ai_operator.stats import percentile
from policies.operator.answers import answer_text
from policies.operator.knowledge import SCORER as relevance

REPO = Path(__file__).resolve().parent.parent
LABELLED = REPO / "tests" / "data" / "kb_relevance.jsonl"
SAMPLE = REPO / "etc" / "kb" / "sample.jsonl"
P99_BUDGET_MS = 8.0
ANSWER_P99_BUDGET_MS = 1.0
CANDIDATES = 13  # store.RERANK_POOL of the asked language + search_sql.OTHER_REGION_CANDIDATES
SEED = 5


def _clear_word_caches() -> None:
    morphology.clear_caches()
    relevance.clear_question_cache()


def run(turns: int = 2000) -> dict[str, Any]:
    morphology._MORPH.clear()  # the scorer loaded it when it was built: load it again to time it
    morphology.clear_caches()
    t0 = time.perf_counter()
    morphology.warm_up()
    load_ms = (time.perf_counter() - t0) * 1000
    questions = [json.loads(line) for line in LABELLED.read_text(encoding="utf-8").splitlines() if line.strip()]
    articles = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    rng = random.Random(SEED)
    for a in articles:  # the daemon keeps article terms cached: warm them once
        relevance.doc_terms(f"{a['title']}. {a['text']}")
    turn_ms: list[float] = []
    terms_ms: list[float] = []
    answer_ms: list[float] = []
    gc.disable()
    for _ in range(turns):
        q = rng.choice(questions)
        pool = [a for a in articles if a["language"] == q["lang"]]
        picked = rng.sample(pool, min(CANDIDATES, len(pool)))
        _clear_word_caches()  # every word of the question is new to the caches: the worst case
        start = time.thread_time_ns()
        relevance.terms(q["q"])
        mid = time.thread_time_ns()
        unseen = relevance.unseen_words(q["q"], [(a["title"], a["text"]) for a in picked])
        for a in picked:
            relevance.relevance(q["q"], a["title"], a["text"], unseen)
        end = time.thread_time_ns()
        answer_text(q["q"], picked[0]["text"])
        answered = time.thread_time_ns()
        terms_ms.append((mid - start) / 1e6)
        turn_ms.append((end - start) / 1e6)
        answer_ms.append((answered - end) / 1e6)
    gc.enable()
    _clear_word_caches()

    def pct(values: list[float], q: float) -> float:
        return round(percentile(values, q) or 0.0, 3)

    p99, answer_p99 = pct(turn_ms, 99), pct(answer_ms, 99)
    return {"turns": turns, "dictionary_load_ms": round(load_ms, 1),
            "question_terms_p50_ms": pct(terms_ms, 50), "question_terms_p99_ms": pct(terms_ms, 99),
            "turn_p50_ms": pct(turn_ms, 50), "turn_p99_ms": p99,
            "p99_budget_ms": P99_BUDGET_MS, "answer_p50_ms": pct(answer_ms, 50), "answer_p99_ms": answer_p99,
            "answer_p99_budget_ms": ANSWER_P99_BUDGET_MS,
            "ok": p99 < P99_BUDGET_MS and answer_p99 < ANSWER_P99_BUDGET_MS}


if __name__ == "__main__":
    print(json.dumps(run(), indent=2))
