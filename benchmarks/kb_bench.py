"""Knowledge-base benchmark: ingestion rate with the hash embedder, and hybrid search latency (p50/p95) on a
20,000-chunk corpus synthesised from the sample KB's sentences and vocabulary, in a throwaway embedded
PostgreSQL. `python -m benchmarks.kb_bench`; `run() -> dict` for `make bench`. Budget: search p95 < 25 ms."""

from __future__ import annotations

import asyncio
import random
import re
import shutil
import tempfile
import time
from pathlib import Path
from typing import Any

from ai_operator.kb.embeddings import HashEmbedder
from ai_operator.kb.ingest import KBEntry, parse_kb_lines
from ai_operator.kb.store import KnowledgeBase
from ai_operator.storage.database import Database
from policies.operator.knowledge import KNOWLEDGE
from policies.operator.region_data import REGIONS_BY_CODE

REGION_CODES = sorted(REGIONS_BY_CODE)  # the operator's regions: the sample KB is the operator's
SAMPLE = Path(__file__).resolve().parent.parent / "etc" / "kb" / "sample.jsonl"
TARGET_CHUNKS = 20_000
SEARCHES = 300
WARMUP_SEARCHES = 20
SEED = 3
P95_BUDGET_MS = 25.0
REGIONAL_SHARE = 0.2
QUERIES = (
    ("Сколько стоит домашний интернет?", "ru"), ("Как оплатить интернет картой?", "ru"),
    ("Где сервисный центр в Павлодаре?", "ru"), ("Почему нет интернета?", "ru"),
    ("Как поменять пароль от Wi-Fi?", "ru"), ("Роуминг за границей", "ru"),
    ("Үй интернеті қанша тұрады?", "kk"), ("Астанадағы сервистік орталық қайда?", "kk"),
    ("Wi-Fi құпиясөзін қалай өзгертемін?", "kk"), ("Шетелде роуминг қанша тұрады?", "kk"),
    ("Көшкенде интернетті қалай ауыстырамын?", "kk"), ("Теледидар пакеттері", "kk"),
)


def synthesise(sample: list[KBEntry], n: int, seed: int = SEED) -> list[KBEntry]:
    """`n` entries (one chunk each) made of the sample's sentences and words, per language."""
    rng = random.Random(seed)
    by_lang: dict[str, tuple[list[str], list[str]]] = {}
    for e in sample:
        sentences, words = by_lang.setdefault(e.language, ([], []))
        sentences.extend(s for s in re.split(r"(?<=[.!?])\s+", e.text) if s)
        words.extend(re.findall(r"\w{4,}", e.title + " " + e.text))
    out: list[KBEntry] = []
    langs = sorted(by_lang)
    for i in range(n):
        lang = langs[i % len(langs)]
        sentences, words = by_lang[lang]
        text = " ".join(rng.sample(sentences, 2)) + " " + " ".join(rng.sample(words, 6)) + "."
        regions = (rng.choice(REGION_CODES),) if rng.random() < REGIONAL_SHARE else ("*",)
        out.append(KBEntry(id=f"syn-{i}", language=lang, scopes=regions,
                           title=" ".join(rng.sample(words, 3)).capitalize(), text=text[:480],
                           source=f"bench://synthetic/{i}"))
    return out


def percentile(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


async def run_async(chunks: int = TARGET_CHUNKS, searches: int = SEARCHES) -> dict[str, Any]:
    sample, _ = parse_kb_lines(SAMPLE.read_bytes().split(b"\n"), KNOWLEDGE)
    corpus = synthesise(sample, chunks - len(sample))
    state = Path(tempfile.mkdtemp(prefix="kb-bench-"))
    db = await Database.open(None, state)
    try:
        kb = KnowledgeBase(db, HashEmbedder(), KNOWLEDGE)
        t = time.perf_counter()
        await kb.ingest(sample)
        first = corpus[: len(corpus) // 10]
        await kb.ingest([*sample, *first])
        ingest_s = time.perf_counter() - t
        rate = (len(sample) + len(first)) / ingest_s
        t = time.perf_counter()
        await kb.ingest([*sample, *corpus])
        bulk_rate = (len(corpus) - len(first)) / (time.perf_counter() - t)
        async with db.pool.connection() as conn:
            await conn.execute("ANALYZE kb_chunks")
            cur = await conn.execute("SELECT count(*) FROM kb_chunks")
            total_chunks = (await cur.fetchone())[0]
        rng = random.Random(SEED)
        plan = [(*rng.choice(QUERIES), rng.choice(REGION_CODES)) for _ in range(searches + WARMUP_SEARCHES)]
        lat: list[float] = []
        for n, (q, lang, region) in enumerate(plan):
            t = time.perf_counter()
            await kb.search(q, lang, region, fallback_languages=("ru",) if lang == "kk" else ())
            if n >= WARMUP_SEARCHES:
                lat.append((time.perf_counter() - t) * 1000)
    finally:
        await db.close()
        shutil.rmtree(state, ignore_errors=True)
    p50, p95 = percentile(lat, 50), percentile(lat, 95)
    return {"ingest_entries_per_s": round(rate, 1), "bulk_ingest_entries_per_s": round(bulk_rate, 1),
            "chunks": total_chunks, "searches": len(lat), "search_p50_ms": round(p50, 2),
            "search_p95_ms": round(p95, 2), "search_p95_budget_ms": P95_BUDGET_MS, "ok": p95 < P95_BUDGET_MS}


def run() -> dict[str, Any]:
    """Run the benchmark (about a minute) and return its figures."""
    return asyncio.run(run_async())


def main() -> None:
    res = run()
    print(f"{'metric':<28} value")
    for key, value in res.items():
        print(f"{key:<28} {value}")


if __name__ == "__main__":
    main()
