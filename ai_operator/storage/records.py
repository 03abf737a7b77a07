"""Call and turn records, written to PostgreSQL behind the call, spooled to disk while the database is unreachable.

A call never waits for its records: `call_started`, `turn`, ... only queue the record; one writer task writes
the queue in order, a batch per transaction (so a burst of calls costs one commit, not one each), and
`settled()` waits for what was queued so far (reads go through it, so a reader sees its own writes). A write
never raises into the call: when the database is down (or there is none), the record is appended to a
fsync'd JSON-lines spool and a background task replays the spool, in order, once the database answers again.
While anything waits in the spool, new records queue behind it so order is kept. Replays are idempotent
upserts, so nothing is duplicated. A record the database refuses for its content (e.g. a turn of an unknown
call) goes to `<spool>.rejected` with the reason and is logged - never silently lost.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import json
from collections import deque
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import Any

import psycopg
from psycopg.rows import dict_row

from ai_operator.background import BackgroundTask
from ai_operator.logs import get_logger
from ai_operator.storage.database import Database
from ai_operator.storage.record_sql import (
    RecordDataError,
    apply_op,
    decode_line,
    encode_op,
    fold_call,
    record_data,
)
from ai_operator.storage.record_types import ENDED_BY, CallMedia, CallRecord, TurnRecord, check_ended_by
from ai_operator.storage.spool import Spool

log = get_logger("storage")

DEFAULT_RETRY_S = 5.0
MAX_BATCH = 100  # records per transaction
WRITE_TIMEOUT_S = 2.0  # one write's budget before the record goes to the spool instead
CLOSE_FLUSH_TIMEOUT_S = 5.0

__all__ = ["ENDED_BY", "CallRecord", "RecordStore", "TurnRecord"]


_WRITE_ERRORS = (RecordDataError, psycopg.Error, OSError, TimeoutError)


def _describe(exc: BaseException) -> str:
    return f"{type(exc).__name__}: {exc}"


def _refusal(exc: BaseException) -> str | None:
    """Why the database refuses this record for its content, or None for an outage (unreachable / timed out /
    shut down: retry later)."""
    if isinstance(exc, RecordDataError):
        return str(exc)
    if isinstance(exc, psycopg.OperationalError | OSError | TimeoutError | psycopg.InterfaceError):
        return None
    return _describe(exc)


class RecordStore:
    """Writes call records; spools them when the database is unreachable."""

    def __init__(self, db: Database | None, spool_path: Path, *, retry_s: float = DEFAULT_RETRY_S,
                 write_timeout_s: float = WRITE_TIMEOUT_S) -> None:
        self.db = db
        self.retry_s = retry_s
        self.write_timeout_s = write_timeout_s
        self._spool = Spool(Path(spool_path))
        self._spooled = self._spool.count()  # records left from an earlier run are replayed too
        self._lock = asyncio.Lock()
        self._wake = asyncio.Event()
        self._retry = BackgroundTask(self._retry_loop, "record-spool-retry")
        self._queue: deque[tuple[str, dict[str, Any]]] = deque()
        self._queued = asyncio.Event()
        self._settled = asyncio.Event()
        self._settled.set()
        self._writer = BackgroundTask(self._writer_loop, "record-writer")

    @property
    def spooled(self) -> int:
        """Records currently waiting in the spool."""
        return self._spooled

    @property
    def pending(self) -> int:
        """Records queued and not written yet."""
        return len(self._queue)

    @property
    def spool_path(self) -> Path:
        return self._spool.path

    @property
    def rejected_path(self) -> Path:
        return self._spool.rejected_path

    async def call_started(self, rec: CallRecord) -> None:
        await self._submit("call_started", record_data(rec))

    async def call_answered(self, call_id: str, at: datetime) -> None:
        await self._submit("call_answered", {"call_id": call_id, "at": at})

    async def turn(self, rec: TurnRecord) -> None:
        await self._submit("turn", record_data(rec))

    async def call_ended(self, call_id: str, ended_at: datetime, ended_by: str, disposition: str | None,
                         summary: dict[str, Any] | None = None, media: CallMedia | None = None) -> None:
        """The call's end; `media` (what its RTP endpoint received) when it had a media leg."""
        check_ended_by(ended_by)
        await self._submit("call_ended", {"call_id": call_id, "ended_at": ended_at, "ended_by": ended_by,
                                          "disposition": disposition, "summary": summary,
                                          **(asdict(media) if media is not None else {})})

    async def _submit(self, op: str, data: dict[str, Any]) -> None:
        """Queue one record for the writer (started: returns at once); without a writer, write it now."""
        self._queue.append((op, data))
        self._settled.clear()
        if not self._writer.running:
            await self._drain()
        else:
            self._queued.set()

    async def settled(self) -> None:
        """Until every record queued so far is written (or spooled, or rejected)."""
        await self._settled.wait()

    async def _writer_loop(self) -> None:
        while True:
            await self._queued.wait()
            self._queued.clear()
            try:
                await self._drain()
            except Exception as exc:  # the writer must survive anything; the records stay queued
                log.error("record_writer_failed", error=_describe(exc))

    async def _drain(self) -> None:
        async with self._lock:
            while self._queue:
                batch = list(itertools.islice(self._queue, MAX_BATCH))
                await self._write_batch(batch)
                for _ in batch:  # taken off the queue only once written, spooled or rejected
                    self._queue.popleft()
            self._settled.set()

    async def _write_batch(self, batch: list[tuple[str, dict[str, Any]]]) -> None:
        if self.db is None or self._spooled > 0:
            for op, data in batch:
                await self._to_spool(op, data)
            return
        try:
            await asyncio.wait_for(self._apply(batch), self.write_timeout_s)
        except _WRITE_ERRORS as exc:
            if _refusal(exc) is None or len(batch) == 1:
                for op, data in batch:
                    await self._write_one_failed(op, data, exc)
                return
            for op, data in batch:  # one record is refused for its content: find it, write the others
                await self._write_one(op, data)

    async def _write_one(self, op: str, data: dict[str, Any]) -> None:
        if self.db is None or self._spooled > 0:
            await self._to_spool(op, data)
            return
        try:
            await asyncio.wait_for(self._apply([(op, data)]), self.write_timeout_s)
        except _WRITE_ERRORS as exc:
            await self._write_one_failed(op, data, exc)

    async def _write_one_failed(self, op: str, data: dict[str, Any], exc: BaseException) -> None:
        refusal = _refusal(exc)
        if refusal is None:
            await self._to_spool(op, data, reason=_describe(exc))
        else:
            await self._reject_record(op, data, refusal)

    async def _apply(self, batch: list[tuple[str, dict[str, Any]]]) -> None:
        """Write records in one transaction (all or none)."""
        assert self.db is not None
        async with self.db.pool.connection(timeout=self.write_timeout_s) as conn, conn.transaction():
            for op, data in batch:
                await apply_op(conn, op, data)

    async def _to_spool(self, op: str, data: dict[str, Any], reason: str | None = None) -> None:
        await asyncio.to_thread(self._spool.append, encode_op(op, data))
        self._spooled += 1
        if reason is not None:
            log.warning("record_spooled", op=op, call_id=data.get("call_id"), reason=reason, spooled=self._spooled)
        self._wake.set()

    async def _reject_record(self, op: str, data: dict[str, Any], reason: str) -> None:
        raw = json.dumps(encode_op(op, data), ensure_ascii=False).encode()
        await asyncio.to_thread(self._spool.reject, 0, raw, reason)
        log.error("record_rejected", op=op, call_id=data.get("call_id"), reason=reason,
                  kept_in=str(self._spool.rejected_path))

    async def flush_spool(self) -> int:
        """Write spooled records in order; returns how many were written. Stops (keeping the rest) at an outage.

        A line that cannot be parsed, or that the database refuses, is logged with its line number and moved to
        `<spool>.rejected`.
        """
        if self.db is None:
            return 0
        async with self._lock:
            lines = await asyncio.to_thread(self._spool.read)
            if not lines:
                self._spooled = 0
                return 0
            written = 0
            rest: list[bytes] = []
            for i, (line_no, raw) in enumerate(lines):
                try:
                    op, data = decode_line(raw)
                except ValueError as exc:
                    await self._reject_line(line_no, raw, str(exc))
                    continue
                try:
                    await asyncio.wait_for(self._apply([(op, data)]), self.write_timeout_s)
                    written += 1
                except _WRITE_ERRORS as exc:
                    refusal = _refusal(exc)
                    if refusal is not None:
                        await self._reject_line(line_no, raw, refusal)
                        continue
                    rest = [r for _, r in lines[i:]]
                    log.warning("spool_flush_stopped", written=written, left=len(rest), reason=_describe(exc))
                    break
            await asyncio.to_thread(self._spool.replace, rest)
            self._spooled = len(rest)
            if written:
                log.info("spool_flushed", written=written, left=self._spooled)
            return written

    async def _reject_line(self, line_no: int, raw: bytes, reason: str) -> None:
        await asyncio.to_thread(self._spool.reject, line_no, raw, reason)
        log.error("spool_line_rejected", line=line_no, reason=reason, kept_in=str(self._spool.rejected_path))

    async def get_call(self, call_id: str) -> dict[str, Any] | None:
        """The call row with its turns (ordered by seq) under "turns", or None. Records queued before are
        written first, spooled ones too when the database answers (a reader sees its own writes)."""
        await self.settled()
        if self._spooled and self.db is not None:
            await self.flush_spool()
        if self.db is None:
            return None
        async with self.db.pool.connection() as conn:
            cur = conn.cursor(row_factory=dict_row)
            await cur.execute("SELECT * FROM calls WHERE call_id = %s", (call_id,))
            call = await cur.fetchone()
            if call is None:
                return None
            await cur.execute(
                "SELECT seq, at, caller_text, bot_text, state, fields, tool_calls, timings FROM turns"
                " WHERE call_id = %s ORDER BY seq", (call_id,))
            call["turns"] = await cur.fetchall()
        return dict(call)

    def detach(self) -> None:
        """The database is known to be down: records go straight to the spool (no write waits on a dead pool)
        until `attach` is called again."""
        self.db = None

    async def spooled_call(self, call_id: str) -> dict[str, Any] | None:
        """What the spool holds of one call, shaped like `get_call` (None when nothing): the record as far as it
        is known while the database cannot be read."""
        lines = await asyncio.to_thread(self._spool.read)
        return fold_call(call_id, lines)

    def attach(self, db: Database) -> None:
        """The database is reachable (again, or for the first time): spooled records are replayed to it."""
        self.db = db
        if self._spooled:
            self._wake.set()

    async def start(self) -> None:
        """Start the writer, and the background task that replays the spool every `retry_s` while anything
        waits in it."""
        if not self._writer.running:
            self._writer.start()
            if self._queue:
                self._queued.set()
        if not self._retry.running:
            self._retry.start()
            if self._spooled:
                self._wake.set()

    async def _retry_loop(self) -> None:
        while True:
            await self._wake.wait()  # set while anything waits in the spool
            await asyncio.sleep(self.retry_s)
            if self.db is None:
                self._wake.clear()
                continue
            try:
                await self.flush_spool()
            except Exception as exc:  # the loop must survive anything
                log.error("spool_retry_failed", error=_describe(exc))
            if self._spooled == 0:
                self._wake.clear()

    async def close(self) -> None:
        """Write what is queued, stop the tasks and try a last flush; whatever is left stays in the spool."""
        if self._writer.running:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.settled(), CLOSE_FLUSH_TIMEOUT_S)
            await self._writer.stop()
            if self._queue:  # never lost: whatever could not be written in time goes to the spool
                log.warning("record_final_write_timed_out", left=len(self._queue))
                while self._queue:
                    op, data = self._queue.popleft()
                    await self._to_spool(op, data, reason="shutting down before the database answered")
        await self._retry.stop()
        if self._spooled and self.db is not None:
            try:
                await asyncio.wait_for(self.flush_spool(), CLOSE_FLUSH_TIMEOUT_S)
            except Exception as exc:
                log.warning("spool_final_flush_failed", left=self._spooled, error=_describe(exc))
