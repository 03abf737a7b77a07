"""KnowledgeBase on real PostgreSQL: idempotent ingestion, updates, prune, embedder mismatch, hybrid search
(ru and kk, region filter, kk -> ru fallback, citations) in exactly one round trip."""

from __future__ import annotations

import dataclasses
import tempfile
from pathlib import Path

import psycopg
import pytest

from ai_operator.kb.embeddings import HashEmbedder
from ai_operator.kb.ingest import KBEntry, parse_kb_lines
from ai_operator.kb.store import EmbedderMismatch, KnowledgeBase
from ai_operator.storage.database import Database
from policies.operator.knowledge import KNOWLEDGE
from tests.support.storage import fresh_dsn

SAMPLE = Path(__file__).resolve().parent.parent / "etc" / "kb" / "sample.jsonl"


def sample() -> list[KBEntry]:
    entries, rejects = parse_kb_lines(SAMPLE.read_bytes().split(b"\n"), KNOWLEDGE)
    assert not rejects
    return entries


async def count(db: Database, sql: str) -> int:
    async with db.pool.connection() as conn:
        cur = await conn.execute(sql)
        row = await cur.fetchone()
        assert row is not None
        return int(row[0])


async def test_reingest_is_idempotent_and_changes_update(kb: KnowledgeBase) -> None:
    entries = sample()
    chunks = await count(kb.db, "SELECT count(*) FROM kb_chunks")
    again = await kb.ingest(entries)
    assert (again.read, again.inserted, again.updated, again.unchanged, again.pruned) == (len(entries), 0, 0,
                                                                                         len(entries), 0)
    assert await count(kb.db, "SELECT count(*) FROM kb_chunks") == chunks
    changed = [dataclasses.replace(e, text=e.text + " Новинка: бесплатный роутер для пенсионеров.")
               if e.id == "ru-router-rent" else e for e in entries]
    s = await kb.ingest(changed)
    assert (s.inserted, s.updated, s.unchanged) == (0, 1, len(entries) - 1)
    assert await count(kb.db, "SELECT count(*) FROM kb_chunks") == chunks  # replaced, not duplicated
    hits = await kb.search("бесплатный роутер для пенсионеров", "ru", "KZ-71")
    assert hits[0].entry_id == "ru-router-rent" and "пенсионеров" in hits[0].text


async def test_prune_deletes_absent_ids_only(kb: KnowledgeBase) -> None:
    entries = [e for e in sample() if e.id != "ru-static-ip"]
    s = await kb.ingest(entries, prune=True)
    assert s.pruned == 1 and s.unchanged == len(entries)
    assert await count(kb.db, "SELECT count(*) FROM kb_entries WHERE id = 'ru-static-ip'") == 0
    assert await count(kb.db, "SELECT count(*) FROM kb_chunks WHERE entry_id = 'ru-static-ip'") == 0
    assert await count(kb.db, "SELECT count(*) FROM kb_entries") == len(entries)


async def test_other_embedder_is_refused_until_reembed(kb: KnowledgeBase) -> None:
    other = KnowledgeBase(kb.db, HashEmbedder(128), KNOWLEDGE)
    with pytest.raises(EmbedderMismatch, match="--reembed"):
        await other.ingest(sample())
    with pytest.raises(EmbedderMismatch, match="dim 256"):
        await other.search("тариф", "ru", "KZ-71")
    partial = [e for e in sample() if e.language == "kk"]  # entries absent from the file are re-embedded too
    s = await other.ingest(partial, reembed=True)
    assert s.updated == len(partial)
    assert await count(kb.db, "SELECT count(DISTINCT vector_dims(embedding)) FROM kb_chunks") == 1
    assert await count(kb.db, "SELECT max(vector_dims(embedding)) FROM kb_chunks") == 128
    assert await count(kb.db, "SELECT count(*) FROM kb_entries") == len(sample())
    assert (await other.stats())["dim"] == 128
    with pytest.raises(EmbedderMismatch):
        await KnowledgeBase(kb.db, HashEmbedder(256), KNOWLEDGE).search("тариф", "ru", "KZ-71")
    hits = await other.search("Где сервисный центр в Павлодаре?", "ru", "KZ-55")
    assert hits[0].entry_id == "ru-centre-pavlodar"


async def test_search_russian_and_kazakh_in_region_with_citations(kb: KnowledgeBase) -> None:
    hits = await kb.search("Где ваш сервисный центр в Павлодаре?", "ru", "KZ-55")
    assert hits[0].entry_id == "ru-centre-pavlodar"
    assert hits[0].source == "https://qazaqtelecom.example/ru/centres/pavlodar"
    assert hits[0].title == "Сервисный центр в Павлодаре" and "Торайгырова" in hits[0].text
    assert hits[0].language == "ru" and not hits[0].fallback and hits[0].score > 0
    assert len(hits) == 3 and len({h.entry_id for h in hits}) == 3
    assert hits[0].relevance == max(h.relevance or 0.0 for h in hits) and hits[0].relevant  # most relevant first
    assert all(h.gate == hits[0].gate for h in hits)
    kk = await kb.search("Астанадағы сервистік орталық қайда орналасқан?", "kk", "KZ-71", fallback_languages=("ru",))
    assert kk[0].entry_id == "kk-centre-astana" and kk[0].language == "kk" and not kk[0].fallback
    assert kk[0].source.endswith("/kk/centres/astana")
    tariffs = await kb.search("Сколько стоит домашний интернет?", "ru", "KZ-19")
    assert tariffs[0].entry_id == "ru-internet-tariffs"
    outage = await kb.search("Почему нет интернета в Караганде ночью?", "ru", "KZ-35")
    assert outage[0].entry_id == "ru-outage-karaganda"
    wifi = await kb.search("Wi-Fi құпиясөзін қалай өзгертемін?", "kk", "KZ-19", fallback_languages=("ru",))
    assert wifi[0].entry_id == "kk-router-setup"


