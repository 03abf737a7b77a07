"""`ai-operator kb ...` sub-commands (the CLI wires them): ingest a JSONL file, search, stats, calibrate the gate.

Each opens the database from the settings (embedded pgserver in STATE_DIR when DATABASE_URL is empty), prints to
`out` and returns an exit code: 0 fine, 1 some input was rejected / nothing found is not an error, 2 unusable
input or configuration, or a database that cannot be opened. `kb ingest` stores every good line of a file and
reports each bad one (number and reason, one line each), then exits 1. Which knowledge base (languages, scope,
relevance scorer) is the policy's: that of `--route`'s policy, else the one knowledge base the routes' policies
(else the available policies) declare (`knowledge_profile_of`). `kb calibrate` fits the relevance gate to the
knowledge base and the configured embedder from labelled questions (calibration.py) and stores it with them.
"""

from __future__ import annotations

import json
from collections.abc import Awaitable, Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, TextIO, TypeVar

import psycopg

from ai_operator.config.settings import ConfigError
from ai_operator.dialogue import KnowledgeHit, KnowledgeProfile, KnowledgeSearch, knowledge_profile
from ai_operator.kb import calibration as C
from ai_operator.kb.embeddings import build_embedder
from ai_operator.kb.gate import StoredGate, embedder_identity
from ai_operator.kb.ingest import parse_kb_lines, scope_value
from ai_operator.kb.outcomes import EmbedderMismatch, IdTaken, PruneRefused
from ai_operator.kb.store import KnowledgeBase
from ai_operator.storage.database import Database, mask_dsn
from ai_operator.storage.embedded import EmbeddedServerError

EXIT_OK = 0
EXIT_REJECTED = 1
EXIT_USAGE = 2
PRUNE_MAX_SHARE = 0.5  # `--prune` removing more than this share of the stored entries needs `--force`
SAMPLE_LABELLED = Path(__file__).resolve().parents[2] / "tests" / "data" / "kb_relevance.jsonl"  # the sample KB's
T = TypeVar("T")


class _Failed(Exception):
    """A command could not run; already reported to `out`."""


async def _with_kb(settings: Any, label: str, out: TextIO, action: Callable[[KnowledgeBase], Awaitable[T]],
                   profile: KnowledgeProfile | None = None) -> T:
    """Open the database and knowledge base, run `action`, close. Configuration errors, a database that cannot
    be opened and an embedder mismatch are printed with the command's name and raise `_Failed` (exit code 2)."""
    try:
        embedder = build_embedder(settings)
    except ConfigError as exc:
        print(f"{label}: {exc}", file=out)
        raise _Failed from None
    dsn = settings.storage.database_url or None
    try:
        db = await Database.open(dsn, settings.storage.state_dir)
    except (psycopg.Error, OSError, EmbeddedServerError) as exc:
        where = f"DATABASE_URL {mask_dsn(dsn)}" if dsn else f"embedded PostgreSQL in STATE_DIR {settings.storage.state_dir}"
        print(f"{label}: cannot open the database ({where}): {type(exc).__name__}: {mask_dsn(str(exc))}", file=out)
        await _close_embedder(embedder)
        raise _Failed from None
    try:
        return await action(KnowledgeBase(db, embedder, profile))
    except EmbedderMismatch as exc:
        print(f"{label}: {exc}", file=out)
        raise _Failed from None
    finally:
        await db.close()
        await _close_embedder(embedder)


async def _close_embedder(embedder: object) -> None:
    close = getattr(embedder, "close", None)  # OpenAIEmbedder holds an HTTP client; HashEmbedder has nothing
    if close is not None:
        await close()


def knowledge_profile_of(settings: Any, route_name: str | None = None) -> KnowledgeProfile:
    """The knowledge base of `route_name`'s policy; without a route, the one knowledge base that the configured
    routes' policies declare, else the one the available policies (shipped and on POLICY_PATH) declare.
    `ConfigError` (one line, what to pass) when there is none or several."""
    from policies import available_policies, load_policy

    if route_name:
        route = settings.route(route_name)
        if route is None:
            known = ", ".join(sorted(settings.routes)) or "none"
            raise ConfigError(f"--route {route_name}: no route of that name (known: {known})")
        profile = knowledge_profile(load_policy(route.policy)) if route.policy else None
        if profile is None:
            raise ConfigError(f"--route {route_name}: its policy {route.policy or '(none)'} declares no knowledge base")
        return profile
    for names in ([r.policy for r in settings.routes.values() if r.policy], available_policies()):
        found = {p.name: p for p in (knowledge_profile(load_policy(n)) for n in sorted(set(names))) if p}
        if len(found) == 1:
            return next(iter(found.values()))
        if found:
            raise ConfigError(f"--route: name the route whose knowledge base to use (the policies' knowledge bases: "
                              f"{', '.join(sorted(found))})")
    raise ConfigError("no policy declares a knowledge base")


