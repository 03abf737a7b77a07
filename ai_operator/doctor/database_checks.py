"""`doctor` checks for the database and the knowledge base: reachable, `vector` extension, migrations, KB
tables, entries per language and scope value (a region for the operator; a WARN when the knowledge base of an
enabled route's policy has no entry of its own in one of its languages), one embedding dimension across kb_meta, the
chunks and the configured embedder, and the relevance gate each knowledge base answers with (a WARN when a real
embedding model is configured and no gate was calibrated for it). Every failing check says what to do."""

from __future__ import annotations

from typing import Any

from ai_operator.dialogue import CheckResult, KnowledgeProfile, knowledge_profile
from ai_operator.kb.embeddings import build_embedder
from ai_operator.kb.gate import embedder_identity, gate_in_use
from ai_operator.storage.database import Database, mask_dsn
from ai_operator.storage.migrate import load_migrations

KB_TABLES = ("kb_meta", "kb_entries", "kb_chunks")
OFFLINE_EMBEDDER = "hash"  # EMBEDDING_PROVIDER the default gate was fitted with
CALL_TABLES = ("calls", "turns")


async def database_checks(settings: Any) -> list[CheckResult]:
    dsn = settings.storage.database_url or None
    where = mask_dsn(dsn) if dsn else f"embedded PostgreSQL in {settings.storage.state_dir / 'pgdata'}"
    try:
        db = await Database.open(dsn, settings.storage.state_dir, min_size=1, max_size=2)
    except Exception as exc:
        hint = ("check DATABASE_URL (host, port, user, password) and that PostgreSQL with pgvector runs"
                if dsn else "check that STATE_DIR is writable and see pgdata/log in it")
        return [CheckResult("database reachable", "FAIL",
                            f"{where}: {type(exc).__name__}: {mask_dsn(str(exc))}; {hint}")]
    try:
        return [CheckResult("database reachable", "OK", db.describe()), *await _checks(db, settings)]
    finally:
        await db.close()


async def _checks(db: Database, settings: Any) -> list[CheckResult]:
    out: list[CheckResult] = []
    version = await db.vector_version()
    out.append(CheckResult("vector extension", "OK", f"pgvector {version}") if version else
               CheckResult("vector extension", "FAIL", "pgvector is not installed: install it for your PostgreSQL "
                           "(e.g. apt install postgresql-16-pgvector) and run CREATE EXTENSION vector"))
    wanted = [m.version for m in load_migrations()]
    applied = await db.migrations()
    missing = sorted(set(wanted) - set(applied))
    out.append(CheckResult("migrations", "OK", f"applied {applied}") if not missing else
               CheckResult("migrations", "FAIL", f"missing {missing}: restart the daemon to apply them"))
    async with db.pool.connection() as conn:
        cur = await conn.execute("SELECT tablename FROM pg_tables WHERE schemaname = current_schema()")
        tables = {r[0] for r in await cur.fetchall()}
    absent = [t for t in (*CALL_TABLES, *KB_TABLES) if t not in tables]
    if absent:
        out.append(CheckResult("tables", "FAIL", f"missing {', '.join(absent)}: restart the daemon to migrate"))
        return out
    out.append(CheckResult("tables", "OK", ", ".join((*CALL_TABLES, *KB_TABLES))))
    async with db.pool.connection() as conn:
        cur = await conn.execute("SELECT kb, language, count(*) FROM kb_entries GROUP BY kb, language")
        per_kb: dict[tuple[str, str], int] = {(r[0], r[1]): r[2] for r in await cur.fetchall()}
        per_lang: dict[str, int] = {}
        for (_, lang), n in per_kb.items():
            per_lang[lang] = per_lang.get(lang, 0) + n
        cur = await conn.execute("SELECT DISTINCT r FROM kb_entries, unnest(scopes) r ORDER BY r")
        scopes = [r[0] for r in await cur.fetchall()]
        cur = await conn.execute("SELECT DISTINCT vector_dims(embedding) FROM kb_chunks ORDER BY 1")
        chunk_dims = [r[0] for r in await cur.fetchall()]
        cur = await conn.execute("SELECT key, value FROM kb_meta")
        meta: dict[str, str] = dict(await cur.fetchall())
    counts = ", ".join(f"{lang}={n}" for lang, n in sorted(per_lang.items()))
    if not per_lang:
        out.append(CheckResult("kb entries", "WARN", "no entries: run `ai-operator kb ingest etc/kb/sample.jsonl` "
                               "(or your own file); until then every question is answered with 'no information'"))
    else:
        empty = [f"{p.name} (route {', '.join(routes)}) has none in {', '.join(langs)}: run `ai-operator kb ingest "
                 f"--route {routes[0]} <file>`" for p, routes in _route_profiles(settings)
                 if (langs := [lang for lang in p.languages if not per_kb.get((p.name, lang))])]
        out.append(CheckResult("kb entries", "WARN" if empty else "OK",
                               "; ".join([f"{counts}; scopes: {', '.join(scopes)}", *empty])))
    out.append(_dimension_check(meta, chunk_dims, settings))
    out.extend(_gate_checks(meta, settings))
    return out


