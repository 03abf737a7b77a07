"""How each record operation is written to PostgreSQL: idempotent upserts (calls by call_id, turns by
(call_id, seq)), and how operations are turned into spool lines and back (validated, with a clear reason).
"""

from __future__ import annotations

import json
from dataclasses import asdict
from datetime import datetime
from typing import Any

from psycopg import AsyncConnection
from psycopg.types.json import Jsonb

from ai_operator.storage.record_types import MEDIA_FIELDS, CallRecord, TurnRecord, check_ended_by, check_media

_REQUIRED = {  # the fields each operation's spool line must carry
    "call_started": ("call_id", "route", "policy", "started_at"),
    "call_answered": ("call_id", "at"),
    "turn": ("call_id", "seq", "at"),
    "call_ended": ("call_id", "ended_at", "ended_by"),
}
OPS = tuple(_REQUIRED)
_DATETIME_KEYS = ("started_at", "answered_at", "ended_at", "at")


class RecordDataError(ValueError):
    """A record the database refuses for what it is (not because it is unreachable)."""


def encode_op(op: str, data: dict[str, Any]) -> dict[str, Any]:
    """A JSON-ready spool record."""
    out = {k: (v.isoformat() if isinstance(v, datetime) else v) for k, v in data.items()}
    return {"op": op, "data": out}


def decode_line(raw: bytes) -> tuple[str, dict[str, Any]]:
    """Parse and validate one spool line; `ValueError` says what is wrong with it."""
    try:
        obj = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as exc:
        raise ValueError(f"invalid JSON: {exc}") from None
    if not isinstance(obj, dict) or obj.get("op") not in OPS or not isinstance(obj.get("data"), dict):
        raise ValueError("expected an object with op (one of " + ", ".join(OPS) + ") and data")
    op, data = obj["op"], dict(obj["data"])
    for key in _DATETIME_KEYS:
        if isinstance(data.get(key), str):
            try:
                data[key] = datetime.fromisoformat(data[key])
            except ValueError:
                raise ValueError(f"field {key}: not an ISO timestamp: {data[key]!r}") from None
    for key in _REQUIRED[op]:
        if data.get(key) is None:
            raise ValueError(f"{op}: missing field {key}")
    try:
        if op == "call_started":
            CallRecord(**data)
        elif op == "turn":
            TurnRecord(**data)
        elif op == "call_ended":
            check_ended_by(data["ended_by"])
            check_media(data)
    except (TypeError, ValueError) as exc:
        raise ValueError(f"{op}: {exc}") from None
    return op, data


async def apply_op(conn: AsyncConnection, op: str, data: dict[str, Any]) -> None:
    """Write one operation. Raises `RecordDataError` when the row cannot exist (e.g. no such call)."""
    if op == "call_started":
        rec = CallRecord(**data)
        await conn.execute(
            "INSERT INTO calls (call_id, route, policy, caller_id, direction, started_at, answered_at, ended_at,"
            " ended_by, disposition, summary) VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s)"
            " ON CONFLICT (call_id) DO UPDATE SET route = EXCLUDED.route, policy = EXCLUDED.policy,"
            " caller_id = EXCLUDED.caller_id, direction = EXCLUDED.direction, started_at = EXCLUDED.started_at",
            (rec.call_id, rec.route, rec.policy, rec.caller_id, rec.direction, rec.started_at, rec.answered_at,
             rec.ended_at, rec.ended_by, rec.disposition, Jsonb(rec.summary)),
        )
    elif op == "turn":
        t = TurnRecord(**data)
        cur = await conn.execute(
            "INSERT INTO turns (call_id, seq, at, caller_text, bot_text, state, fields, tool_calls, timings)"
            " SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s WHERE EXISTS (SELECT 1 FROM calls WHERE call_id = %s)"
            " ON CONFLICT (call_id, seq) DO UPDATE SET at = EXCLUDED.at, caller_text = EXCLUDED.caller_text,"
            " bot_text = EXCLUDED.bot_text, state = EXCLUDED.state, fields = EXCLUDED.fields,"
            " tool_calls = EXCLUDED.tool_calls, timings = EXCLUDED.timings",
            (t.call_id, t.seq, t.at, t.caller_text, t.bot_text, t.state, Jsonb(t.fields), Jsonb(t.tool_calls),
             Jsonb(t.timings), t.call_id),
        )
        _need_row(cur.rowcount, op, t.call_id)
    elif op == "call_answered":
        cur = await conn.execute(
            "UPDATE calls SET answered_at = %s WHERE call_id = %s", (data["at"], data["call_id"])
        )
        _need_row(cur.rowcount, op, data["call_id"])
    elif op == "call_ended":
        summary = data.get("summary")
        cur = await conn.execute(
            "UPDATE calls SET ended_at = %s, ended_by = %s, disposition = %s, summary = COALESCE(%s, summary),"
            " rtp_packets_received = COALESCE(%s, rtp_packets_received),"
            " rtp_packets_expected = COALESCE(%s, rtp_packets_expected),"
            " rtp_packets_lost = COALESCE(%s, rtp_packets_lost), rtp_jitter_ms = COALESCE(%s, rtp_jitter_ms)"
            " WHERE call_id = %s",
            (data["ended_at"], data["ended_by"], data.get("disposition"),
             Jsonb(summary) if summary is not None else None, *(data.get(k) for k in MEDIA_FIELDS),
             data["call_id"]),
        )
        _need_row(cur.rowcount, op, data["call_id"])
    else:
        raise RecordDataError(f"unknown record operation {op!r}")


def _need_row(rowcount: int, op: str, call_id: str) -> None:
    if rowcount == 0:
        raise RecordDataError(f"{op}: no call {call_id!r} (call_started was never written)")


def record_data(rec: CallRecord | TurnRecord) -> dict[str, Any]:
    return asdict(rec)


def fold_call(call_id: str, lines: list[tuple[int, bytes]]) -> dict[str, Any] | None:
    """One call's spooled operations folded into the shape `RecordStore.get_call` returns (the call's columns
    plus "turns" ordered by seq), or None when the spool holds nothing of it. Unreadable lines are skipped."""
    call: dict[str, Any] | None = None
    turns: dict[int, dict[str, Any]] = {}
    for _, raw in lines:
        try:
            op, data = decode_line(raw)
        except ValueError:
            continue
        if data.get("call_id") != call_id:
            continue
        call = call if call is not None else {"call_id": call_id, "turns": []}
        if op == "call_started":
            call.update({k: v for k, v in data.items() if v is not None or k not in call})
        elif op == "call_answered":
            call["answered_at"] = data["at"]
        elif op == "turn":
            turns[data["seq"]] = {k: v for k, v in data.items() if k != "call_id"}
        elif op == "call_ended":
            call.update({k: v for k, v in data.items() if k != "summary"})
            if data.get("summary") is not None:
                call["summary"] = data["summary"]
    if call is None:
        return None
    call["turns"] = [turns[seq] for seq in sorted(turns)]
    return call