async def test_region_specific_entries_do_not_leak(kb: KnowledgeBase) -> None:
    for region in ("KZ-71", "KZ-35", "KZ-79"):
        hits = await kb.search("Где ваш сервисный центр в Павлодаре?", "ru", region, limit=10)
        assert "ru-centre-pavlodar" not in {h.entry_id for h in hits}
    giga = await kb.search("тариф Алматы Гига 1 Гбит", "ru", "KZ-75")
    assert giga[0].entry_id == "ru-tariff-almaty-giga"
    elsewhere = await kb.search("тариф Алматы Гига 1 Гбит", "ru", "KZ-71", limit=20)
    assert "ru-tariff-almaty-giga" not in {h.entry_id for h in elsewhere}
    national_only = await kb.search("Плановые работы Караганда", "ru", "", limit=20)
    assert all(h.entry_id != "ru-outage-karaganda" for h in national_only)


RU = ("ru",)


async def test_kazakh_question_on_a_russian_only_topic_falls_back(kb: KnowledgeBase) -> None:
    """The operator asks kk -> ru (`fallback_languages`); without it a Kazakh question stays Kazakh."""
    hits = await kb.search("Шетелде роуминг қанша тұрады?", "kk", "KZ-71", fallback_languages=RU)
    assert hits[0].entry_id == "ru-mobile-roaming"
    assert all(h.fallback and h.language == "ru" for h in hits)
    ip = await kb.search("Статикалық IP мекенжайын қалай қосамын?", "kk", "KZ-71", fallback_languages=RU)
    assert ip[0].entry_id == "ru-static-ip" and ip[0].fallback
    # A Kazakh question the Kazakh entries answer stays Kazakh.
    own = await kb.search("Көшкенде интернетті қалай ауыстырамын?", "kk", "KZ-79", fallback_languages=RU)
    assert own[0].entry_id == "kk-moving" and not own[0].fallback
    # Russian questions never fall back to anything.
    ru = await kb.search("Роуминг за границей", "ru", "KZ-71")
    assert ru[0].entry_id == "ru-mobile-roaming" and not ru[0].fallback
    kk_only = await kb.search("Шетелде роуминг қанша тұрады?", "kk", "KZ-71")
    assert all(h.language == "kk" and not h.fallback for h in kk_only)


async def test_bad_search_arguments_are_refused(kb: KnowledgeBase) -> None:
    with pytest.raises(ValueError, match="language"):
        await kb.search("x", "english", "KZ-71")
    with pytest.raises(ValueError, match="Almaty"):
        await kb.search("x", "ru", "Almaty")
    # no content words (a zero query vector, no text terms): nothing found, not an arbitrary entry
    assert await kb.search("и в на", "ru", "KZ-71") == []
    # a question the knowledge base has no answer to still gets its nearest entries, none of them relevant
    weather = await kb.search("какая погода завтра в астане", "ru", "KZ-71")
    assert weather and not any(h.relevant for h in weather)


async def test_an_entry_only_the_text_match_finds_reaches_the_reranking(kb: KnowledgeBase) -> None:
    # "вернёте деньги" names the refund synonyms (перерасчёт); the compensation entry is found by them
    hits = await kb.search("интернета не было двое суток вернёте деньги", "ru", "KZ-71")
    assert hits[0].entry_id == "ru-outage-compensation" and hits[0].relevant
    kk = await kb.search("шартты ұлыма қайта рәсімдегім келеді", "kk", "KZ-71", fallback_languages=RU)
    assert kk[0].entry_id == "ru-contract-reissue" and kk[0].fallback and kk[0].relevant


async def test_search_is_one_round_trip(tmp_path: Path) -> None:
    database = await Database.open(fresh_dsn(), tmp_path, min_size=1, max_size=1)
    try:
        base = KnowledgeBase(database, HashEmbedder(256), KNOWLEDGE)
        await base.ingest(sample())
        await base.search("warm-up", "ru", "KZ-71")  # the embedder check happens once, before
        with tempfile.TemporaryFile("w+") as trace:
            async with database.pool.connection() as conn:
                conn.pgconn.trace(trace.fileno())
                conn.pgconn.set_trace_flags(psycopg.pq.Trace.SUPPRESS_TIMESTAMPS)
            for query, lang in (("Шетелде роуминг қанша тұрады?", "kk"), ("Тарифы интернета", "ru")):
                before = trace.tell()
                hits = await base.search(query, lang, "KZ-71")
                assert hits
                trace.flush()
                trace.seek(before)
                lines = [ln.split("\t") for ln in trace.read().splitlines()]
                trace.seek(0, 2)
                sent = [ln for ln in lines if ln[0] == "F"]
                trips = [ln for ln in sent if ln[2] == "Sync" or (ln[2] == "Query" and ln[3].strip() != '""')]
                assert len(trips) == 1, sent
            async with database.pool.connection() as conn:
                conn.pgconn.untrace()
    finally:
        await database.close()


async def test_stats_counts_languages_and_regions(kb: KnowledgeBase) -> None:
    st = await kb.stats()
    entries = sample()
    assert st["entries"] == {"ru": sum(e.language == "ru" for e in entries), "kk": sum(e.language == "kk" for e in entries)}
    assert st["chunks"]["ru"] >= st["entries"]["ru"]
    assert st["scopes"]["ru"]["KZ-55"] == 1 and st["scopes"]["kk"]["KZ-71"] == 1
    assert st["embedder"] == "hash-v2" and st["dim"] == 256 and st["chunk_dims"] == [256]
