"""Knowledge base: JSONL parsing and chunking (ingest.py), embedders (embeddings.py), the hybrid search query
(query.py, search_sql.py), storage and search in PostgreSQL (store.py) and the `kb` sub-commands (commands.py)."""
