"""The knowledge base in PostgreSQL: ingestion (upsert by id, content-hash skip, re-chunk and re-embed on
change, prune, re-embed all) and hybrid search (one SQL round trip, see search_sql.py) with citations.

The embedder name and dimension are recorded in `kb_meta`; using a different embedder than the stored one is
refused until `kb ingest --reembed` rebuilds every vector. What the entries are scoped by, which languages a
search may ask and how relevance is scored come from the policy's `KnowledgeProfile` (the knowledge base's
default one, or the one a search names): nothing here knows a language, a region or a word of a domain. Each
entry and chunk names its knowledge base (the profile's name): a search reads, and a prune deletes, its own alone.
A search answers at the relevance gate calibrated for the embedder (`kb calibrate`, stored in `kb_meta`: gate.py),
else at the scorer's; the candidates are fetched and scored once and chosen from at that gate (selection.py).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import numpy as np
from pgvector import Vector
from psycopg import AsyncConnection

from ai_operator.dialogue import KnowledgeHit, KnowledgeProfile
from ai_operator.kb.classifier import judge_of
from ai_operator.kb.embeddings import Embedder
from ai_operator.kb.gate import (
    DROP_OTHER_GATES_SQL,
    GateInUse,
    drop_other_gates_params,
    gate_in_use,
    gate_key,
)
from ai_operator.kb.ingest import DEFAULT_CHUNK_CHARS, KBEntry, chunk_text, scope_value, valid_language
from ai_operator.kb.outcomes import EmbedderMismatch, IdTaken, IngestSummary, PruneRefused, mismatch_message
from ai_operator.kb.query import synonym_patterns, term_patterns
from ai_operator.kb.relevance import Scorer
from ai_operator.kb.search_sql import SEARCH_SQL, search_params
from ai_operator.kb.selection import Candidates
from ai_operator.logs import get_logger
from ai_operator.storage.database import Database

log = get_logger("kb")

KB_LOCK_KEY = 0x41494B42  # "AIKB": one ingestion at a time
EMBED_BATCH = 128
RERANK_POOL = 10  # entries per language fetched and re-ordered by relevance before the best `limit` are kept
TITLE_WEIGHT = 0.5
HNSW_REBUILD_ROWS = 5000  # an ingestion writing this many chunks rebuilds the HNSW index instead
HNSW_INDEX = "kb_chunks_embedding_hnsw"


class KnowledgeBase:
    """Ingest and search knowledge-base entries stored in `db`; `profile`: the policy's knowledge base searched
    when a search names none (the daemon passes each call's policy's with every search)."""

    def __init__(self, db: Database, embedder: Embedder, profile: KnowledgeProfile | None = None, *,
                 chunk_chars: int = DEFAULT_CHUNK_CHARS) -> None:
        self.db = db
        self.embedder = embedder
        self.profile = profile
        self.chunk_chars = chunk_chars
        self._checked = False
        self._gates: dict[str, tuple[str | None, GateInUse]] = {}  # knowledge base -> (stored value, gate in use)

    async def close(self) -> None:
        """Release the embedder's client (the database belongs to whoever opened it)."""
        close = getattr(self.embedder, "close", None)
        if close is not None:
            await close()

    async def meta(self) -> tuple[str, int] | None:
        """(embedder name, dim) recorded with the data, or None before the first ingestion."""
        async with self.db.pool.connection() as conn:
            cur = await conn.execute("SELECT key, value FROM kb_meta WHERE key IN ('embedder', 'dim')")
            rows: dict[str, str] = dict(await cur.fetchall())
        if "embedder" not in rows or "dim" not in rows:
            return None
        return rows["embedder"], int(rows["dim"])

    async def check_embedder(self) -> None:
        """Raise `EmbedderMismatch` when the stored vectors do not come from the configured embedder."""
        meta = await self.meta()
        if meta is not None and meta != (self.embedder.name, self.embedder.dim):
            raise EmbedderMismatch(mismatch_message(meta[0], meta[1], self.embedder.name, self.embedder.dim))
        self._checked = True

    async def ingest(
        self, entries: Sequence[KBEntry], *, prune: bool = False, reembed: bool = False, max_prune_share: float | None = None
    ) -> IngestSummary:
        """Upsert `entries` by id. Unchanged entries are skipped; changed ones re-chunked and re-embedded.

        The entries are the knowledge base of `profile` (its name is stored with each). `prune` deletes stored
        entries of that knowledge base whose id is not in `entries` (another policy's entries are not this file's
        business); when that would be more than `max_prune_share` of them, `PruneRefused` is raised and nothing at
        all is written (one transaction). An id another knowledge base holds is refused (`IdTaken`), nothing
        written. `reembed` re-embeds every stored chunk with the configured embedder (required after changing
        it)."""
        if self.profile is None:
            raise ValueError("no knowledge profile: the policy declares no knowledge base")
        name = self.profile.name
        if not reembed:
            await self.check_embedder()
        async with self.db.pool.connection() as conn:
            cur = await conn.execute("SELECT id, content_hash, kb FROM kb_entries")
            stored = await cur.fetchall()
        existing: dict[str, str] = {r[0]: r[1] for r in stored}
        kb_of: dict[str, str] = {r[0]: r[2] for r in stored}
        taken = sorted(e.id for e in entries if kb_of.get(e.id, name) != name)
        if taken:
            raise IdTaken(f"entry {taken[0]}: the id is taken by the knowledge base {kb_of[taken[0]]} "
                             f"(ids are unique across knowledge bases; {len(taken)} such)")
        kb_of.update({e.id: name for e in entries})
        own = {r[0] for r in stored if r[2] == name}
        file_ids = {e.id for e in entries}
        doomed = len(own - file_ids)
        if prune and max_prune_share is not None and doomed > max_prune_share * len(own):
            raise PruneRefused(doomed, len(own), max_prune_share)  # before any embedding work; re-checked below
        inserted = updated = unchanged = 0
        todo: list[KBEntry] = []
        for e in entries:
            old = existing.get(e.id)
            if old is None:
                inserted += 1
                todo.append(e)
            elif old != e.content_hash() or reembed:
                updated += 1
                todo.append(e)
            else:
                unchanged += 1
        if reembed and not prune:
            todo.extend(await self._stored_entries(sorted(set(existing) - file_ids)))
        rows = await self._chunk_rows(todo, kb_of)
        pruned = 0
        dim = self.embedder.dim
        async with self.db.pool.connection() as conn, conn.transaction():
            await conn.execute("SELECT pg_advisory_xact_lock(%s)", (KB_LOCK_KEY,))
            if prune and max_prune_share is not None:
                await self._check_prune(conn, file_ids, name, max_prune_share)
            await self._ensure_vector_column(conn, dim)
            if reembed:
                await conn.execute("DELETE FROM kb_chunks")
            async with conn.cursor() as cur:
                if todo:
                    await cur.executemany(
                        "INSERT INTO kb_entries (id, language, scopes, title, text, source, updated_at, tags,"
                        " content_hash, kb, questions, ingested_at)"
                        " VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, now())"
                        " ON CONFLICT (id) DO UPDATE SET language = EXCLUDED.language, scopes = EXCLUDED.scopes,"
                        " title = EXCLUDED.title, text = EXCLUDED.text, source = EXCLUDED.source,"
                        " updated_at = EXCLUDED.updated_at, tags = EXCLUDED.tags, questions = EXCLUDED.questions,"
                        " content_hash = EXCLUDED.content_hash, ingested_at = now()",
                        [(e.id, e.language, list(e.scopes), e.title, e.text, e.source, e.updated_at, list(e.tags),
                          e.content_hash(), kb_of[e.id], list(e.questions)) for e in todo],
                    )
                    await cur.execute("DELETE FROM kb_chunks WHERE entry_id = ANY(%s)", ([e.id for e in todo],))
                bulk = len(rows) >= HNSW_REBUILD_ROWS
                if bulk:  # building the index once is much faster than inserting into it row by row
                    await cur.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
                if rows:
                    await cur.executemany(
                        "INSERT INTO kb_chunks (entry_id, chunk_no, language, scopes, text, tsv, embedding, kb)"
                        " VALUES (%s, %s, %s, %s, %s,"
                        " setweight(to_tsvector('simple', %s), 'A') || setweight(to_tsvector('simple', %s), 'D'), %s,"
                        " %s)",
                        rows,
                    )
                if bulk:
                    await cur.execute(
                        f"CREATE INDEX {HNSW_INDEX} ON kb_chunks USING hnsw (embedding vector_cosine_ops)")
                if prune:
                    await cur.execute("DELETE FROM kb_entries WHERE NOT (id = ANY(%s)) AND kb = %s",
                                      (sorted(file_ids), name))
                    pruned = cur.rowcount
            await conn.execute(
                "INSERT INTO kb_meta (key, value) VALUES ('embedder', %s), ('dim', %s)"
                " ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (self.embedder.name, str(dim)),
            )
            dropped = (await conn.execute(DROP_OTHER_GATES_SQL, drop_other_gates_params(self.embedder.name, dim))
                       ).rowcount  # gates fitted to another embedder's vectors
        self._checked = True
        summary = IngestSummary(len(entries), inserted, updated, unchanged, pruned, dropped)
        log.info("kb_ingested", embedder=self.embedder.name, chunks=len(rows), **summary.__dict__)
        return summary

    @staticmethod
    async def _check_prune(conn: AsyncConnection, file_ids: set[str], kb: str, max_share: float) -> None:
        cur = await conn.execute(
            "SELECT count(*), count(*) FILTER (WHERE NOT (id = ANY(%s))) FROM kb_entries WHERE kb = %s",
            (sorted(file_ids), kb),
        )
        row = await cur.fetchone()
        total, doomed = (int(row[0]), int(row[1])) if row else (0, 0)
        if doomed and doomed > max_share * total:
            raise PruneRefused(doomed, total, max_share)

    async def _stored_entries(self, ids: list[str]) -> list[KBEntry]:
        if not ids:
            return []
        async with self.db.pool.connection() as conn:
            cur = await conn.execute(
                "SELECT id, language, scopes, title, text, source, updated_at, tags, questions FROM kb_entries"
                " WHERE id = ANY(%s) ORDER BY id", (ids,))
            return [KBEntry(r[0], r[1], tuple(r[2]), r[3], r[4], r[5], r[6], tuple(r[7]), tuple(r[8]))
                    for r in await cur.fetchall()]

    async def _chunk_rows(self, entries: Sequence[KBEntry], kb_of: dict[str, str]) -> list[tuple]:
        """(entry_id, chunk_no, language, scopes, text, title, full text, vector, knowledge base) for every chunk of
        `entries` (`kb_of`: each entry's knowledge base).

        A chunk's vector is the embedding of "title. chunk" plus `TITLE_WEIGHT` times the title's own, normalised,
        so that the topic named in the title counts even in a chunk full of prices and numbers. The full text of an
        entry's first chunk also holds its example questions (never embedded, never read aloud), so a question
        worded like one of them finds the entry, whose relevance then counts them (examples.py)."""
        pending: list[tuple[KBEntry, int, str]] = []
        for e in entries:
            for n, chunk in enumerate(chunk_text(e.text, self.chunk_chars)):
                pending.append((e, n, chunk))
        texts = [f"{e.title}. {chunk}" for e, _, chunk in pending]
        titles = sorted({e.title for e in entries})
        vectors = await self._embed_all(texts)
        title_vecs = dict(zip(titles, await self._embed_all(titles), strict=True))
        rows = []
        for (e, n, chunk), vec in zip(pending, vectors, strict=True):
            mixed = vec + TITLE_WEIGHT * title_vecs[e.title]
            norm = float(np.linalg.norm(mixed))
            found_by = f"{chunk} {' '.join(e.questions)}" if n == 0 and e.questions else chunk
            rows.append((e.id, n, e.language, list(e.scopes), chunk, e.title, found_by,
                         Vector((mixed / norm if norm > 0 else mixed).astype(np.float32)), kb_of[e.id]))
        return rows

    async def _embed_all(self, texts: Sequence[str]) -> list[np.ndarray]:
        out: list[np.ndarray] = []
        for start in range(0, len(texts), EMBED_BATCH):
            out.extend(await self.embedder.embed(texts[start : start + EMBED_BATCH]))
        return out

    async def _ensure_vector_column(self, conn: AsyncConnection, dim: int) -> None:
        """Give kb_chunks.embedding the embedder's dimension and an HNSW (cosine) index."""
        cur = await conn.execute(
            "SELECT atttypmod FROM pg_attribute WHERE attrelid = 'kb_chunks'::regclass AND attname = 'embedding'")
        row = await cur.fetchone()
        typmod = row[0] if row else None
        if typmod == dim:
            return
        await conn.execute("DELETE FROM kb_chunks")
        await conn.execute(f"DROP INDEX IF EXISTS {HNSW_INDEX}")
        await conn.execute(f"ALTER TABLE kb_chunks ALTER COLUMN embedding TYPE vector({int(dim)})")
        await conn.execute(
            f"CREATE INDEX {HNSW_INDEX} ON kb_chunks USING hnsw (embedding vector_cosine_ops)")
        log.info("kb_vector_column_set", dim=dim)

    async def search(
        self, query: str, language: str, scope: Mapping[str, str] | str = "", limit: int = 3,
        fallback_languages: Sequence[str] = (), *, profile: KnowledgeProfile | None = None,
    ) -> list[KnowledgeHit]:
        """Best `limit` entries for `query` in `language` of the knowledge base of `profile` (else the default one)
        for a scope value (`scope`: the value, or the policy's mapping {scope key: value}; its entries plus those
        for all, or those alone when no value is given), each with its citation and absolute relevance (the
        profile's scorer) and the gate in use (the one calibrated for the embedder, else the scorer's), most
        relevant first. A question with no relevant answer in `language` is answered from
        the first of `fallback_languages` (the caller's policy says which: the operator asks kk -> ru), hits marked
        `fallback=True`. An entry for particular values is only for them: when the question names a place and
        matched another value's entry on it at least as well as any own hit (selection.py), no hit is
        returned, so an entry for all that merely reaches the gate is not read to a caller who asked about another
        region. Exactly one SQL statement (and one more when the calibrated gate changed, to log it)."""
        found = await self.candidates(query, language, scope, limit, fallback_languages, profile=profile)
        if found is None or not found.rows:
            return []
        hits, named = found.choose((await self._gate_of(profile or self.profile, found.stored_gate)).gate)
        if named is not None:
            log.info("kb_other_region_matched", relevance=named.score, places=named.matched)
        return hits

    async def candidates(
        self, query: str, language: str, scope: Mapping[str, str] | str = "", limit: int = 3,
        fallback_languages: Sequence[str] = (), *, profile: KnowledgeProfile | None = None,
    ) -> Candidates | None:
        """A search's candidates fetched and scored, before any gate is applied (see `search`; None: nothing to
        search with)."""
        profile = profile or self.profile
        if profile is None:
            raise ValueError("no knowledge profile: the policy declares no knowledge base")
        if not valid_language(language) or language not in profile.languages:
            raise ValueError(f"language: {language!r} is not a language of the knowledge base {profile.name} "
                             f"(allowed: {', '.join(profile.languages)})")
        value = scope_value(profile, scope)
        if not self._checked:
            await self.check_embedder()
        scorer: Scorer = profile.scorer
        scopes = [profile.scope.everywhere] + ([value] if value else [])
        fallback = next((f for f in fallback_languages if f != language), None)
        langs = [language] + ([fallback] if fallback else [])
        vec = (await self.embedder.embed([query]))[0]
        terms = term_patterns(query)
        if not terms and not np.any(vec):
            return None  # nothing to search with (only stop words): a zero vector has no cosine distance
        params = search_params(Vector(vec), terms, langs, scopes, max(limit, RERANK_POOL), presence=bool(fallback),
                               synonyms=synonym_patterns(scorer.synonym_stems(query), terms),
                               everywhere=profile.scope.everywhere, kb=profile.name,
                               gate_key=gate_key(profile.name, self.embedder.name, self.embedder.dim))
        fetched = await self.db.read(SEARCH_SQL, params)  # the read replica when one is set and fit
        rows = [r for r in fetched if r[10]]
        unseen = scorer.unseen_words(query, [(r[1], r[3]) for r in rows])
        return Candidates(rows, {r[0]: scorer.relevance(query, r[1], r[3], unseen, r[13]) for r in rows},
                          [scorer.relevance(query, r[1], r[3], unseen, r[13]) for r in fetched if not r[10]],
                          language, fallback, scorer, limit, fetched[0][12] if fetched else None,
                          judge_of(profile.classifier, scorer, query, language, rows))

    async def _gate_of(self, profile: KnowledgeProfile | None, stored: str | None) -> GateInUse:
        """The gate in use for `profile` given the stored value a search read: the last one worked out while that
        value stays the same, else worked out again (`gate_in_use`, which logs it)."""
        assert profile is not None
        seen = self._gates.get(profile.name)
        if seen is not None and seen[0] == stored:
            return seen[1]
        return await self.gate_in_use(profile, read=(stored,))

    async def gate_in_use(self, profile: KnowledgeProfile, *, read: tuple[str | None] | None = None) -> GateInUse:
        """The gate the knowledge base of `profile` answers with for the configured embedder and where it comes
        from (gate.py), logged as one `kb_gate` line (the daemon says it at start, a call at its first search).
        `read`: the stored value a search read (what that search answers with, whatever a replica's lag)."""
        async with self.db.pool.connection() as conn:
            cur = await conn.execute("SELECT key, value FROM kb_meta WHERE starts_with(key, 'gate/')")
            meta: dict[str, str] = dict(await cur.fetchall())
        key = gate_key(profile.name, self.embedder.name, self.embedder.dim)
        if read is not None:
            meta = {k: v for k, v in meta.items() if k != key} | ({key: read[0]} if read[0] is not None else {})
        in_use = gate_in_use(profile.name, self.embedder.name, self.embedder.dim, profile.scorer.gate, meta)
        self._gates[profile.name] = (meta.get(key), in_use)
        log.info("kb_gate", knowledge_base=profile.name, gate=in_use.gate, calibrated=in_use.calibrated,
                 source=in_use.source)
        return in_use

    async def store_gate(self, profile: KnowledgeProfile, value: str) -> None:
        """Store the calibrated gate `value` (gate.StoredGate's JSON) of `profile`'s knowledge base for the
        configured embedder."""
        async with self.db.pool.connection() as conn:
            await conn.execute(
                "INSERT INTO kb_meta (key, value) VALUES (%s, %s) ON CONFLICT (key) DO UPDATE SET value = EXCLUDED.value",
                (gate_key(profile.name, self.embedder.name, self.embedder.dim), value))

    async def entry_ids(self, profile: KnowledgeProfile) -> list[tuple[str, str]]:
        """(id, language) of every entry of `profile`'s knowledge base."""
        async with self.db.pool.connection() as conn:
            cur = await conn.execute("SELECT id, language FROM kb_entries WHERE kb = %s ORDER BY id", (profile.name,))
            return [(r[0], r[1]) for r in await cur.fetchall()]

    async def questions(self) -> dict[str, tuple[str, ...]]:
        """The example questions of every stored entry that has some, by id (for the scorer to read ahead)."""
        async with self.db.pool.connection() as conn:
            cur = await conn.execute("SELECT id, questions FROM kb_entries WHERE cardinality(questions) > 0")
            return {r[0]: tuple(r[1]) for r in await cur.fetchall()}

    async def version(self) -> tuple[int, str]:
        """(entries, last ingestion time): changes whenever an ingestion adds, changes or prunes an entry."""
        async with self.db.pool.connection() as conn:
            cur = await conn.execute("SELECT count(*), coalesce(max(ingested_at)::text, '') FROM kb_entries")
            row = await cur.fetchone()
        return (int(row[0]), str(row[1])) if row else (0, "")

    async def entries(self) -> list[KnowledgeHit]:
        """Every stored entry as a hit that is not scored (for reading answers out ahead), by id."""
        async with self.db.pool.connection() as conn:
            cur = await conn.execute("SELECT id, title, source, text, language FROM kb_entries ORDER BY id")
            rows = await cur.fetchall()
        return [KnowledgeHit(entry_id=r[0], title=r[1], source=r[2], text=r[3], score=1.0, language=r[4])
                for r in rows]

    async def stats(self) -> dict:
        """Entries and chunks per language and per scope value, plus the embedder and dimension in use."""
        async with self.db.pool.connection() as conn:
            cur = await conn.execute("SELECT language, count(*) FROM kb_entries GROUP BY language")
            entries: dict[str, int] = dict(await cur.fetchall())
            cur = await conn.execute("SELECT language, count(*) FROM kb_chunks GROUP BY language")
            chunks: dict[str, int] = dict(await cur.fetchall())
            cur = await conn.execute(
                "SELECT language, r, count(*) FROM kb_entries, unnest(scopes) r GROUP BY 1, 2 ORDER BY 1, 2")
            scopes: dict[str, dict[str, int]] = {}
            for lang, value, n in await cur.fetchall():
                scopes.setdefault(lang, {})[value] = n
            cur = await conn.execute("SELECT DISTINCT vector_dims(embedding) FROM kb_chunks")
            dims = sorted(r[0] for r in await cur.fetchall())
        meta = await self.meta()
        return {"entries": entries, "chunks": chunks, "scopes": scopes,
                "embedder": meta[0] if meta else None, "dim": meta[1] if meta else None, "chunk_dims": dims,
                "configured_embedder": self.embedder.name, "configured_dim": self.embedder.dim}

