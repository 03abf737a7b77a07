"""The one SQL statement of a hybrid knowledge-base search (no I/O here, just the text and its parameters).

For the languages asked: the `VECTOR_CANDIDATES` nearest chunks by cosine distance (one HNSW index scan) and the
full-text matches (GIN index, `simple` tsvector; at most `TEXT_MATCH_CAP` of them are ranked, so a very common
word cannot make the query slow - the vector side still finds the close chunks) - both restricted to the
scope's entries (the operator's: a region) plus those for all (`everywhere`, the operator's `*`: national) - are fused by reciprocal rank fusion (score = sum of 1/(k + rank)),
reduced to the best chunk of each entry, and the top `limit` entries of each language (plus those whose chunk is
among the `limit` best full-text matches: an entry the vector side missed still reaches the relevance re-ranking)
come back with their citation fields, the best cosine similarity and whether the full-text part matched, which query terms the chunk
contains, and which query terms occur in any candidate chunk of each language (these three feed the kk -> ru
fallback decision; the last only when a fallback language is asked, `df_terms` is empty otherwise), and `own`
true. After them come up to `OTHER_REGION_CANDIDATES` entries of *other* scope values that the full text matches
best (`own` false, score 0): never an answer, they let the store see that a question is about another region.
The column `regional` says whether the entry is for particular scope values rather than for all; the last,
`gate`, is the relevance gate calibrated for the knowledge base and embedder (`kb_meta` under `gate_key`; NULL:
none), read here so that a search never needs a second round trip for it; after it the entry's example questions
(`questions`, for the relevance score alone).
"""

from __future__ import annotations

RRF_K = 60
VECTOR_CANDIDATES = 60
TEXT_CANDIDATES = 40
TEXT_MATCH_CAP = 400  # full-text matches ranked at most: bounds latency when a word is in thousands of chunks
OTHER_REGION_CANDIDATES = 3  # other regions' entries matched by text, returned only to be compared (never answers)

