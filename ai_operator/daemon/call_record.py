"""What a finished call leaves behind: the policy told it ended, the call's record (its turns' summary, provider
notes, RTP receive statistics, disposition), the calls metric and the `call_ended` line."""

from __future__ import annotations

from typing import Any


async def write_call_record(call: Any, ended_by: str) -> None:
    """Close `call` (a `daemon.call.Call` whose media is released) in its policy session and its records."""
    call.session.on_call_ended(ended_by)
    snap = call.session.snapshot()
    disposition = call.disposition or snap.get("disposition") or ("caller_hung_up" if ended_by == "caller" else None)
    await call.turn_log.close()
    turn_summary = call.turn_log.summary()
    call.summary.update(turn_summary, **call.provider_notes.summary())
    await call.svc.records.call_ended(call.call_id, call.clock.now(), ended_by, disposition, call.summary,
                                      call.media.received())
    call.svc.metrics.calls_total.labels(route=call.route.name, disposition=disposition or "none").inc()
    call.log.info("call_ended", ended_by=ended_by, disposition=disposition, **turn_summary)
