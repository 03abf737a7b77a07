"""kb CLI commands (ingest/search/stats output and exit codes), doctor database checks, and the OpenAI
embedder against a local OpenAI-compatible HTTP server."""

from __future__ import annotations

import io
import json
import re
import socket
from pathlib import Path

import numpy as np
import pytest
from aiohttp import web

from ai_operator.config.settings import ConfigError, Settings, build_settings
from ai_operator.doctor.database_checks import database_checks
from ai_operator.kb.commands import kb_ingest, kb_search, kb_stats
from ai_operator.kb.embeddings import HashEmbedder, OpenAIEmbedder, build_embedder
from tests.support.storage import fresh_dsn

SAMPLE = Path(__file__).resolve().parent.parent / "etc" / "kb" / "sample.jsonl"


def settings_for(dsn: str, state: Path, **extra: str) -> Settings:
    return build_settings([], environ={"DATABASE_URL": dsn, "STATE_DIR": str(state), **extra})


async def test_ingest_search_stats_commands(tmp_path: Path) -> None:
    settings = settings_for(fresh_dsn(), tmp_path)
    out = io.StringIO()
    assert await kb_ingest(settings, SAMPLE, prune=False, reembed=False, out=out) == 0
    n = len(SAMPLE.read_text().splitlines())
    assert f"read={n} inserted={n} updated=0 unchanged=0 rejected=0 pruned=0" in out.getvalue()

    bad = tmp_path / "kb.jsonl"
    lines = [*SAMPLE.read_text().splitlines()[:3], '{"id": "x"', json.dumps({"id": "y", "language": "de"})]
    bad.write_text("\n".join(lines) + "\n")
    out = io.StringIO()
    assert await kb_ingest(settings, bad, prune=True, reembed=False, out=out) == 1
    text = out.getvalue()
    assert "read=5 inserted=0 updated=0 unchanged=3 rejected=2 pruned=0" in text
    assert f"{bad}:4: invalid JSON" in text and f"{bad}:5: missing field regions" in text
    assert "--prune skipped" in text  # rejected lines: pruning would delete their entries

    out = io.StringIO()
    assert await kb_search(settings, "Роуминг за границей", "ru", "KZ-71", False, out) == 0
    assert out.getvalue().startswith("1. Роуминг за границей (ru-mobile-roaming, ru, relevance 1.00 passes gate 0.60")
    assert "source: https://qazaqtelecom.example/ru/mobile/roaming" in out.getvalue()
    out = io.StringIO()
    assert await kb_search(settings, "Шетелде роуминг қанша тұрады?", "kk", "KZ-71", True, out, fallback="ru") == 0
    hits = json.loads(out.getvalue())
    assert hits[0]["entry_id"] == "ru-mobile-roaming" and hits[0]["fallback"] is True
    assert hits[0]["relevance"] >= hits[0]["gate"] == 0.6
    out = io.StringIO()
    assert await kb_search(settings, "ну какая погода завтра будет", "ru", "KZ-71", False, out) == 0
    first, second = out.getvalue().splitlines()[:2]
    assert first.startswith("no answer: the best hit's relevance 0.") and "below the gate 0.60" in first
    assert "below gate 0.60" in second
    out = io.StringIO()
    assert await kb_search(settings, "x", "ru", "Almaty", False, out) == 2 and "'Almaty'" in out.getvalue()
    out = io.StringIO()
    assert await kb_search(settings, "x", "russian", "KZ-71", False, out) == 2 and "--language" in out.getvalue()

    out = io.StringIO()
    assert await kb_stats(settings, out) == 0
    assert "embedder: hash-v2 dim 256" in out.getvalue() and "kk: entries=24" in out.getvalue()

    other = settings_for(settings.storage.database_url, tmp_path, EMBEDDING_DIM="64")
    out = io.StringIO()
    assert await kb_ingest(other, SAMPLE, prune=False, reembed=False, out=out) == 2
    assert "--reembed" in out.getvalue()
    out = io.StringIO()
    assert await kb_ingest(settings, tmp_path / "missing.jsonl", prune=False, reembed=False, out=out) == 2
    assert "cannot read" in out.getvalue()


