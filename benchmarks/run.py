"""`make bench` (`python -m benchmarks.run [--n 200,400] [--window 120] [--quick]`): runs every benchmark,
writes ONE JSON report (`benchmarks/reports/report-<timestamp>.json` and `benchmarks/reports/latest.json`,
with the machine, the load average and the command) and prints its table and budget verdicts.

1. the media path under call churn at each N (`media_bench`: real daemon, real espeak-ng replies from the TTS
   cache, real knowledge-base searches and records on the embedded PostgreSQL, callers in their own process,
   judged on the callers' side with kernel timestamps), 2. policy cost, 3. knowledge base (`kb_bench`).
A full `make bench` (N = 200 and 400, 120 s windows) takes about 12 minutes: per N about one minute of
preparation and warm-up (one average call), the window, up to half a minute for replies in progress, and the
analysis. `--quick`: 3 calls, a 4 s window, a small knowledge base, fewer policy decisions (about a minute).
`--stall-ms 150` injects one 150 ms event-loop stall into the daemon mid-window (the benchmark must FAIL).
`--daemons 1,2`: at each N, the node split over K daemons (`multi_daemon`: own ARI app, RTP range, metrics port
and STATE_DIR each, one shared PostgreSQL), one run per K, with per-daemon CPU and K against K=1.
`--knee 200:800:100`: the capacity knee searched instead of fixed sizes, `--repeats` times (default 2), unpinned
unless `--pin` (`benchmarks/knee.py`; about 25 minutes per search at full windows).
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import platform
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from benchmarks.report import budgets, overall, render_table

REPORTS = Path(__file__).resolve().parent / "reports"
REPO = REPORTS.parent.parent
FULL_SIZES = (200, 400)
FULL_WINDOW_S = 120.0
QUICK_SIZES = (3,)
QUICK_WINDOW_S = 4.0
QUICK_WARMUP_S = 2.0
QUICK_STAGGER_S = 1.0
POLICY_DECISIONS = 20_000
QUICK_POLICY_DECISIONS = 2_000
QUICK_KB_CHUNKS = 2_000
QUICK_KB_SEARCHES = 60
ALL = ("media", "policy", "kb")
PREPARING = "media: preparing the knowledge base, the dialogues and the TTS cache"


async def media_runs(sizes: tuple[int, ...], options: Any, workdir: Path,
                     daemons: tuple[int, ...] = ()) -> list[dict[str, Any]]:
    from benchmarks.media_bench import prepare_stage, run_media
    from benchmarks.multi_daemon import run_multi

    print(PREPARING, flush=True)
    stage = await prepare_stage(workdir)
    runs = []
    for n in sizes:
        for k in daemons:
            print(f"media: N={n} over K={k} daemons, window {options.window_s:g} s", flush=True)
            runs.append(await run_multi(n, k, stage, options))
        if not daemons:
            print(f"media: N={n}, window {options.window_s:g} s", flush=True)
            runs.append(await run_media(n, stage, options))
    return runs


def daemon_counts(text: str | None) -> tuple[int, ...]:
    """`--daemons 1,2` -> (1, 2); each from 1 to 8."""
    if not text:
        return ()
    try:
        counts = tuple(int(x) for x in text.split(","))
    except ValueError:
        counts = ()
    if not counts or any(not 1 <= k <= 8 for k in counts):
        raise SystemExit(f"--daemons: {text!r}: give comma-separated daemon counts from 1 to 8, e.g. 1,2")
    return counts


def knee_ladder(args: argparse.Namespace) -> Any:
    """`--knee`'s ladder, or SystemExit naming what is wrong with the options."""
    from benchmarks.knee_search import Ladder

    if args.n or args.daemons or args.max_calls:
        raise SystemExit("--knee searches the call counts itself, for one daemon with MAX_CALLS never reached: "
                         "leave out --n, --daemons and --max-calls")
    if not 1 <= args.repeats <= 5 or not 0 <= args.margin < 100:
        raise SystemExit(f"--repeats {args.repeats} / --margin {args.margin}: give 1-5 searches and a margin of 0-99 %")
    try:
        return Ladder.parse(args.knee, args.resolution)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None


async def knee_runs(args: argparse.Namespace, options: Any, workdir: Path) -> dict[str, Any]:
    from benchmarks.knee import run_knee
    from benchmarks.media_bench import prepare_stage

    ladder = knee_ladder(args)
    print(PREPARING, flush=True)
    stage = await prepare_stage(workdir)
    return await run_knee(ladder, args.repeats, args.margin, stage, options, len(os.sched_getaffinity(0)))


def machine() -> dict[str, Any]:
    model = ""
    with contextlib.suppress(OSError):
        model = next((ln.split(":", 1)[1].strip() for ln in Path("/proc/cpuinfo").read_text().splitlines()
                      if ln.startswith("model name")), "")
    return {"cpus": len(os.sched_getaffinity(0)), "cpu_model": model, "python": platform.python_version(),
            "platform": platform.platform()}


def git_commit() -> dict[str, Any]:
    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=REPO, capture_output=True, text=True, check=False).stdout.strip()

    return {"commit": git("rev-parse", "HEAD") or None, "dirty": bool(git("status", "--porcelain", "--untracked-files=no"))}


