-- Knowledge-base scope: what an entry is for is the value list of its policy's scope (`KnowledgeScope` in
-- ai_operator/dialogue.py: the operator's is a region, ISO 3166-2 codes or "*"), not a region by name. The
-- columns are renamed, their values kept as they are, so every stored entry stays valid and is found as before.
-- Languages were freed from the database in migration 0003 (the shape of a code only); which ones a knowledge
-- base admits is its profile's, checked by `kb ingest` line by line (ai_operator/kb/ingest.py).
ALTER TABLE kb_entries RENAME COLUMN regions TO scopes;
ALTER TABLE kb_chunks RENAME COLUMN regions TO scopes;
ALTER INDEX kb_chunks_regions_idx RENAME TO kb_chunks_scopes_idx;
