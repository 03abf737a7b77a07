"""The box's own lateness, measured in the daemon's window, and the daemon judged against it. Pure.

A pacer is late when its process is not on a CPU when its timer is due: a vCPU that sat idle wakes late, a
host running other guests takes time from this one (steal), other processes run first. None of that grows with
the calls, and the quieter the box the worse the wake-ups, so an absolute 5 ms budget judges the machine as
much as the daemon (the knee searched on a quiet box failed it at 20, 40 and 100 calls alike). So the media
benchmark runs a pacer with no work (`reference_pacer.py`) in the same window, and judges the daemon's timing
against it in that one run:

- lateness: the budget "p99 under 5 ms" is "at most 1 % of frames more than 5 ms late". A frame is on time when
  neither the box nor the daemon's own work made it late; the two are independent, so the share of the
  daemon's frames on time is the box's share times the daemon's own: on_d = on_box * on_own. The daemon's own
  late share is therefore 1 - on_d / on_box, a ratio of two shares measured in the same window. Budget: under
  1 %. With a box that is never late it is the plain p99 budget.
- jitter: RFC 3550 jitter is a running mean of transit differences, to which rare independent delays add; the
  daemon's own is its worst stream's less the reference's worst, judged against the same 5 ms.

The reference's packets are judged exactly as the callers' capture is (`analysis.judge_call`'s lateness: each
talkspurt's clock anchored at its earliest packet; `ReceiveStats` for jitter). A reference that did not run
for the window cannot serve: the net budgets then FAIL with no value, as a budget with nothing measured does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ai_operator.media.rtpstats import ReceiveStats
from benchmarks.analysis import BUDGETS

LATE_MS = BUDGETS["lateness_p99_ms"][1]  # the lateness budget's bound (5 ms) ...
LATE_SHARE_PCT = 1.0  # ... at p99: at most this share of frames later than it
JITTER_MS = BUDGETS["jitter_max_ms"][1]
MIN_TICK_SHARE = 0.9  # the reference must have ticked for this share of the window's 20 ms slots
CLOCK_RATE = 8000
FRAME_NS = 20_000_000
NS_PER_MS = 1_000_000
NET_BUDGETS: dict[str, tuple[str, str]] = {  # absolute budget it replaces -> (net budget, what)
    "lateness_p99_ms": ("lateness_own_late_pct", f"share of frames more than {LATE_MS:g} ms late that the daemon "
                        "itself made late: 1 - (its on-time share / a reference pacer's with no work in the same "
                        f"window) (the p99 budget: at most {LATE_SHARE_PCT:g} %)"),
    "jitter_max_ms": ("jitter_own_max_ms", "RFC 3550 jitter of the worst stream less the reference pacer's worst"),
}


def lateness_ms(t_ns: np.ndarray, ts: np.ndarray, talkspurt: np.ndarray) -> np.ndarray:
    """Each packet's lateness against its talkspurt's clock (anchored at its earliest packet), in ms; `t_ns`
    ascending send times, `ts` RTP timestamps, `talkspurt` the index of the talkspurt each packet belongs to."""
    late = np.zeros(len(t_ns), dtype=np.float64)
    bounds = np.flatnonzero(np.diff(talkspurt)) + 1
    for a, b in zip([0, *bounds.tolist()], [*bounds.tolist(), len(t_ns)], strict=True):
        rel_ts_ns = ((ts[a:b] - ts[a]) % (1 << 32)) * 1_000_000_000 // CLOCK_RATE
        behind = (t_ns[a:b] - t_ns[a]) - rel_ts_ns
        late[a:b] = (behind - behind.min()) / NS_PER_MS
    return late


def jitter_max_ms(seq: Sequence[int], ts: Sequence[int], t_ns: Sequence[int]) -> float:
    """The worst RFC 3550 interarrival jitter one stream reached (ms)."""
    stats, worst = ReceiveStats(CLOCK_RATE), 0.0
    for s, t, at in zip(seq, ts, t_ns, strict=True):
        stats.add(s, t, at)
        worst = max(worst, stats.jitter_ms)
    return worst


def reference_figures(record: Mapping[str, Any]) -> dict[str, Any]:
    """The reference pacer's figures (`reference_pacer.run`'s record; empty when it failed): its lateness like
    the callers' capture's, its share of frames later than the budget's bound, its worst jitter, and whether it
    ran the window."""
    sent = np.asarray(record.get("sent") or [], dtype=np.int64).reshape(-1, 4)
    slots = max(1, (int(record.get("t1_ns", 0)) - int(record.get("t0_ns", 0))) // FRAME_NS)
    if not len(sent):
        return {"packets": 0, "slots": slots, "ran_window": False, "lateness_ms": None, "late_pct": None,
                "jitter_max_ms": None}
    t_ns, seq, ts, marker = sent[:, 0], sent[:, 1], sent[:, 2], sent[:, 3]
    late = lateness_ms(t_ns, ts, np.cumsum(marker))
    return {
        "packets": len(sent), "slots": slots, "ran_window": bool(len(sent) >= MIN_TICK_SHARE * slots),
        "lateness_ms": {"p50": round(float(np.percentile(late, 50)), 3), "p99": round(float(np.percentile(late, 99)), 3),
                        "max": round(float(late.max()), 3), f"over_{LATE_MS:g}ms": int((late > LATE_MS).sum())},
        "late_pct": round(100.0 * float((late > LATE_MS).mean()), 3),
        "jitter_max_ms": round(jitter_max_ms(seq.tolist(), ts.tolist(), t_ns.tolist()), 3),
        "late_ticks": record.get("late_ticks"), "skipped_frames": record.get("skipped_frames"),
    }


def reference_problems(reference: Mapping[str, Any] | None) -> list[str]:
    """Why the run cannot be judged against the box (a problem of the run: it is not valid)."""
    if reference is None or reference["ran_window"]:
        return []
    return [f"the reference pacer sent {reference['packets']} packets in {reference['slots']} slots (see "
            "reference-pacer.log): the box's own lateness is not known"]


def own_late_pct(daemon_late_pct: float, box_late_pct: float) -> float:
    """The daemon's own share (%) of frames later than the bound: 1 - on-time(daemon) / on-time(box)."""
    on_box = 1.0 - box_late_pct / 100.0
    if on_box <= 0.0:
        return 100.0  # the box was late on every tick: nothing is left to show the daemon on time
    return max(0.0, 100.0 * (1.0 - (1.0 - daemon_late_pct / 100.0) / on_box))


