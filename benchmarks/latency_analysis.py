"""Judges voice-to-voice latency in a caller-side capture (`capture.py`'s format), by turn kind. Pure.

A turn's voice-to-voice latency is what its caller waited: from the last voiced frame the caller sent (the end
of its line, as it left the caller's socket) to the first voiced frame of the reply (the first packet of the
first talkspurt, RTP marker bit, that arrived after it; the daemon trims the silence around a line, so that
packet carries voice). Arrival times are the kernel's receive stamps mapped onto the monotonic clock. A turn is
judged when its line ended inside the window; one with no reply before the caller's next line, or within
`ANSWER_WITHIN_S`, is unanswered; one with a reply that began while the caller was still saying it (between its
first and last voiced frame: a pause mid-sentence answered) is `answered_early`. Figures per kind
(`latency_plan.KINDS`): turns, unanswered, answered_early, p50, p95, max; each kind is judged against its
profile's budget (`BUDGETS`: p50 and p95 in ms): a budget with an unanswered turn or one answered early fails; a
kind with no turn in the window is NOT MEASURED (said, with why, never a silent PASS or FAIL).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from benchmarks.analysis import _max, percentile
from benchmarks.capture import Capture, ClockMap, parse_packets

NS_PER_MS = 1_000_000
ANSWER_WITHIN_S = 10.0
# profile -> kind -> (p50 limit ms, p95 limit ms): issue 26's budgets (a handoff is a canned line and a transfer)
BUDGETS: dict[str, dict[str, tuple[float, float]]] = {
    "instant": {kind: (350.0, 500.0) for kind in ("canned", "kb", "model", "handoff")},
    "cloud": {"canned": (700.0, 1000.0), "kb": (700.0, 1000.0), "model": (1200.0, 1600.0),
              "handoff": (700.0, 1000.0)},
}


def call_turns(packets: np.ndarray, t: np.ndarray, lines: Sequence[tuple[int, int]], kinds: Sequence[str],
               window: tuple[int, int]) -> list[tuple[str, float | None, bool]]:
    """(kind, voice-to-voice ms or None when unanswered, answered early) of each judged line of one call. `t`:
    the packets' arrival times (monotonic ns, ascending), `lines`: (first, last) voiced frame sent, per line."""
    marked = np.flatnonzero((packets["b1"] & 0x80) != 0)
    starts = t[marked]
    out: list[tuple[str, float | None, bool]] = []
    for j, (first, last) in enumerate(lines):
        if not window[0] <= last < window[1] or j >= len(kinds):
            continue
        limit = last + int(ANSWER_WITHIN_S * 1e9)
        if j + 1 < len(lines):
            limit = min(limit, lines[j + 1][0])
        k = int(np.searchsorted(starts, last, side="right"))
        delay = (int(starts[k]) - last) / NS_PER_MS if k < len(starts) and starts[k] < limit else None
        early = bool(np.any((starts > first) & (starts < last)))
        out.append((kinds[j], delay, early))
    return out


def analyse(capture: Capture, kinds: Mapping[int, Sequence[str]]) -> dict[str, Any]:
    """Per kind: turns, unanswered, p50/p95/max ms; plus the calls' outcomes."""
    clock = ClockMap(capture.clock)
    window = (capture.t0_ns, capture.t1_ns)
    delays: dict[str, list[float]] = {}
    unanswered: dict[str, int] = {}
    early: dict[str, int] = {}
    for call in capture.calls:
        if not call.lines:
            continue
        packets = parse_packets(call.packets)
        t = clock.to_mono(packets["t"])
        order = np.argsort(t, kind="stable")
        for kind, delay, answered_early in call_turns(packets[order], t[order], call.lines, kinds[call.variant],
                                                      window):
            delays.setdefault(kind, [])
            unanswered.setdefault(kind, 0)
            early[kind] = early.get(kind, 0) + answered_early
            if delay is None:
                unanswered[kind] += 1
            else:
                delays[kind].append(delay)
    outcomes: dict[str, int] = {}
    for call in capture.calls:
        if window[0] <= call.placed_ns < window[1]:
            outcomes[call.outcome] = outcomes.get(call.outcome, 0) + 1
    return {"window_s": round((window[1] - window[0]) / 1e9, 2), "calls": outcomes,
            "kinds": {kind: {"turns": len(v) + unanswered[kind], "unanswered": unanswered[kind],
                             "answered_early": early[kind],
                             "p50_ms": percentile(v, 50), "p95_ms": percentile(v, 95), "max_ms": _max(v)}
                      for kind, v in sorted(delays.items())}}


NOT_MEASURED = "NOT MEASURED"
NO_TURNS = "no turn of this kind ended in the window"


def verdicts(figures: Mapping[str, Any], profile: str) -> dict[str, dict[str, Any]]:
    """Each budgeted kind of `profile`: its p50 and p95 against the limits, PASS / FAIL, or NOT MEASURED (with
    the reason) when no turn of it ended in the window."""
    out: dict[str, dict[str, Any]] = {}
    for kind, (p50_limit, p95_limit) in BUDGETS.get(profile, {}).items():
        got = figures["kinds"].get(kind) or {"turns": 0, "unanswered": 0, "p50_ms": None, "p95_ms": None}
        ok = (got["turns"] > 0 and got["unanswered"] == 0 and not got.get("answered_early")
              and got["p50_ms"] is not None
              and got["p50_ms"] <= p50_limit and got["p95_ms"] is not None and got["p95_ms"] <= p95_limit)
        out[kind] = {"p50_ms": got["p50_ms"], "p95_ms": got["p95_ms"], "p50_limit_ms": p50_limit,
                     "p95_limit_ms": p95_limit, "unanswered": got["unanswered"],
                     "answered_early": got.get("answered_early", 0), "verdict": "PASS" if ok else "FAIL"}
        if got["turns"] == 0:
            out[kind].update(verdict=NOT_MEASURED, reason=NO_TURNS)
    return out


def overall(runs: Sequence[Mapping[str, Any]]) -> str:
    """A report's verdict: FAIL when a budget failed; else PASS, naming the kinds NOT MEASURED (never passed
    silently); NOT MEASURED when nothing was."""
    found = [b["verdict"] for run in runs for b in run["budgets"].values()]
    if "FAIL" in found:
        return "FAIL"
    if "PASS" not in found:
        return NOT_MEASURED
    missing = [f"{run['profile']} N={run['n']} {kind}" for run in runs for kind, b in run["budgets"].items()
               if b["verdict"] == NOT_MEASURED]
    return f"PASS, {NOT_MEASURED}: {', '.join(missing)}" if missing else "PASS"
