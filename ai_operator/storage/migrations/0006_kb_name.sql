-- Which knowledge base an entry belongs to: the name of its policy's `KnowledgeProfile` (ai_operator/dialogue/
-- knowledge.py). Two knowledge bases may share a language and scope values; a search reads its own alone, and an
-- ingestion prunes its own alone. Entries stored before this migration were the operator's, the only policy
-- with a knowledge base then; no default is kept, so every later row names its knowledge base.
ALTER TABLE kb_entries ADD COLUMN IF NOT EXISTS kb text NOT NULL DEFAULT 'operator';
ALTER TABLE kb_entries ALTER COLUMN kb DROP DEFAULT;
ALTER TABLE kb_chunks ADD COLUMN IF NOT EXISTS kb text NOT NULL DEFAULT 'operator';
ALTER TABLE kb_chunks ALTER COLUMN kb DROP DEFAULT;
CREATE INDEX IF NOT EXISTS kb_chunks_kb_idx ON kb_chunks (kb);
