"""RecordStore: calls and turns round-trip, idempotent upserts, the spool on a real outage and its replay."""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from ai_operator.storage.database import Database
from ai_operator.storage.record_types import CallMedia
from ai_operator.storage.records import CallRecord, RecordStore, TurnRecord
from tests.support.storage import shared_server
from tests.support.wait import eventually

T0 = datetime(2026, 3, 1, 10, 0, 0, tzinfo=UTC)


def call(call_id: str = "c1") -> CallRecord:
    return CallRecord(call_id=call_id, route="test", policy="operator", caller_id="+77010000000",
                      direction="inbound", started_at=T0)


def turn(seq: int, call_id: str = "c1") -> TurnRecord:
    return TurnRecord(call_id=call_id, seq=seq, at=T0 + timedelta(seconds=5 * seq), caller_text=f"вопрос {seq}",
                      bot_text=f"ответ {seq}", state="answering", fields={"language": "ru", "region_code": "KZ-71"},
                      tool_calls=[{"name": "kb_search", "allowed": True, "reason": "ok"}],
                      timings={"stt_ms": 120 + seq, "first_rtp_ms": 480})


async def test_round_trip_and_idempotent_upserts(db: Database, tmp_path: Path) -> None:
    store = RecordStore(db, tmp_path / "spool.jsonl")
    await store.call_started(call())
    await store.call_answered("c1", T0 + timedelta(seconds=2))
    await store.turn(turn(2))
    await store.turn(turn(1))
    await store.turn(turn(1))  # the same turn twice: still one row
    await store.call_started(call())  # replayed start does not wipe answer/end
    media = CallMedia(rtp_packets_received=1499, rtp_packets_expected=1502, rtp_packets_lost=3, rtp_jitter_ms=1.125)
    await store.call_ended("c1", T0 + timedelta(seconds=30), "caller", "resolved", {"topic": "tariffs"}, media)
    await store.call_ended("c1", T0 + timedelta(seconds=30), "caller", "resolved")  # a replay without figures
    row = await store.get_call("c1")
    assert row is not None
    assert row["route"] == "test" and row["direction"] == "inbound" and row["caller_id"] == "+77010000000"
    assert row["answered_at"] == T0 + timedelta(seconds=2)
    assert row["ended_by"] == "caller" and row["disposition"] == "resolved"
    assert row["summary"] == {"topic": "tariffs"}
    assert (row["rtp_packets_received"], row["rtp_packets_expected"], row["rtp_packets_lost"]) == (1499, 1502, 3)
    assert row["rtp_jitter_ms"] == 1.125
    assert [t["seq"] for t in row["turns"]] == [1, 2]
    assert row["turns"][0]["caller_text"] == "вопрос 1"
    assert row["turns"][1]["timings"] == {"stt_ms": 122, "first_rtp_ms": 480}
    assert row["turns"][0]["tool_calls"][0]["name"] == "kb_search"
    assert row["turns"][0]["fields"]["region_code"] == "KZ-71"
    assert store.spooled == 0 and not store.spool_path.exists()
    assert await store.get_call("nope") is None


async def test_bad_values_raise_clearly() -> None:
    with pytest.raises(ValueError, match="direction"):
        CallRecord(call_id="x", route="r", policy="p", caller_id=None, direction="sideways", started_at=T0)
    store = RecordStore(None, Path("/nonexistent/never-written.jsonl"))
    with pytest.raises(ValueError, match="ended_by"):
        await store.call_ended("x", T0, "nobody", None)
    with pytest.raises(ValueError, match=r"rtp_packets_lost: expected an integer, got 1\.5"):
        CallMedia(rtp_packets_received=1, rtp_packets_expected=2, rtp_packets_lost=1.5, rtp_jitter_ms=0.0)  # type: ignore[arg-type]


async def test_turn_of_unknown_call_is_kept_aside_not_raised(db: Database, tmp_path: Path) -> None:
    store = RecordStore(db, tmp_path / "spool.jsonl")
    await store.turn(turn(1, call_id="ghost"))
    assert store.spooled == 0
    rejected = [json.loads(x) for x in store.rejected_path.read_text().splitlines()]
    assert len(rejected) == 1 and "ghost" in rejected[0]["reason"] and '"seq": 1' in rejected[0]["raw"]