def accepted_languages(settings: Any, route_name: str | None = None) -> tuple[str, ...]:
    """The languages the knowledge base of the route's policy accepts (`knowledge_profile_of`)."""
    return knowledge_profile_of(settings, route_name).languages


def _profile(settings: Any, route_name: str | None, label: str, out: TextIO) -> KnowledgeProfile | None:
    try:
        return knowledge_profile_of(settings, route_name)
    except ConfigError as exc:
        print(f"{label}: {exc}", file=out)
        return None


async def kb_ingest(
    settings: Any, path: str | Path, *, prune: bool, reembed: bool, out: TextIO, force: bool = False,
    route: str | None = None,
) -> int:
    """Ingest a JSONL file: summary line, then each rejected line with its number and reason.

    `--prune` is refused (exit 2, nothing changed) for a file without entries, and, unless `force`, when it would
    delete more than PRUNE_MAX_SHARE of the stored entries: an empty or truncated file must not wipe the base."""
    path = Path(path)
    profile = _profile(settings, route, "kb ingest", out)
    if profile is None:
        return EXIT_USAGE
    try:
        raw = path.read_bytes()
    except OSError as exc:
        print(f"kb ingest: cannot read {path}: {exc.strerror or exc}", file=out)
        return EXIT_USAGE
    entries, rejects = parse_kb_lines(raw.split(b"\n"), profile)
    if prune and not entries:
        print(f"kb ingest: {path} has no entries: --prune refused (it would delete every entry); nothing changed",
              file=out)
        return EXIT_USAGE
    if prune and rejects:
        print(f"kb ingest: --prune skipped because {len(rejects)} line(s) were rejected "
              "(their entries would be deleted); fix them and run again", file=out)
        prune = False
    share = None if force else PRUNE_MAX_SHARE
    try:
        summary = await _with_kb(
            settings, "kb ingest", out,
            lambda kb: kb.ingest(entries, prune=prune, reembed=reembed, max_prune_share=share), profile,
        )
    except _Failed:
        return EXIT_USAGE
    except PruneRefused as exc:
        print(f"kb ingest {path}: {exc}: nothing changed; check the file, or add --force to prune anyway", file=out)
        return EXIT_USAGE
    except IdTaken as exc:
        print(f"kb ingest {path}: {exc}: nothing changed; give the entry another id", file=out)
        return EXIT_USAGE
    read = len(entries) + len(rejects)
    print(f"kb ingest {path}: read={read} inserted={summary.inserted} updated={summary.updated} "
          f"unchanged={summary.unchanged} rejected={len(rejects)} pruned={summary.pruned}", file=out)
    if summary.dropped_gates:
        print(f"  {summary.dropped_gates} calibrated gate(s) of another embedder dropped (fitted to other vectors): "
              "the default gate is used until `ai-operator kb calibrate` runs again", file=out)
    for rej in rejects:
        print(f"  {path}:{rej.line}: {rej.reason}", file=out)
    return EXIT_REJECTED if rejects else EXIT_OK


async def kb_search(
    settings: Any, query: str, language: str, region: str, as_json: bool, out: TextIO, fallback: str | None = None,
    route: str | None = None,
) -> int:
    """Search and print the hits, most relevant first, with their relevance, whether it passes the gate, and
    their citations (or JSON with the same fields). `region`: the value of the knowledge base's scope ("": only
    the entries for all)."""
    profile = _profile(settings, route, "kb search", out)
    if profile is None:
        return EXIT_USAGE
    allowed = ", ".join(profile.languages)
    for what, value in (("--language", language), ("--fallback", fallback or profile.languages[0])):
        if value not in profile.languages:
            print(f"kb search: {what} {value!r} is not a language of the knowledge base {profile.name} "
                  f"(allowed: {allowed})", file=out)
            return EXIT_USAGE
    try:
        scope_value(profile, region)
    except ValueError as exc:
        print(f"kb search: --scope: {exc}", file=out)
        return EXIT_USAGE
    fallbacks = (fallback,) if fallback else ()
    try:
        hits = await _with_kb(settings, "kb search", out,
                              lambda kb: kb.search(query, language, region, fallback_languages=fallbacks), profile)
    except _Failed:
        return EXIT_USAGE
    if as_json:
        print(json.dumps([h.__dict__ for h in hits], ensure_ascii=False, indent=2), file=out)
        return EXIT_OK
    if not hits:
        print("no results", file=out)
    elif not hits[0].relevant:
        print(f"no answer: the best hit's relevance {hits[0].relevance:.2f} is below the gate {hits[0].gate:.2f} "
              "(the caller is offered a specialist)", file=out)
    for n, h in enumerate(hits, start=1):
        mark = f" [fallback: answered in {h.language}]" if h.fallback else ""
        gate = "passes" if h.relevant else "below"
        print(f"{n}. {h.title} ({h.entry_id}, {h.language}, relevance {h.relevance:.2f} {gate} gate "
              f"{h.gate:.2f}, rank score {h.score:.4f}){mark}", file=out)
        print(f"   {h.text}", file=out)
        print(f"   source: {h.source}", file=out)
    return EXIT_OK