async def test_doctor_database_checks(tmp_path: Path) -> None:
    settings = settings_for(fresh_dsn(), tmp_path)
    checks = {c.name: c for c in await database_checks(settings)}
    assert checks["database reachable"].status == "OK"
    assert checks["vector extension"].status == "OK" and "pgvector" in checks["vector extension"].detail
    assert checks["migrations"].status == "OK" and checks["tables"].status == "OK"
    assert checks["kb entries"].status == "WARN" and "kb ingest" in checks["kb entries"].detail
    await kb_ingest(settings, SAMPLE, prune=False, reembed=False, out=io.StringIO())
    checks = {c.name: c for c in await database_checks(settings)}
    assert checks["kb entries"].status == "OK" and "KZ-55" in checks["kb entries"].detail
    assert checks["kb embedding dimension"].status == "OK"
    other = settings_for(settings.storage.database_url, tmp_path, EMBEDDING_DIM="64")
    checks = {c.name: c for c in await database_checks(other)}
    assert checks["kb embedding dimension"].status == "FAIL" and "--reembed" in checks["kb embedding dimension"].detail


async def test_doctor_unreachable_database_masks_password(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    settings = settings_for(f"postgresql://ops:hunter22@127.0.0.1:{port}/ops", tmp_path)
    checks = await database_checks(settings)
    assert [c.status for c in checks] == ["FAIL"]
    assert "hunter22" not in checks[0].detail and "***" in checks[0].detail and "DATABASE_URL" in checks[0].detail


async def test_kb_commands_report_an_unreachable_database_without_password(tmp_path: Path) -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nothing listens there
    settings = settings_for(f"postgresql://ops:hunter22@127.0.0.1:{port}/ops", tmp_path)
    out = io.StringIO()
    assert await kb_stats(settings, out) == 2
    text = out.getvalue()
    assert text.startswith("kb stats: cannot open the database (DATABASE_URL postgresql://ops:***@127.0.0.1:")
    assert "OperationalError" in text and "hunter22" not in text


async def test_openai_embedder_against_local_server() -> None:
    seen: list[dict] = []

    async def embeddings(request: web.Request) -> web.Response:
        body = await request.json()
        seen.append(body)
        dim = 4 if body["model"] == "fixed-4" else body.get("dimensions", 8)
        data = [{"object": "embedding", "index": i, "embedding": [float(len(t))] + [1.0] * (dim - 1)}
                for i, t in enumerate(body["input"])]
        return web.json_response({"object": "list", "data": data[::-1], "model": body["model"],
                                  "usage": {"prompt_tokens": 1, "total_tokens": 1}})

    app = web.Application()
    app.router.add_post("/v1/embeddings", embeddings)
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
    try:
        emb = OpenAIEmbedder("sk-test", f"http://127.0.0.1:{port}/v1", "text-embedding-3-small", 8)
        vecs = await emb.embed(["ab", "abcd"])
        assert seen[0]["model"] == "text-embedding-3-small" and seen[0]["dimensions"] == 8
        assert [round(float(np.linalg.norm(v)), 5) for v in vecs] == [1.0, 1.0]
        assert vecs[1][0] > vecs[0][0]  # order restored by index (server answered reversed)
        assert emb.name == "openai:text-embedding-3-small"
        wrong = OpenAIEmbedder("sk-test", f"http://127.0.0.1:{port}/v1", "fixed-4", 8)
        with pytest.raises(ValueError, match="returned 4 dimensions, EMBEDDING_DIM is 8"):
            await wrong.embed(["x"])
        await emb.close()
        await wrong.close()
    finally:
        await runner.cleanup()


def test_build_embedder_from_settings(tmp_path: Path) -> None:
    assert isinstance(build_embedder(settings_for("", tmp_path)), HashEmbedder)
    assert build_embedder(settings_for("", tmp_path, EMBEDDING_DIM="64")).dim == 64
    with pytest.raises(ConfigError, match="OPENAI_API_KEY"):
        build_embedder(settings_for("", tmp_path, EMBEDDING_PROVIDER="openai", OPENAI_API_KEY=""))
    emb = build_embedder(settings_for("", tmp_path, EMBEDDING_PROVIDER="openai", OPENAI_API_KEY="sk-x"))
    assert emb.name == "openai:text-embedding-3-small" and emb.dim == 256


async def _entry_count(settings: Settings, tmp_path: Path) -> int:
    out = io.StringIO()
    assert await kb_stats(settings, out) == 0
    return sum(int(n) for n in re.findall(r"entries=(\d+)", out.getvalue()))


async def test_prune_that_would_empty_or_gut_the_base_is_refused_without_force(tmp_path: Path) -> None:
    settings = settings_for(fresh_dsn(), tmp_path)
    assert await kb_ingest(settings, SAMPLE, prune=False, reembed=False, out=io.StringIO()) == 0
    lines = SAMPLE.read_text().splitlines()
    total = len(lines)
    assert await _entry_count(settings, tmp_path) == total

    for name, content in (("empty.jsonl", ""), ("blank.jsonl", "\n\n  \n")):
        empty = tmp_path / name
        empty.write_text(content)
        for force in (False, True):  # an empty file never prunes, not even with --force
            out = io.StringIO()
            code = await kb_ingest(settings, empty, prune=True, force=force, reembed=False, out=out)
            assert code == 2, out.getvalue()
            assert len(out.getvalue().strip().splitlines()) == 1 and "no entries" in out.getvalue()
            assert await _entry_count(settings, tmp_path) == total

    few = tmp_path / "few.jsonl"  # keeps 10: pruning would remove 80 % of the base
    changed = [json.loads(line) for line in lines[:10]]
    changed[0]["title"] += " (new)"
    few.write_text("\n".join(json.dumps(e, ensure_ascii=False) for e in changed) + "\n")
    out = io.StringIO()
    assert await kb_ingest(settings, few, prune=True, reembed=False, out=out) == 2
    message = out.getvalue().strip()
    assert len(message.splitlines()) == 1
    assert f"would delete {total - 10} of {total} entries" in message and "--force" in message
    assert await _entry_count(settings, tmp_path) == total
    out = io.StringIO()
    assert await kb_search(settings, changed[0]["title"], changed[0]["language"], "KZ-71", True, out) == 0
    assert all(h["title"] != changed[0]["title"] for h in json.loads(out.getvalue()))  # nothing written either

    out = io.StringIO()
    assert await kb_ingest(settings, few, prune=True, force=True, reembed=False, out=out) == 0
    assert f"updated=1 unchanged=9 rejected=0 pruned={total - 10}" in out.getvalue()
    assert await _entry_count(settings, tmp_path) == 10
    out = io.StringIO()
    assert await kb_search(settings, changed[0]["title"], changed[0]["language"], "KZ-71", True, out) == 0
    assert any(h["title"] == changed[0]["title"] for h in json.loads(out.getvalue()))  # the same search finds it now


async def test_prune_of_a_minority_needs_no_force(tmp_path: Path) -> None:
    settings = settings_for(fresh_dsn(), tmp_path)
    assert await kb_ingest(settings, SAMPLE, prune=False, reembed=False, out=io.StringIO()) == 0
    lines = SAMPLE.read_text().splitlines()
    keep = len(lines) - len(lines) // 3
    most = tmp_path / "most.jsonl"
    most.write_text("\n".join(lines[:keep]) + "\n")
    out = io.StringIO()
    assert await kb_ingest(settings, most, prune=True, reembed=False, out=out) == 0, out.getvalue()
    assert f"pruned={len(lines) - keep}" in out.getvalue()
    assert await _entry_count(settings, tmp_path) == keep
