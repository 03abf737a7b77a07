-- Knowledge-base languages are not a fixed list in the database: the languages accepted are the policies'
-- (checked by `kb ingest` line by line, ai_operator/kb/commands.py). The table keeps only the shape of a code,
-- the same pattern as LANGUAGE_PATTERN in ai_operator/kb/ingest.py (a test keeps the two equal), so a line the
-- validator accepts is never refused here (which would abort the whole file).
ALTER TABLE kb_entries DROP CONSTRAINT IF EXISTS kb_entries_language_check;
ALTER TABLE kb_entries DROP CONSTRAINT IF EXISTS kb_entries_language_code;
ALTER TABLE kb_entries ADD CONSTRAINT kb_entries_language_code CHECK (language ~ '^[a-z]{2,3}$');