def _gate_checks(meta: dict[str, str], settings: Any) -> list[CheckResult]:
    """The relevance gate of each enabled route's knowledge base for the configured embedder (gate.py); a WARN when
    the embedder is not the offline one and no gate was calibrated for it (the default was not fitted to it)."""
    if "embedder" not in meta:
        return []  # nothing ingested: the entries check says so
    try:
        embedder = build_embedder(settings)
    except Exception:
        return []  # the dimension check reports it
    provider = settings.speech.embedding_provider
    out = []
    for profile, routes in _route_profiles(settings):
        used = gate_in_use(profile.name, embedder.name, embedder.dim, profile.scorer.gate, meta)
        detail = f"{profile.name} (route {', '.join(routes)}): gate {used.gate:.2f}, {used.source}"
        warn = not used.calibrated and provider != OFFLINE_EMBEDDER
        if warn:
            detail += (f"; EMBEDDING_PROVIDER is {provider}: run `ai-operator kb calibrate --labelled FILE` to fit "
                       f"the gate to {embedder_identity(embedder.name, embedder.dim)}")
        out.append(CheckResult("kb relevance gate", "WARN" if warn else "OK", detail))
    return out


def _route_profiles(settings: Any) -> list[tuple[KnowledgeProfile, list[str]]]:
    """The knowledge bases of the enabled routes' policies, each with its routes (a policy that cannot be loaded
    is the dialogue checks' to report)."""
    from policies import load_policy

    found: dict[str, tuple[KnowledgeProfile, list[str]]] = {}
    for name, route in sorted(settings.routes.items()):
        try:
            profile = knowledge_profile(load_policy(route.policy)) if route.enabled and route.policy else None
        except Exception:
            continue
        if profile is not None:
            found.setdefault(profile.name, (profile, []))[1].append(name)
    return list(found.values())


def _dimension_check(meta: dict[str, str], chunk_dims: list[int], settings: Any) -> CheckResult:
    try:
        embedder = build_embedder(settings)
    except Exception as exc:
        return CheckResult("kb embedding dimension", "FAIL", f"{exc}")
    if "embedder" not in meta:
        return CheckResult("kb embedding dimension", "OK" if not chunk_dims else "FAIL",
                           f"nothing ingested yet; configured {embedder.name} dim {embedder.dim}" if not chunk_dims
                           else "chunks exist without kb_meta: run `ai-operator kb ingest --reembed <file>`")
    stored = (meta["embedder"], int(meta.get("dim", "0")))
    problems = []
    if len(chunk_dims) > 1 or (chunk_dims and chunk_dims[0] != stored[1]):
        problems.append(f"chunks have dims {chunk_dims} but kb_meta says {stored[1]}")
    if stored != (embedder.name, embedder.dim):
        problems.append(f"stored {stored[0]} dim {stored[1]}, configured {embedder.name} dim {embedder.dim}")
    if problems:
        return CheckResult("kb embedding dimension", "FAIL",
                           "; ".join(problems) + ": run `ai-operator kb ingest --reembed <file>`")
    return CheckResult("kb embedding dimension", "OK", f"{stored[0]} dim {stored[1]} (kb_meta, chunks, settings)")