SEARCH_SQL = """
WITH vec AS (
    SELECT v.id, v.entry_id, v.language, 1 - v.dist AS sim,
           row_number() OVER (PARTITION BY v.language ORDER BY v.dist, v.id) AS rnk
    FROM (
        SELECT c.id, c.entry_id, c.language, c.embedding <=> %(emb)s AS dist
        FROM kb_chunks c
        WHERE c.kb = %(kb)s AND c.language = ANY(%(langs)s::text[]) AND c.scopes && %(scopes)s::text[]
        ORDER BY c.embedding <=> %(emb)s
        LIMIT %(vk)s
    ) v
),
fts AS (
    SELECT f.id, f.entry_id, f.language, f.rnk FROM (
        SELECT m.id, m.entry_id, m.language,
               row_number() OVER (PARTITION BY m.language ORDER BY ts_rank_cd(m.tsv, m.tsq) DESC, m.id) AS rnk
        FROM (
            SELECT c.id, c.entry_id, c.language, c.tsv, q.tsq
            FROM kb_chunks c, (SELECT to_tsquery('simple', %(tsq)s) AS tsq) q
            WHERE c.kb = %(kb)s AND c.language = ANY(%(langs)s::text[]) AND c.scopes && %(scopes)s::text[] AND c.tsv @@ q.tsq
            LIMIT %(cap)s
        ) m
    ) f
    WHERE f.rnk <= %(tk)s
),
fused AS (
    SELECT id, entry_id, language, sum(1.0 / (%(rrf_k)s + rnk)) AS score, max(sim) AS sim, bool_or(is_fts) AS fts,
           min(rnk) FILTER (WHERE is_fts) AS fts_rnk
    FROM (
        SELECT id, entry_id, language, rnk, sim, false AS is_fts FROM vec
        UNION ALL
        SELECT id, entry_id, language, rnk, NULL::float8, true FROM fts
    ) u
    GROUP BY id, entry_id, language
),
best AS (
    SELECT DISTINCT ON (entry_id) entry_id, id, language, score, sim, fts, fts_rnk
    FROM fused ORDER BY entry_id, score DESC, id
),
present AS (
    SELECT DISTINCT f.language || ' ' || t.term AS lang_term
    FROM fused f JOIN kb_chunks c ON c.id = f.id, unnest(%(df_terms)s::text[]) AS t(term)
    WHERE c.tsv @@ to_tsquery('simple', t.term)
),
other AS (
    SELECT o.entry_id, o.id, o.language FROM (
        SELECT DISTINCT ON (c.entry_id) c.entry_id, c.id, c.language, ts_rank_cd(c.tsv, q.tsq) AS rank
        FROM kb_chunks c, (SELECT to_tsquery('simple', %(tsq)s) AS tsq) q
        WHERE c.kb = %(kb)s AND c.language = ANY(%(langs)s::text[]) AND NOT (c.scopes && %(scopes)s::text[]) AND c.tsv @@ q.tsq
        ORDER BY c.entry_id, rank DESC, c.id
        LIMIT %(cap)s
    ) o
    ORDER BY o.rank DESC, o.entry_id
    LIMIT %(other)s
),
ranked AS (
    SELECT b.*, row_number() OVER (PARTITION BY b.language ORDER BY b.score DESC, b.entry_id) AS pos FROM best b
)
SELECT * FROM (
    SELECT r.entry_id, e.title, e.source, c.text, r.score::float8 AS score, r.language, r.sim::float8, r.fts,
           ARRAY(SELECT t FROM unnest(%(terms)s::text[]) t WHERE c.tsv @@ to_tsquery('simple', t)) AS matched,
           ARRAY(SELECT lang_term FROM present) AS present, true AS own, NOT (%(everywhere)s::text = ANY(e.scopes)) AS regional,
           (SELECT value FROM kb_meta WHERE key = %(gate_key)s) AS gate, e.questions
    FROM ranked r
    JOIN kb_chunks c ON c.id = r.id
    JOIN kb_entries e ON e.id = r.entry_id
    WHERE r.pos <= %(limit)s OR r.fts_rnk <= %(limit)s
    UNION ALL
    SELECT o.entry_id, e.title, e.source, c.text, 0.0::float8, o.language, NULL::float8, true,
           ARRAY[]::text[], ARRAY[]::text[], false, true, (SELECT value FROM kb_meta WHERE key = %(gate_key)s),
           e.questions
    FROM other o
    JOIN kb_chunks c ON c.id = o.id
    JOIN kb_entries e ON e.id = o.entry_id
) hits
ORDER BY language, own DESC, score DESC, entry_id
"""


def search_params(embedding: object, terms: list[str], languages: list[str], scopes: list[str],
                  limit: int, *, presence: bool = False, synonyms: list[str] | None = None,
                  everywhere: str = "*", kb: str, gate_key: str = "") -> dict[str, object]:
    """`terms`: the tsquery operands of the query's content words (see query.py); OR-ed with `synonyms` (the
    operands of their lexicon synonyms) for the text match. `matched`/`present` report `terms` only. `scopes`: the
    scope values searched (the profile's `everywhere` value and the asked one); `kb`: the knowledge base searched
    (its profile's name): another one's entries are never read, whatever their language and scope values;
    `gate_key`: where its calibrated gate is stored (gate.py)."""
    return {"emb": embedding, "tsq": " | ".join([*terms, *(synonyms or [])]), "terms": terms,
            "df_terms": terms if presence else [],
            "kb": kb, "langs": languages, "scopes": scopes, "everywhere": everywhere, "limit": limit,
            "vk": VECTOR_CANDIDATES, "cap": TEXT_MATCH_CAP, "tk": TEXT_CANDIDATES, "rrf_k": RRF_K,
            "other": OTHER_REGION_CANDIDATES, "gate_key": gate_key}
