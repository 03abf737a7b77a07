"""Storage: the database handle (embedded pgserver or DATABASE_URL, pool, migrations) and call records with a
disk spool for outages. See database.py and records.py."""

from ai_operator.storage.database import Database, mask_dsn
from ai_operator.storage.records import CallRecord, RecordStore, TurnRecord

__all__ = ["CallRecord", "Database", "RecordStore", "TurnRecord", "mask_dsn"]
