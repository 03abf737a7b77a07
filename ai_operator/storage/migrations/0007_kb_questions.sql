-- An entry's example questions (ways callers ask for it, the JSONL line's optional "questions"): the relevance
-- score counts them as what the entry covers (ai_operator/kb/examples.py); they are never read aloud. Entries
-- stored before this migration have none.
ALTER TABLE kb_entries ADD COLUMN IF NOT EXISTS questions text[] NOT NULL DEFAULT '{}';
