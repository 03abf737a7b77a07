"""`python -m benchmarks.run --knee 200:800:100`: the capacity knee of one daemon, searched twice, unpinned.

Each search runs the media benchmark (`media_bench.run_media`, one daemon) at the N `knee_search.next_size`
picks, until it has found the largest clean N (every caller-side budget PASS in a valid run) below the first
one that is not; `--repeats` searches (default 2) in one run show whether the knee reproduces. The default shape
is the deployed one: nothing pinned, the daemon, its database and the callers sharing every CPU (`--pin` runs
the old pinned shape, and the report says so). The report's `knee` section holds every run of every search,
the searches' knees, the recommended `MAX_CALLS` (the knee less `--margin` %) and the calls per node this host
carries at it; `python -m benchmarks.knee_readme --write` renders it into README.md and ops/sizing.py.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from benchmarks.knee_search import Ladder, knee_of, next_size, outcome, per_node, summarise

RUN_FIGURES = ("calls", "max_calls", "window_s", "warmup_s", "pinning", "cpu", "contention", "memory", "figures",
               "budgets", "verdict", "valid", "load_average", "records", "daemon", "baseline")
RunAt = Callable[[int, Any, Any], Awaitable[dict[str, Any]]]


def failed_budgets(run: dict[str, Any]) -> list[str]:
    return [name for name, v in (run.get("budgets") or {}).items() if v.get("verdict") != "PASS"]


async def search(index: int, ladder: Ladder, stage: Any, options: Any, run_at: RunAt | None = None,
                 figures: tuple[str, ...] = RUN_FIGURES) -> dict[str, Any]:
    """One search: runs until `next_size` says it is done; every run kept with its outcome (the `figures` of it).
    `run_at(n, stage, options)` is one run (default: the media benchmark's, `media_bench.run_media`)."""
    from benchmarks.media_bench import run_media

    own = dataclasses.replace(stage, workdir=Path(stage.workdir) / f"search-{index}")
    tried: dict[int, str] = {}
    runs: list[dict[str, Any]] = []
    while (n := next_size(ladder, tried)) is not None:
        print(f"knee search {index}: N={n}, window {options.window_s:g} s", flush=True)
        run = await (run_at or run_media)(n, own, options)
        tried[n] = outcome(run)
        print(f"knee search {index}: N={n} {tried[n]} {' '.join(failed_budgets(run))}".rstrip(), flush=True)
        runs.append({**{k: run.get(k) for k in figures}, "outcome": tried[n], "failed": failed_budgets(run)})
    return {"search": index, "order": [r["calls"] for r in runs], "runs": runs, **knee_of(tried)}


async def run_knee(ladder: Ladder, repeats: int, margin_pct: int, stage: Any, options: Any,
                   cpus: int) -> dict[str, Any]:
    """The report's `knee` section (see the module docstring)."""
    from ai_operator.ops.sizing import daemons_for

    searches = [await search(i + 1, ladder, stage, options) for i in range(repeats)]
    summary = summarise(searches, ladder, margin_pct)
    return {"ladder": dataclasses.asdict(ladder), "repeats": repeats, "pinned": options.pin,
            "searches": searches, "summary": summary,
            "per_node": per_node(summary, cpus, daemons_for(cpus))}


def search_lines(knee: dict[str, Any]) -> list[str]:
    """What each search ran and found, one sentence each (also the node benchmark's, `node_capacity`)."""
    lines = []
    for search_ in knee["searches"]:
        first = search_["first_unclean"]
        lines.append(f"Search {search_['search']} ran N = {', '.join(map(str, search_['order']))}: knee "
                     f"{search_['knee'] or 'none (no N ran clean)'}"
                     + (f", first unclean N = {first}" if first is not None else ", still clean at the ladder's top"))
    return lines


def summary_lines(knee: dict[str, Any]) -> list[str]:
    """The searches and what they say, one sentence each (the printed summary and the README block share them)."""
    s, lines = knee["summary"], search_lines(knee)
    if s["knee"] is None:
        lines.append("No knee: some search found no clean N, so no MAX_CALLS follows from this run.")
        return lines
    agree = ("reproducible" if s["reproducible"] else "NOT reproducible") + \
        f": the knees differ by {s['spread']}, the resolution is {s['resolution']}"
    lines.append(f"The knee: N = {s['knee']}, the smallest of the searches' ({agree}).")
    lines.append(f"Recommended MAX_CALLS = {s['knee']} less a {s['margin_pct']} % margin = "
                 f"{s['recommended_max_calls']}.")
    node = knee.get("per_node")
    if node:
        lines.append(f"Per node of this box's {node['cpus']} CPUs: {node['daemons']} daemon(s) x "
                     f"{s['recommended_max_calls']} = {node['calls_per_node']} calls, {node['calls_per_cpu']} per CPU "
                     "(one core kept for Asterisk and the database).")
    return lines
