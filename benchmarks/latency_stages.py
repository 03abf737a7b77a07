"""Where a latency run's turns spent their time, by the kind of turn the daemon's own records say each was: the
stages of its turn records (`ai_operator/daemon/turn_log.py`) for the turns of the window, read from the run's
database after the run. The caller-side figures (`latency_analysis`) say how long a caller waited; these say why.

Kinds (`record_kind`): `handoff` (the reply transfers), `model` (a model answered), `kb` (a cited answer),
`goodbye` (the reply hangs up), `canned` (any other line). Per kind: turns, the p50 of each stage
(`STAGES`), `tts_waited` (turns whose first audible chunk took longer than `TTS_WAITED_MS`: it came from a
synthesis, not from the TTS cache) and `release_ms` values seen (how long a reply decided at the pause was held
for the caller's silence: `VAD_EARLY_REPLY_MS` for a turn the policy called complete, `VAD_END_SILENCE_MS` for a
speculative one). `stages` is pure; `read_turns` reads the records.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from pathlib import Path
from typing import Any

from benchmarks.analysis import percentile

STAGES = ("eou_ms", "stt_ms", "stt_final_ms", "policy_ms", "kb_ms", "model_ms", "tts_first_chunk_ms", "playout_ms",
          "other_ms", "first_rtp_ms")
TTS_WAITED_MS = 50.0  # a first audible chunk later than this came from a synthesis (a cached line: a few ms)


def record_kind(fields: Mapping[str, Any], timings: Mapping[str, Any]) -> str:
    """The kind of turn a record is (see the module docstring)."""
    if fields.get("transfer"):
        return "handoff"
    if timings.get("model_ms", 0) > 0 or "model_total_ms" in timings:
        return "model"
    if fields.get("citations"):
        return "kb"
    return "goodbye" if fields.get("hang_up") else "canned"


def stages(turns: Iterable[tuple[Mapping[str, Any], Mapping[str, Any]]]) -> dict[str, dict[str, Any]]:
    """Per kind, over the (fields, timings) of turns whose reply was heard (a first RTP frame went out)."""
    by_kind: dict[str, list[Mapping[str, Any]]] = {}
    for fields, timings in turns:
        if "first_rtp_ms" in timings:
            by_kind.setdefault(record_kind(fields, timings), []).append(timings)
    out: dict[str, dict[str, Any]] = {}
    for kind, rows in sorted(by_kind.items()):
        p50 = {f"{stage}_p50": _round(percentile([float(r[stage]) for r in rows if stage in r], 50))
               for stage in STAGES if any(stage in r for r in rows)}
        out[kind] = {"turns": len(rows),
                     "tts_waited": sum(float(r.get("tts_first_chunk_ms", 0.0)) > TTS_WAITED_MS for r in rows),
                     "release_ms": sorted({float(r["release_ms"]) for r in rows if "release_ms" in r}), **p50}
    return out


def _round(value: float | None) -> float | None:
    return None if value is None else round(value, 1)


async def read_turns(dsn: str | None, state_dir: Path, since: datetime, until: datetime
                     ) -> list[tuple[dict[str, Any], dict[str, Any]]]:
    """(fields, timings) of every turn recorded from `since` to `until` in the run's database."""
    from ai_operator.storage.database import Database

    db = await Database.open(dsn, state_dir)
    try:
        async with db.pool.connection() as conn:
            cur = await conn.execute("SELECT fields, timings FROM turns WHERE at >= %s AND at < %s ORDER BY at",
                                     (since, until))
            rows = await cur.fetchall()
    finally:
        await db.close()
    return [(dict(fields or {}), dict(timings or {})) for fields, timings in rows]
