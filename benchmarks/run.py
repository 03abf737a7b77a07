"""`make bench` (`python -m benchmarks.run [--quick]`): runs every benchmark, writes ONE JSON report
(`benchmarks/reports/report-<timestamp>.json` and `benchmarks/reports/latest.json`) and prints a table.

1. media path at scale (N calls through the real daemon and the simulated PBX), 2. bridge-added turn latency
(at N = 1 and from the N = 200 run), 3. policy cost, 4. knowledge base (`benchmarks.kb_bench`). Benchmarks print
figures; they are not tests. `--quick`: 20 calls for 5 s, a small knowledge base, fewer policy decisions.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import platform
import shutil
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.report import budgets, render_table

REPORTS = Path(__file__).resolve().parent / "reports"
FULL_SIZES = (50, 100, 200, 400)
FULL_DURATION_S = 30.0
QUICK_SIZES = (20,)
QUICK_DURATION_S = 5.0
LATENCY_N1_DURATION_S = 60.0
QUICK_LATENCY_N1_DURATION_S = 10.0
POLICY_DECISIONS = 20_000
QUICK_POLICY_DECISIONS = 2_000
QUICK_KB_CHUNKS = 2_000
QUICK_KB_SEARCHES = 60
ALL = ("media", "latency", "policy", "kb")


async def media_runs(sizes: tuple[int, ...], duration_s: float, n1_duration_s: float, latency: bool,
                     media: bool, workdir: Path) -> tuple[list[dict[str, Any]], dict[str, Any] | None]:
    from benchmarks.callers import make_clip
    from benchmarks.media_bench import run_media

    clip = await make_clip()
    runs: list[dict[str, Any]] = []
    n1 = None
    if latency:
        print("media: N=1 (turn latency)", flush=True)
        n1 = await run_media(1, n1_duration_s, workdir, clip)
    for n in sizes if media else ():
        print(f"media: N={n} for {duration_s:g} s", flush=True)
        runs.append(await run_media(n, duration_s, workdir, clip))
    return runs, n1


def run_all(args: argparse.Namespace) -> dict[str, Any]:
    only = set(args.only.split(",")) if args.only else set(ALL)
    unknown = only - set(ALL)
    if unknown:
        raise SystemExit(f"--only: unknown benchmark(s) {sorted(unknown)}; choose from {', '.join(ALL)}")
    sizes = tuple(int(x) for x in args.sizes.split(",")) if args.sizes else (QUICK_SIZES if args.quick else FULL_SIZES)
    duration = args.duration or (QUICK_DURATION_S if args.quick else FULL_DURATION_S)
    report: dict[str, Any] = {
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"), "quick": args.quick,
        "machine": {"cpus": _cpus(), "python": platform.python_version(), "platform": platform.platform()},
    }
    workdir = Path(tempfile.mkdtemp(prefix="ai-operator-bench-"))
    try:
        if "media" in only or "latency" in only:
            n1_duration = QUICK_LATENCY_N1_DURATION_S if args.quick else LATENCY_N1_DURATION_S
            runs, n1 = asyncio.run(media_runs(sizes, duration, n1_duration, "latency" in only, "media" in only, workdir))
            report["media"] = runs
            report["latency_n1"] = n1
    finally:
        if not args.keep:
            shutil.rmtree(workdir, ignore_errors=True)
        else:
            report["workdir"] = str(workdir)
    if "policy" in only:
        from benchmarks.policy_bench import run as policy_run

        print("policy cost", flush=True)
        report["policy"] = policy_run(QUICK_POLICY_DECISIONS if args.quick else POLICY_DECISIONS)
    if "kb" in only:
        from benchmarks import kb_bench

        print("knowledge base", flush=True)
        report["kb"] = (asyncio.run(kb_bench.run_async(QUICK_KB_CHUNKS, QUICK_KB_SEARCHES)) if args.quick
                        else kb_bench.run())
    report["budgets"] = budgets(report)
    report["finished_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    return report


def _cpus() -> int:
    import os

    return len(os.sched_getaffinity(0))


def write_report(report: dict[str, Any], directory: Path = REPORTS) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    stamp = time.strftime("%Y%m%d-%H%M%S")
    path = directory / f"report-{stamp}.json"
    text = json.dumps(report, indent=2, ensure_ascii=False)
    path.write_text(text)
    (directory / "latest.json").write_text(text)
    return path


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="20 calls for 5 s, small KB, fewer decisions")
    parser.add_argument("--sizes", help="comma-separated call counts (default 50,100,200,400)")
    parser.add_argument("--duration", type=float, help="measurement window per call count, seconds")
    parser.add_argument("--only", help=f"comma-separated subset of {','.join(ALL)}")
    parser.add_argument("--reports", default=str(REPORTS), help="where to write the report")
    parser.add_argument("--keep", action="store_true", help="keep the work dir (daemon logs, env files)")
    args = parser.parse_args(argv)
    report = run_all(args)
    path = write_report(report, Path(args.reports))
    print(render_table(report))
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
