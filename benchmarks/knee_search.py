"""The capacity knee, searched: which N to run next, what the knee is, and the `MAX_CALLS` it gives. Pure.

A search climbs a ladder of call counts (`Ladder`: start, step, stop) until a run is not clean, then bisects
between the largest clean N below that and the first unclean one until they are `resolution` apart. A run is
clean when every caller-side budget PASSes in a valid run that is not an overload run (`outcome`); a run that
is not valid (the load generator fell behind) cannot show the daemon clean, so it counts as unclean and is
labelled `INVALID`. The knee of one search is the largest clean N below its first unclean one.

The capacity is searched more than once (`summarise`): the knee taken is the smallest of the searches' knees,
reproducible when they lie within `resolution` of each other, and the recommended `MAX_CALLS` is that knee less
a stated margin (`ops.sizing.recommended_max_calls`, what doctor's sizing line uses), rounded down to ten.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from ai_operator.ops.sizing import recommended_max_calls

PASS, FAIL, INVALID = "PASS", "FAIL", "INVALID"
DEFAULT_MARGIN_PCT = 20


@dataclass(frozen=True)
class Ladder:
    start: int
    stop: int
    step: int
    resolution: int

    @classmethod
    def parse(cls, text: str, resolution: int | None = None) -> Ladder:
        """`"200:800:100"` -> start 200, stop 800, step 100 (resolution: half the step unless given)."""
        try:
            start, stop, step = (int(x) for x in text.split(":"))
        except ValueError:
            start = stop = step = 0
        if not (0 < start <= stop and step > 0):
            raise ValueError(f"--knee {text!r}: give START:STOP:STEP call counts, e.g. 200:800:100 "
                             "(0 < START <= STOP, STEP > 0)")
        res = resolution if resolution is not None else max(1, step // 2)
        if not 0 < res <= step:
            raise ValueError(f"--resolution {res}: give a call count from 1 to the step ({step})")
        return cls(start, stop, step, res)


def outcome(run: Mapping[str, Any]) -> str:
    """PASS (clean), FAIL (a budget failed) or INVALID (the run cannot judge the daemon) for one media run."""
    overload = (run.get("max_calls") or run["calls"]) < run["calls"]
    if not (run.get("valid") or {}).get("ok", False):
        return INVALID
    return PASS if run.get("verdict") == PASS and not overload else FAIL


def _bounds(tried: Mapping[int, str]) -> tuple[int, int | None]:
    """(largest clean N below the first unclean one (0: none), the first unclean N (None: none yet))."""
    unclean = [n for n, o in tried.items() if o != PASS]
    ceiling = min(unclean) if unclean else None
    clean = [n for n, o in tried.items() if o == PASS and (ceiling is None or n < ceiling)]
    return max(clean, default=0), ceiling


def next_size(ladder: Ladder, tried: Mapping[int, str]) -> int | None:
    """The next N to run, given the outcome of every N run so far in this search; None when the search is done."""
    floor, ceiling = _bounds(tried)
    if ceiling is None:  # still climbing
        n = ladder.start if not tried else max(tried) + ladder.step
        return n if n <= ladder.stop else None
    if ceiling - floor <= ladder.resolution:
        return None
    mid = floor + max(ladder.resolution, (ceiling - floor) // 2 // ladder.resolution * ladder.resolution)
    return mid if mid < ceiling and mid not in tried else None


def knee_of(tried: Mapping[int, str]) -> dict[str, Any]:
    """One search's knee (None when no N ran clean), its first unclean N, and whether the ladder ran out first."""
    floor, ceiling = _bounds(tried)
    return {"knee": floor or None, "first_unclean": ceiling, "limit_reached": ceiling is not None}


def summarise(searches: Sequence[Mapping[str, Any]], ladder: Ladder,
              margin_pct: int = DEFAULT_MARGIN_PCT) -> dict[str, Any]:
    """The searches' knees taken together: the knee (the smallest), its spread, and the recommended MAX_CALLS."""
    knees = [s["knee"] for s in searches]
    found = [k for k in knees if k is not None]
    every = len(found) == len(knees) and bool(knees)
    knee = min(found) if every else None
    spread = max(found) - min(found) if every else None
    bounded = all(s["limit_reached"] for s in searches)
    return {
        "knees": knees, "knee": knee, "spread": spread, "resolution": ladder.resolution,
        "reproducible": spread is not None and spread <= ladder.resolution,
        "limit_reached": bounded,  # False: some search ran out of ladder still clean (the knee is above its stop)
        "margin_pct": margin_pct,
        "recommended_max_calls": recommended_max_calls(knee, margin_pct) if knee is not None else None,
    }


def verdict(summary: Mapping[str, Any]) -> dict[str, Any]:
    """The search as a budget: PASS when every search found a knee and they agree within the resolution."""
    ok = summary["knee"] is not None and summary["reproducible"]
    return {"value": summary["spread"], "op": "<=", "limit": summary["resolution"], "verdict": PASS if ok else FAIL}


def per_node(summary: Mapping[str, Any], cpus: int, daemons: int) -> dict[str, Any] | None:
    """Calls per node and per CPU on a node of `cpus` CPUs running `daemons` daemons at the recommended MAX_CALLS."""
    each = summary.get("recommended_max_calls")
    if not each:
        return None
    return {"cpus": cpus, "daemons": daemons, "calls_per_node": daemons * each,
            "calls_per_cpu": round(daemons * each / cpus, 1)}