def net_values(figures: Mapping[str, Any], reference: Mapping[str, Any] | None) -> dict[str, float | None]:
    """The net budgets' values (None when the reference did not run the window or nothing was judged)."""
    values: dict[str, float | None] = {"lateness_own_late_pct": None, "jitter_own_max_ms": None}
    if reference is None or not reference["ran_window"]:
        return values
    audio = figures["audio"]
    judged, over = audio["packets_judged"], audio["lateness_ms"].get(f"over_{LATE_MS:g}ms")
    if judged and over is not None:
        values["lateness_own_late_pct"] = round(own_late_pct(100.0 * over / judged, reference["late_pct"]), 3)
    jitter = audio["jitter_ms"]["max"]
    if jitter is not None:
        values["jitter_own_max_ms"] = round(max(0.0, jitter - reference["jitter_max_ms"]), 3)
    return values


def judge_net(budgets: Mapping[str, Mapping[str, Any]], figures: Mapping[str, Any],
              reference: Mapping[str, Any] | None, replaced: Mapping[str, float] | None = None) -> dict[str, dict[str, Any]]:
    """`analysis.verdicts` with the absolute lateness and jitter budgets replaced by the daemon's own share of
    them, net of the box's (see the module docstring); the other budgets as they are. `replaced`: net budgets'
    limits set otherwise (the node bench's `--limit`)."""
    values = net_values(figures, reference)
    limits = {"lateness_own_late_pct": LATE_SHARE_PCT, "jitter_own_max_ms": JITTER_MS, **(replaced or {})}
    out: dict[str, dict[str, Any]] = {}
    for name, verdict in budgets.items():
        if name not in NET_BUDGETS:
            out[name] = dict(verdict)
            continue
        net, what = NET_BUDGETS[name]
        value = values[net]
        ok = value is not None and value < limits[net]
        out[net] = {"value": value, "op": "<", "limit": limits[net], "verdict": "PASS" if ok else "FAIL", "what": what}
    return out