def run_all(args: argparse.Namespace, argv: list[str]) -> dict[str, Any]:
    from benchmarks.media_bench import Options

    only = set(args.only.split(",")) if args.only else set(ALL)
    if args.knee:
        knee_ladder(args)  # bad options named before any work
    unknown = only - set(ALL)
    if unknown:
        raise SystemExit(f"--only: unknown benchmark(s) {sorted(unknown)}; choose from {', '.join(ALL)}")
    sizes = tuple(int(x) for x in args.n.split(",")) if args.n else (QUICK_SIZES if args.quick else FULL_SIZES)
    options = Options(window_s=args.window or (QUICK_WINDOW_S if args.quick else FULL_WINDOW_S),
                      warmup_s=args.warmup if args.warmup is not None else (QUICK_WARMUP_S if args.quick else None),
                      stagger_s=QUICK_STAGGER_S if args.quick else None, stall_ms=args.stall_ms or 0.0,
                      stall_at_s=args.stall_at, profile=args.profile,
                      pin=args.pin if args.knee else not args.no_pin,
                      max_calls=args.max_calls)
    report: dict[str, Any] = {
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"), "quick": args.quick,
        "command": shlex.join(["python", "-m", "benchmarks.run", *argv]), "git": git_commit(), "machine": machine(),
        "load_average": {"start": [round(x, 2) for x in os.getloadavg()]},
    }
    workdir = Path(tempfile.mkdtemp(prefix="ai-operator-bench-"))
    try:
        if args.knee:
            report["knee"] = asyncio.run(knee_runs(args, options, workdir))
        elif "media" in only:
            report["media"] = asyncio.run(media_runs(sizes, options, workdir, daemon_counts(args.daemons)))
    finally:
        if args.keep:
            report["workdir"] = str(workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    if "policy" in only:
        from benchmarks.policy_bench import run as policy_run

        print("policy cost", flush=True)
        report["policy"] = policy_run(QUICK_POLICY_DECISIONS if args.quick else POLICY_DECISIONS)
    if "kb" in only:
        from benchmarks import kb_bench

        print("knowledge base", flush=True)
        report["kb"] = (asyncio.run(kb_bench.run_async(QUICK_KB_CHUNKS, QUICK_KB_SEARCHES)) if args.quick
                        else kb_bench.run())
    report["load_average"]["end"] = [round(x, 2) for x in os.getloadavg()]
    report["budgets"] = budgets(report)
    if report.get("knee"):
        from benchmarks.knee_search import verdict

        report["budgets"]["knee.reproducible"] = verdict(report["knee"]["summary"])
    report["verdict"] = overall(report["budgets"])
    report["finished_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    return report


def write_report(report: dict[str, Any], directory: Path = REPORTS) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"report-{time.strftime('%Y%m%d-%H%M%S')}.json"
    text = json.dumps(report, indent=2, ensure_ascii=False)
    path.write_text(text)
    (directory / "latest.json").write_text(text)
    return path


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.run", description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="3 calls, 4 s window, small KB, fewer decisions")
    parser.add_argument("--n", "--sizes", dest="n", help="comma-separated call counts (default 200,400)")
    parser.add_argument("--window", type=float, help="measurement window per call count, seconds (default 120)")
    parser.add_argument("--warmup", type=float, help="seconds before the window (default: one average call)")
    parser.add_argument("--stall-ms", type=float, help="inject one event-loop stall of this length into the daemon")
    parser.add_argument("--stall-at", type=float, help="seconds into the window for --stall-ms (default: half)")
    parser.add_argument("--profile", action="store_true", help="cProfile the daemon for the window (kept with --keep)")
    parser.add_argument("--max-calls", type=int, help="the daemon's MAX_CALLS (default 2 N, never reached); "
                        "below N it is an overload run: the calls past it are refused, those in progress judged")
    parser.add_argument("--no-pin", action="store_true", help="do not pin the daemon and the callers to CPUs")
    parser.add_argument("--knee", metavar="START:STOP:STEP", help="search the capacity knee over these call counts "
                        "instead of --n (benchmarks/knee.py); unpinned unless --pin")
    parser.add_argument("--resolution", type=int, help="--knee: bisect until pass and fail are this close (default step/2)")
    parser.add_argument("--repeats", type=int, default=2, help="--knee: independent searches (default 2)")
    parser.add_argument("--margin", type=int, default=20, help="--knee: recommended MAX_CALLS = knee less this %% (default 20)")
    parser.add_argument("--pin", action="store_true", help="--knee: pin as the fixed-size runs do (labelled pinned)")
    parser.add_argument("--daemons", help="comma-separated daemon counts K per node, e.g. 1,2 (benchmarks/multi_daemon.py)")
    parser.add_argument("--only", help=f"comma-separated subset of {','.join(ALL)}")
    parser.add_argument("--reports", default=str(REPORTS), help="where to write the report")
    parser.add_argument("--keep", action="store_true", help="keep the work dir (logs, capture, daemon profile)")
    args = parser.parse_args(argv)
    report = run_all(args, argv)
    path = write_report(report, Path(args.reports))
    print(render_table(report))
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