async def kb_stats(settings: Any, out: TextIO) -> int:
    """Entries and chunks per language and scope value, the embedder and dimension."""
    try:
        st = await _with_kb(settings, "kb stats", out, lambda kb: kb.stats())
    except _Failed:
        return EXIT_USAGE
    print(f"embedder: {st['embedder'] or '(none yet)'} dim {st['dim']} "
          f"(configured {st['configured_embedder']} dim {st['configured_dim']})", file=out)
    for lang in sorted(st["entries"]):
        scopes = ", ".join(f"{r}={n}" for r, n in sorted(st["scopes"].get(lang, {}).items()))
        print(f"{lang}: entries={st['entries'].get(lang, 0)} chunks={st['chunks'].get(lang, 0)} "
              f"scopes: {scopes or '-'}", file=out)
    return EXIT_OK


async def kb_calibrate(settings: Any, labelled: str | Path | None, split: str, out: TextIO,
                       route: str | None = None) -> int:
    """Fit the relevance gate to the knowledge base and the configured embedder on the `split` questions of the
    labelled file (default: the sample set, `SAMPLE_LABELLED`) and store it with the knowledge base: a table of
    the gates tried, then the one chosen (calibration.py's rule). Bad input, too few questions (exit 2) or no gate
    meeting the floors (exit 1): one line, nothing stored."""
    profile = _profile(settings, route, "kb calibrate", out)
    if profile is None:
        return EXIT_USAGE
    path = Path(labelled) if labelled else SAMPLE_LABELLED
    try:
        data = path.read_bytes()
    except OSError as exc:
        hint = "" if labelled else " (the sample set is in the source tree only: name your file with --labelled)"
        print(f"kb calibrate: cannot read {path}: {exc.strerror or exc}{hint}", file=out)
        return EXIT_USAGE
    try:
        items = C.parse_labelled(data, path, profile)
        chosen = C.of_split(items, split, path)
    except C.LabelledError as exc:
        print(f"kb calibrate: {exc}", file=out)
        return EXIT_USAGE
    try:
        return await _with_kb(settings, "kb calibrate", out,
                              lambda kb: _calibrate(kb, profile, path, split, items, chosen, out), profile)
    except _Failed:
        return EXIT_USAGE


async def _calibrate(kb: KnowledgeBase, profile: KnowledgeProfile, path: Path, split: str, items: list[C.Labelled],
                     chosen: list[C.Labelled], out: TextIO) -> int:
    await kb.check_embedder()  # vectors of another embedder: refused before anything is asked
    try:
        C.check_expected(items, await kb.entry_ids(profile), path, profile.name)
    except C.LabelledError as exc:
        print(f"kb calibrate: {exc}", file=out)
        return EXIT_USAGE
    before = await kb.gate_in_use(profile)
    best: dict[float, list[KnowledgeHit | None]] = {g: [] for g in C.GATES}
    for item in chosen:  # asked as a call asks (the policy's `asks`), chosen from at every gate tried
        ask = profile.asks(item.q, item.lang, item.region) if profile.asks else KnowledgeSearch(item.q, item.lang)
        scope = ask.scope if profile.asks else item.region
        found = await kb.candidates(ask.query, ask.language, scope, ask.limit, ask.fallback_languages, profile=profile)
        for gate in C.GATES:
            hits = found.choose(gate)[0] if found is not None and found.rows else []
            best[gate].append(C.answer(hits))
    table = [C.figures(chosen, best[g], g) for g in C.GATES]
    fitted = C.fit(table)
    who = embedder_identity(kb.embedder.name, kb.embedder.dim)
    inside = sum(i.in_scope for i in chosen)
    print(f"kb calibrate {path}: split {split}, {len(chosen)} questions ({inside} in scope, {len(chosen) - inside} "
          f"out of scope), knowledge base {profile.name}, embedder {who}", file=out)
    for line in C.table_lines(table, fitted):
        print(line, file=out)
    print(f"rule: {C.RULE}", file=out)
    if fitted is None:
        print(f"kb calibrate: no gate reaches precision >= {C.MIN_PRECISION} and out-of-scope rejected >= "
              f"{C.MIN_REJECTION} on split {split}: nothing stored (the gate stays {before.gate:.2f}, "
              f"{before.source})", file=out)
        return EXIT_REJECTED
    stored = StoredGate(fitted.gate, kb.embedder.name, kb.embedder.dim, round(fitted.precision, 4),
                        round(fitted.recall, 4), round(fitted.rejection, 4), split, len(chosen), inside,
                        str(path.resolve()), datetime.now(UTC).isoformat(timespec="seconds"))
    await kb.store_gate(profile, stored.to_json())
    print(f"chosen gate {fitted.gate:.2f}: stored with the knowledge base {profile.name} for {who} (was "
          f"{before.gate:.2f}, {before.source}); the daemon and `ai-operator call` answer with it from their next "
          "search", file=out)
    return EXIT_OK
