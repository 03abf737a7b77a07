"""KB file parsing (each reject reason with its line number), chunking, and the hash embedder."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ai_operator.kb.embeddings import HashEmbedder
from ai_operator.kb.ingest import chunk_text, parse_kb_lines
from policies.operator.knowledge import KNOWLEDGE
from policies.operator.region_data import REGIONS_BY_CODE

SAMPLE = Path(__file__).resolve().parent.parent / "etc" / "kb" / "sample.jsonl"


def entry(**over: object) -> str:
    base: dict[str, object] = {"id": "e1", "language": "ru", "regions": ["*"], "title": "Т", "text": "Текст.", "source": "doc-1"}
    base.update(over)
    return json.dumps({k: v for k, v in base.items() if v is not None}, ensure_ascii=False)


def test_each_bad_line_is_reported_with_its_number_and_good_lines_land() -> None:
    lines: list[str | bytes] = [
        entry(id="ok-1"),
        "{not json",
        entry(id="no-title", title=None),
        entry(id="bad-lang", language="Russian"),
        entry(id="bad-region", regions=["KZ-71", "Almaty"]),
        "",
        entry(id="ok-1", text="again"),
        entry(id="ok-2", language="kk", regions=["KZ-75", "KZ-71"], tags=["x"], updated_at="2026-01-01"),
        b"\xff\xfe not utf-8",
        entry(id="mixed", regions=["*", "KZ-71"]),
    ]
    entries, rejects = parse_kb_lines(lines, KNOWLEDGE)
    assert [e.id for e in entries] == ["ok-1", "ok-2"]
    assert entries[1].scopes == ("KZ-71", "KZ-75") and entries[1].tags == ("x",)
    got = {r.line: r.reason for r in rejects}
    assert set(got) == {2, 3, 4, 5, 7, 9, 10}
    assert got[2].startswith("invalid JSON")
    assert got[3] == "missing field title"
    assert got[4] == "entry bad-lang: field language: expected an ISO 639 code such as ru or kk, got 'Russian'"
    assert got[5] == ("entry bad-region: field regions: unknown region 'Almaty' (allowed: an ISO 3166-2 code such as "
                      'KZ-71, or "*" for all)')
    assert "duplicate id ok-1" in got[7] and "line 1" in got[7]
    assert "UTF-8" in got[9]
    assert '"*"' in got[10]
    assert str(rejects[0]) == f"line 2: {got[2]}"


def test_sample_kb_is_valid_and_covers_both_languages_and_regions() -> None:
    entries, rejects = parse_kb_lines(SAMPLE.read_bytes().split(b"\n"), KNOWLEDGE)
    assert rejects == []
    assert len(entries) >= 48
    langs = {e.language for e in entries}
    assert langs == {"ru", "kk"}
    assert sum(e.language == "kk" for e in entries) >= 20
    regional = {r for e in entries for r in e.scopes if r != "*"}
    assert {"KZ-35", "KZ-75", "KZ-55", "KZ-71"} <= regional <= set(REGIONS_BY_CODE)
    assert all(e.source.startswith("https://") for e in entries)


def test_chunk_text_cuts_on_sentences_within_the_limit() -> None:
    text = " ".join(f"Предложение номер {i} о тарифах." for i in range(40))
    chunks = chunk_text(text, max_chars=120)
    assert len(chunks) > 1 and all(len(c) <= 120 for c in chunks)
    assert all(c.endswith(".") for c in chunks)  # never cut mid-sentence
    assert " ".join(chunks) == text  # nothing lost
    long_sentence = "слово " * 100
    parts = chunk_text(long_sentence, max_chars=50)
    assert all(len(p) <= 50 for p in parts) and " ".join(parts).split() == long_sentence.split()
    assert chunk_text("Коротко.") == ["Коротко."]
    assert chunk_text("   ") == []
    with pytest.raises(ValueError):
        chunk_text("x", max_chars=5)


async def test_hash_embedder_is_deterministic_normalised_and_similarity_aware() -> None:
    emb = HashEmbedder(256)
    a, b, c, a2 = await emb.embed(["Тарифы домашнего интернета", "тариф на домашний интернет",
                                   "Часы работы сервисного центра", "Тарифы домашнего интернета"])
    assert a.shape == (256,) and abs(float(np.linalg.norm(a)) - 1.0) < 1e-5
    assert np.array_equal(a, a2)
    assert float(a @ b) > float(a @ c) + 0.2  # shared word pieces -> closer
    assert float(np.linalg.norm((await emb.embed(["и в на 123"]))[0])) == 0.0  # only stopwords and numbers
    assert HashEmbedder(64).dim == 64 and (await HashEmbedder(64).embed(["x"]))[0].shape == (64,)