async def test_outage_spools_and_replays_without_loss_or_duplicates(db: Database, tmp_path: Path) -> None:
    server = shared_server()
    store = RecordStore(db, tmp_path / "spool.jsonl", retry_s=0.2, write_timeout_s=1.0)
    await store.start()
    await store.call_started(call())
    await store.turn(turn(1))
    await store.settled()
    assert store.spooled == 0
    await asyncio.to_thread(server.stop_now)
    try:
        await store.turn(turn(2))  # the database is gone: no exception, and the caller does not wait for it
        await store.turn(turn(3))
        await store.call_ended("c1", T0 + timedelta(seconds=60), "bot", "resolved", {"n": 3},
                               CallMedia(rtp_packets_received=3000, rtp_packets_expected=3000, rtp_packets_lost=0,
                                         rtp_jitter_ms=0.5))
        assert store.pending == 3  # queued behind the call, not written in its way
        await store.settled()  # the writer found the database gone: spooled, no exception
        assert store.spooled == 3
        lines = store.spool_path.read_text().splitlines()
        assert [json.loads(x)["op"] for x in lines] == ["turn", "turn", "call_ended"]
        saved = store.spool_path.read_bytes()
    finally:
        await asyncio.to_thread(server.restart)
    # The background task replays the spool once the database answers.
    await eventually(lambda: store.spooled == 0, 15, "the spool replayed")
    assert store.spooled == 0 and not store.spool_path.exists()
    row = await store.get_call("c1")
    assert row is not None and [t["seq"] for t in row["turns"]] == [1, 2, 3]
    assert row["ended_by"] == "bot" and row["summary"] == {"n": 3}
    assert (row["rtp_packets_received"], row["rtp_packets_lost"], row["rtp_jitter_ms"]) == (3000, 0, 0.5)
    # Replaying the very same spool again (e.g. a crash before truncation) duplicates nothing.
    store.spool_path.write_bytes(saved)
    again = RecordStore(db, store.spool_path)
    assert again.spooled == 3
    assert await again.flush_spool() == 3
    row = await again.get_call("c1")
    assert row is not None and [t["seq"] for t in row["turns"]] == [1, 2, 3]
    await store.close()


async def test_no_database_spools_then_later_store_flushes(db: Database, tmp_path: Path) -> None:
    spool = tmp_path / "spool.jsonl"
    offline = RecordStore(None, spool)
    await offline.call_started(call("c9"))
    await offline.turn(turn(1, "c9"))
    await offline.call_ended("c9", T0 + timedelta(seconds=9), "system", None)
    assert offline.spooled == 3 and await offline.flush_spool() == 0
    await offline.close()
    online = RecordStore(db, spool)  # e.g. the next daemon start
    assert online.spooled == 3
    await online.close()  # close() makes a final flush
    assert online.spooled == 0
    row = await online.get_call("c9")
    assert row is not None and row["ended_by"] == "system" and len(row["turns"]) == 1


async def test_bad_spool_lines_reported_with_line_numbers(db: Database, tmp_path: Path) -> None:
    spool = tmp_path / "spool.jsonl"
    writer = RecordStore(None, spool)
    await writer.call_started(call("c5"))
    good = spool.read_text().splitlines()
    bad_json = '{"op": "turn", "data": {'
    missing = json.dumps({"op": "turn", "data": {"call_id": "c5", "at": T0.isoformat()}})
    bad_op = json.dumps({"op": "explode", "data": {}})
    await writer.turn(turn(1, "c5"))
    turn_line = spool.read_text().splitlines()[1]
    spool.write_text("\n".join([good[0], bad_json, missing, bad_op, turn_line]) + "\n")
    store = RecordStore(db, spool)
    assert store.spooled == 5
    assert await store.flush_spool() == 2
    assert store.spooled == 0
    rejected = [json.loads(x) for x in store.rejected_path.read_text().splitlines()]
    assert [r["line"] for r in rejected] == [2, 3, 4]
    assert "invalid JSON" in rejected[0]["reason"]
    assert "missing field seq" in rejected[1]["reason"]
    assert "op" in rejected[2]["reason"]
    assert rejected[0]["raw"] == bad_json
    row = await store.get_call("c5")
    assert row is not None and len(row["turns"]) == 1
