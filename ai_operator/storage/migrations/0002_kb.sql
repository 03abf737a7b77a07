-- Knowledge base: entries (one per JSONL line), chunks (embedded, full-text indexed), and kb_meta (which
-- embedder and dimension produced the vectors). The vector column gets its dimension and its HNSW index from
-- the first ingestion (ai_operator/kb/store.py), because the dimension depends on the configured embedder.
CREATE EXTENSION IF NOT EXISTS vector;

CREATE TABLE IF NOT EXISTS kb_meta (
    key    text PRIMARY KEY,
    value  text NOT NULL
);

CREATE TABLE IF NOT EXISTS kb_entries (
    id            text PRIMARY KEY,
    language      text NOT NULL CHECK (language IN ('ru', 'kk')),
    regions       text[] NOT NULL,
    title         text NOT NULL,
    text          text NOT NULL,
    source        text NOT NULL,
    updated_at    text,
    tags          text[] NOT NULL DEFAULT '{}',
    content_hash  text NOT NULL,
    ingested_at   timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE IF NOT EXISTS kb_chunks (
    id         bigserial PRIMARY KEY,
    entry_id   text NOT NULL REFERENCES kb_entries (id) ON DELETE CASCADE,
    chunk_no   integer NOT NULL,
    language   text NOT NULL,
    regions    text[] NOT NULL,
    text       text NOT NULL,
    tsv        tsvector NOT NULL,
    embedding  vector NOT NULL,
    UNIQUE (entry_id, chunk_no)
);
CREATE INDEX IF NOT EXISTS kb_chunks_tsv_idx ON kb_chunks USING gin (tsv);
CREATE INDEX IF NOT EXISTS kb_chunks_regions_idx ON kb_chunks USING gin (regions);
