"""Example questions of a knowledge-base entry (a JSONL line's optional "questions", ai_operator/kb/examples.py):
ingest validates them (a one-line reject naming the line and the field), the store keeps them (a database from
before migration 0007 gets the column), a search scores with them, and nothing reads them aloud. A question
worded like an example but unlike the article is answered; a near miss that shares the example's words with
another purpose is not."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import psycopg

from ai_operator.kb.embeddings import HashEmbedder
from ai_operator.kb.ingest import parse_kb_lines
from ai_operator.kb.relevance import RELEVANCE_GATE
from ai_operator.kb.store import KnowledgeBase
from ai_operator.storage.database import Database
from ai_operator.storage.migrate import apply_migrations
from policies.operator.knowledge import KNOWLEDGE, SCORER

SAMPLE = Path(__file__).resolve().parent.parent / "etc" / "kb" / "sample.jsonl"
ENTRIES = {e["id"]: e for e in (json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip())}
EXAMPLES = {  # entry -> (an example question, a question worded like it, a near miss in the same words)
    "ru-static-ip": (
        "хочу камеры на даче смотреть через телефон что для этого надо",
        "камеры с дачи смотреть через телефон что нужно",
        "камеры с дачи украли что делать",
    ),
    "ru-pause": (
        "можно ли поставить на холд пока мы на зимовке",
        "на холд поставить пока мы на зимовке можно",
        "на холд поставить заказ в магазине можно",
    ),
    "ru-tv-packages": (
        "есть ли у вас пакет с турецкими сериалами",
        "турецкие сериалы пакет у вас есть",
        "турецкие сериалы где скачать",
    ),
}

# the operator's knowledge base scored by the lexicon alone: the policy's classifier (kb_classifier.py) answers
# "на холд поставить пока мы на зимовке" itself once the example is gone, and what is measured here is the examples
LEXICAL = dataclasses.replace(KNOWLEDGE, classifier=None)

KK_EXAMPLES = {  # the same in Kazakh: the example's case endings and verb forms are not the question's
    "kk-pause": (
        "жазғы демалысқа ауылға кетеміз интернетті ұйықтатып қоюға бола ма",
        "ауылға кетеміз интернетті ұйықтатып қоюға бола ма жазғы демалысқа",
        "ауылға кетеміз баланы ұйықтатып қоюға бола ма",
    ),
    "kk-tv-packages": (
        "түрік сериалдары бар пакет бар ма",
        "түрік сериалдары бар пакеттерің бар ма",
        "түрік сериалдарын қайдан жүктеймін",
    ),
}


def line(**over: object) -> str:
    base: dict[str, object] = {
        "id": "e1",
        "language": "ru",
        "regions": ["*"],
        "title": "Т",
        "text": "Текст.",
        "source": "doc-1",
    }
    return json.dumps(base | over, ensure_ascii=False)


def test_ingest_accepts_example_questions_and_rejects_anything_else_in_one_line() -> None:
    entries, rejects = parse_kb_lines(
        [
            line(questions=["  как  подключить ", "как подключить", "а роутер?"]),
            line(id="e2"),
            line(id="e3", questions=[]),
        ],
        KNOWLEDGE,
    )
    assert not rejects and [e.questions for e in entries] == [("как подключить", "а роутер?"), (), ()]
    assert entries[1].content_hash() == entries[2].content_hash() != entries[0].content_hash()
    bad_values = [("как подключить", "'как подключить' is a str; expected a list"), ([""], "item 1 is ''"),
                  (["ok", "  "], "item 2 is '  '"), ([1], "item 1 is 1"), ({"q": "x"}, "{'q': 'x'} is a dict"),
                  (["x" * 301], "over the limit")]
    for bad, said in bad_values:
        _, rejects = parse_kb_lines(["", line(questions=bad)], KNOWLEDGE)
        assert len(rejects) == 1 and rejects[0].line == 2, bad
        message = str(rejects[0])
        assert "\n" not in message and message.startswith("line 2: entry e1: field questions: "), message
        assert said in message, message  # the bad value itself, named


def test_an_example_covers_a_question_worded_like_it_and_not_a_near_miss() -> None:
    for entry_id, (example, like, near) in (EXAMPLES | KK_EXAMPLES).items():
        e = ENTRIES[entry_id]
        title, text = e["title"], e["text"]
        for question, answered in ((like, True), (near, False)):
            unseen = SCORER.unseen_words(question, [(title, text)])
            own = SCORER.relevance(question, title, text, unseen).score
            with_example = SCORER.relevance(question, title, text, unseen, (example,)).score
            assert own < RELEVANCE_GATE, (question, own)  # unlike the article: its own words do not answer it
            assert (with_example >= RELEVANCE_GATE) is answered, (question, with_example)


async def test_the_store_keeps_example_questions_scores_with_them_and_never_reads_them_aloud(
    db: Database,
) -> None:
    lines = []
    for entry_id, entry in ENTRIES.items():
        if entry_id.startswith("ru-"):
            lines.append(
                json.dumps(
                    {
                        **{k: v for k, v in entry.items() if k != "questions"},
                        "questions": [EXAMPLES[entry_id][0]] if entry_id in EXAMPLES else [],
                    },
                    ensure_ascii=False,
                )
            )
    entries, rejects = parse_kb_lines(lines, KNOWLEDGE)
    assert not rejects
    kb = KnowledgeBase(db, HashEmbedder(256), LEXICAL)
    await kb.ingest(entries)
    assert await kb.questions() == {k: (v[0],) for k, v in EXAMPLES.items()}
    for entry_id, (example, like, near) in EXAMPLES.items():
        hits = await kb.search(like, "ru")
        assert hits and hits[0].entry_id == entry_id and (hits[0].relevance or 0.0) >= RELEVANCE_GATE, (like, hits[:1])
        assert all(example not in h.text and example not in h.title for h in hits)
        assert not [h for h in await kb.search(near, "ru") if (h.relevance or 0.0) >= RELEVANCE_GATE], near
    # a changed example re-ingests its entry, an unchanged file nothing
    summary = await kb.ingest(entries)
    assert (summary.updated, summary.unchanged) == (0, len(entries))
    plain = [dataclasses.replace(e, questions=()) if e.id == "ru-pause" else e for e in entries]
    assert (await kb.ingest(plain)).updated == 1
    assert all((h.relevance or 0.0) < RELEVANCE_GATE for h in await kb.search(EXAMPLES["ru-pause"][1], "ru"))


async def test_kazakh_example_questions_answer_a_kazakh_caller(db: Database) -> None:
    lines = [json.dumps({**{k: v for k, v in e.items() if k != "questions"},
                         "questions": [KK_EXAMPLES[i][0]] if i in KK_EXAMPLES else []}, ensure_ascii=False)
             for i, e in ENTRIES.items() if i.startswith("kk-")]
    entries, rejects = parse_kb_lines(lines, KNOWLEDGE)
    assert not rejects
    kb = KnowledgeBase(db, HashEmbedder(256), KNOWLEDGE)
    await kb.ingest(entries)
    for entry_id, (_example, like, near) in KK_EXAMPLES.items():
        hits = await kb.search(like, "kk")
        assert hits and hits[0].entry_id == entry_id and (hits[0].relevance or 0.0) >= RELEVANCE_GATE, (like, hits[:1])
        assert not [h for h in await kb.search(near, "kk") if (h.relevance or 0.0) >= RELEVANCE_GATE], near


async def test_the_questions_migration_upgrades_an_existing_database(kb: KnowledgeBase) -> None:
    """A database from before migration 0007 (no `questions` column): the column comes with the next start, every
    entry with none, and searches find what they found."""
    question = "сервисный центр в павлодаре"
    async with await psycopg.AsyncConnection.connect(kb.db.dsn, autocommit=True) as conn:
        await conn.execute("ALTER TABLE kb_entries DROP COLUMN questions")
        await conn.execute("DELETE FROM schema_migrations WHERE version = 7")
        assert await apply_migrations(conn) == [7]
    assert await kb.questions() == {}
    hits = await kb.search(question, "ru", "KZ-55")
    assert hits and hits[0].entry_id == "ru-centre-pavlodar" and (hits[0].relevance or 0.0) >= RELEVANCE_GATE
