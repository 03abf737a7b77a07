"""`python -m benchmarks.node_capacity --knee 20:200:20`: the calls one node carries, searched through a real
Asterisk with two daemons beside it (issue 28 §3), and what each part of the node costs.

The node is the cluster's node shape (`tests/support/cluster/nodes.py`): a real Asterisk 22 from the project's
samples with the front-door endpoint and the README's dialplan split over two daemons (`ai-operator-1`, `-2`),
each a `daemon_proc` (the media benchmark's daemon: the real `Daemon` with `ScriptedSTT`, its own RTP range,
metrics port and STATE_DIR), both on ONE PostgreSQL (the stage's, as `multi_daemon`). The callers
(`node_callers`: sipp per call for the signalling, one paced RTP loop, kernel-timestamped capture) call the node
from the front door's address, so the node takes them as it takes Kamailio's; Kamailio itself is left out (it
relays SIP only, never the audio, and costs its own machine's CPU, not the node's).

Each run is judged at the callers with the knee's budgets (`analysis.verdicts`: lost frames, the daemons' own
as `stalls.py` tells them from the host's, lateness, jitter, the daemon-added turn latency p95, unanswered
turns), lateness and jitter net of the box's and Asterisk's own:
against a reference call whose frames take the daemons' path from a pacer with no work (`node_reference`;
`baseline.judge_net`: the daemons' own late share < 1 %, their worst jitter less the reference's < 5 ms; the
absolute p99 and jitter stay in the figures). Not judged: `inbound_processed_pct`, which compares what
the callers sent with what the daemons read: through Asterisk that count is not the daemons' to read (Asterisk
drops the audio before the bridge exists and after the daemon hung up), so it is reported, not judged. A run
whose load generator fell behind is INVALID (`media_bench.assemble`). The search is `knee.search` over these runs
(`--repeats`, default 2); CPU per part for each run's window: Asterisk, each daemon, PostgreSQL (every backend),
the load generator (the callers' process and every sipp it ran) and everything else on the box.

The report goes to `--reports` (`node-capacity-<time>.json`); `python -m benchmarks.node_readme --write
--report PATH` renders it into README.md. `--limit lateness_own_late_pct=0` sets a budget's limit (the smoke test's
impossible budget). Needs the Asterisk build (`AI_OPERATOR_ASTERISK_PREFIX`) and sipp.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import shlex
import shutil
import signal
import sys
import tempfile
import time
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import node_reference as ref
from benchmarks.analysis import verdicts
from benchmarks.baseline import judge_net
from benchmarks.capture import loads, parse_packets
from benchmarks.knee import search
from benchmarks.knee_search import Ladder, per_node, summarise
from benchmarks.knee_search import verdict as knee_verdict
from benchmarks.media_bench import (
    DONE_TIMEOUT_S,
    END_SILENCE_MS,
    GAP_S,
    ROUTE,
    START_TIMEOUT_S,
    THINK_S,
    CallerProcess,
    Options,
    Stage,
    _sleep_until,
    assemble,
    judge,
    prepare_stage,
    records_check,
    stop_daemon,
)
from benchmarks.multi_daemon import (
    _readings,
    apps,
    apps_registered,
    merged_figures,
    per_daemon,
    rtp_ranges,
    start_daemons,
)
from benchmarks.procstat import cpu_seconds, postmaster_pid, rss_mb, tree_cpu_seconds

DAEMONS = 2
RTP_PORTS_PER_CALL = 4  # Asterisk's own RTP ports: two per channel, two channels per call (caller, externalMedia)
TALKSPURT_GAP_MS = 200.0  # shorter than any pause before a reply (the early pause, 240 ms): see mark_talkspurts
SCRAPE_EVERY_S = 15.0  # /metrics as Prometheus reads it (the media bench's 2 s feeds a budget not judged here)
HANGUP_AFTER_S = 300.0  # a caller whose call the daemon never ends hangs up itself after this
NOT_JUDGED = {"inbound_processed_pct": "through Asterisk the callers' sent count is not what the daemons should "
              "have read (Asterisk drops audio before the bridge and after the daemon hung up): reported only"}
UNPINNED: dict[str, Any] = {"daemons": [[] for _ in range(DAEMONS)], "callers": [], "pinned": False}
RUN_FIGURES = ("calls", "max_calls", "window_s", "warmup_s", "cpu", "contention", "memory", "figures", "budgets",
               "not_judged", "verdict", "valid", "load_average", "records", "daemons", "node", "callers", "baseline")


@dataclass(frozen=True)
class NodeStage(Stage):
    """The media bench's stage plus the node's Asterisk (started once for the whole benchmark) and any budget
    limits replaced (`--limit`)."""

    pbx: Any = None
    limits: dict[str, float] = field(default_factory=dict)


def parse_limits(items: list[str]) -> dict[str, float]:
    """`["lost_frames=2"]` -> {"lost_frames": 2.0}; a budget the node bench does not judge is named."""
    out = {}
    for item in items:
        name, _, value = item.partition("=")
        try:
            out[name] = float(value)
        except ValueError:
            raise SystemExit(f"--limit {item!r}: give NAME=NUMBER, e.g. lateness_own_late_pct=0") from None
        if name not in ref.judged_names():
            raise SystemExit(f"--limit {item!r}: {name!r} is not a judged budget; choose from "
                             f"{', '.join(ref.judged_names())}")
    return out


def rejudge(entry: dict[str, Any], limits: dict[str, float], reference: dict[str, Any]) -> None:
    """The run's budgets as the node bench judges them (see the module docstring: lateness and jitter net of
    the `reference` call, `node_reference.at_caller`), its verdict from them."""
    v = verdicts(entry["figures"], limits)
    entry["not_judged"] = {name: {"value": v.pop(name)["value"], "why": why} for name, why in NOT_JUDGED.items()}
    entry["budgets"] = v = judge_net(v, entry["figures"], reference, limits)
    entry["valid"]["problems"] += ref.problems(reference)
    entry["valid"]["ok"] = not entry["valid"]["problems"]
    entry["verdict"] = "PASS" if all(x["verdict"] == "PASS" for x in v.values()) else "FAIL"


def node_figures(r0: dict[str, Any], r1: dict[str, Any], entry: dict[str, Any]) -> dict[str, Any]:
    """The window's CPU per part of the node, the load generator's, and the calls per core the node used."""
    window = r1["t"] - r0["t"]
    cpu, calls = entry["cpu"], entry["figures"]["calls"]["mean_concurrent"] or 0.0
    asterisk = (r1["asterisk"] - r0["asterisk"]) / window
    node = asterisk + cpu["daemon_cores"] + cpu["db_cores"]
    contention = entry["contention"]  # Asterisk was counted among the other processes: take it out
    contention["other_processes_cores"] = round(max(0.0, contention["other_processes_cores"] - asterisk), 2)
    return {"daemons": DAEMONS, "cpus": len(os.sched_getaffinity(0)), "asterisk_cores": round(asterisk, 3),
            "daemons_cores": cpu["daemon_cores"], "db_cores": cpu["db_cores"],
            "load_generator_cores": cpu["callers_cores"], "node_cores": round(node, 3),
            "sipp_cores": round(cpu["callers_cores"] - (r1["callers_own"] - r0["callers_own"]) / window, 3),
            "node_s_per_call_minute": round(node * 60 / calls, 4) if calls else None,
            "calls_per_busy_core": round(calls / node, 1) if node else None,
            "load_at_window": entry["load_average"]["window_start"][0]}  # 1 min load average as the window opened


def mark_talkspurts(blob: bytes, gap_ms: float = TALKSPURT_GAP_MS) -> bytes:
    """One call's capture records with the RTP marker bit set where a talkspurt starts: the first packet, and
    each one that arrived more than `gap_ms` after the one before. Asterisk re-packetises the daemon's audio for
    the caller's leg and sends no marker bits of its own; the analysis finds a reply's start by the marker."""
    packets = parse_packets(blob).copy()
    if len(packets):
        starts = np.concatenate([[True], np.diff(packets["t"]) > gap_ms * 1_000_000])
        packets["b1"] = np.where(starts, packets["b1"] | 0x80, packets["b1"] & 0x7F)
    return packets.tobytes()


def readings(pbx_pid: int, pids: list[int], pg: int | None, callers_pid: int) -> dict[str, Any]:
    r = _readings(pids, pg, callers_pid)
    r["callers"] = tree_cpu_seconds(callers_pid)  # with every sipp it ran (reaped) or runs
    r["callers_own"] = cpu_seconds(callers_pid)  # the Python process alone (RTP, capture, dialogue)
    r["asterisk"] = cpu_seconds(pbx_pid)
    return r


async def caller_ids(stage: Stage, numbers: list[str]) -> dict[str, str]:
    """Caller number -> the daemons' call id (Asterisk's channel id), from the calls they recorded."""
    from ai_operator.storage.database import Database

    db = await Database.open(None, stage.state_dir)
    try:
        async with db.pool.connection() as conn:
            cur = await conn.execute("SELECT caller_id, call_id FROM calls WHERE caller_id = ANY(%s)", (numbers,))
            return {str(a): str(b) for a, b in await cur.fetchall()}
    finally:
        await db.close()


def hang_up_all(pbx: Any) -> None:
    """Every channel left on the node hung up (a caller still in a call when the run ended was stopped without
    a BYE): the daemons see their callers gone and stop at once, instead of draining and saying goodbye."""
    for channel in pbx.channels():
        with contextlib.suppress(OSError):
            pbx.ari("DELETE", f"/channels/{channel['id']}")


async def run_node(n: int, stage: NodeStage, options: Options) -> dict[str, Any]:
    """One run of `n` SIP caller slots against the node; the media run's entry plus `daemons` and `node`."""
    from ai_operator.storage.embedded import EmbeddedServer
    from tests.support.asterisk.pbx import ARI_USER, free_udp_port
    from tests.support.cluster.kamailio import FRONT_DOOR_HOST
    from tests.support.cluster.nodes import ROUTE_EXTEN
    from tests.support.ports import free_tcp_ports

    run_dir = stage.workdir / f"n{n}"
    run_dir.mkdir(parents=True, exist_ok=True)
    call_s = stage.plan.call_seconds(sum(THINK_S) / 2, END_SILENCE_MS / 1000)
    warmup = options.warmup_s if options.warmup_s is not None else call_s + 5
    pbx, names, ports = stage.pbx, apps(DAEMONS), free_tcp_ports(DAEMONS)
    ref_port = free_udp_port()
    spec = {"n": n, "plan": str(stage.plan_path), "out": str(run_dir / "capture"), "seed": options.seed,
            "ari_user": ARI_USER, "ari_password": "-", "app": names[0], "apps": names, "route": ROUTE,
            "warmup_s": warmup, "call_s": call_s, "window_s": options.window_s,
            "stagger_s": options.stagger_s if options.stagger_s is not None else call_s, "think_s": THINK_S,
            "gap_s": GAP_S, "scrape_s": SCRAPE_EVERY_S, "metrics_urls": [f"http://127.0.0.1:{p}/metrics" for p in ports],
            "metrics_url": f"http://127.0.0.1:{ports[0]}/metrics", "cpus": [], "sip": f"127.0.0.1:{pbx.ports.sip}",
            "source_ip": FRONT_DOOR_HOST, "exten": ROUTE_EXTEN, "hangup_after_s": HANGUP_AFTER_S,
            "reference": {"exten": ref.exten(ref_port)}}
    (run_dir / "spec.json").write_text(json.dumps(spec))
    server = EmbeddedServer.in_state_dir(stage.state_dir)
    dsn = await asyncio.to_thread(server.start)
    pg = postmaster_pid(stage.state_dir / "pgdata")
    daemons: list[Any] = []
    dirs = [run_dir / f"daemon-{i}" for i in range(1, DAEMONS + 1)]
    callers: CallerProcess | None = None
    reference: Any = None
    try:
        start_daemons(daemons, stage, dirs, ports, rtp_ranges(DAEMONS, max(4 * n, 100)), UNPINNED, options, {
            "DATABASE_URL": dsn, "ARI_URL": pbx.ari_url, "ARI_USER": ARI_USER, "ARI_PASSWORD": pbx.creds.ari_password,
            "MAX_CALLS": max(2 * n, 10), "RTP_HOST": "127.0.0.1"})
        await apps_registered(pbx, names, daemons, dirs)
        callers = await CallerProcess.start(run_dir / "spec.json", run_dir / "callers.log", "benchmarks.node_callers")
        window = await callers.event("window", START_TIMEOUT_S)
        reference = await ref.start(pbx, run_dir, ref_port, window["t0_ns"], window["t1_ns"])
        pids = [p.pid for p in daemons]
        rss_idle = sum(rss_mb(p) for p in pids)
        load_start = os.getloadavg()
        await _sleep_until(window["t0_ns"])
        await callers.alive()
        r0 = readings(pbx.proc.pid, pids, pg, callers.proc.pid)
        for p in daemons:
            p.send_signal(signal.SIGUSR1)  # the daemons' own window opens
        await _sleep_until(window["t1_ns"])
        await callers.alive()
        r1 = readings(pbx.proc.pid, pids, pg, callers.proc.pid)
        for p in daemons:
            p.send_signal(signal.SIGUSR2)  # ... and closes (their figures written)
        rss, load_end = sum(rss_mb(p) for p in pids), os.getloadavg()
        await callers.event("done", DONE_TIMEOUT_S + options.window_s)
        await callers.proc.wait()
        record = await reference.record() if reference is not None else None
        await asyncio.to_thread(hang_up_all, pbx)
    finally:
        await asyncio.gather(*(stop_daemon(p) for p in daemons))
        if callers is not None:
            await callers.stop()
        if reference is not None:
            reference.stop()
    try:
        capture = loads((run_dir / "capture" / "capture.json").read_text(),
                        (run_dir / "capture" / "packets.bin").read_bytes())
        capture.calls, ref_call = ref.take_reference(capture.calls)
        ids = await caller_ids(stage, [c.channel_id for c in capture.calls])
        for c in capture.calls:
            c.channel_id = ids.get(c.channel_id, c.channel_id)
            c.packets = mark_talkspurts(c.packets)
        own = [json.loads((d / "daemon-figures.json").read_text()) if (d / "daemon-figures.json").exists() else {}
               for d in dirs]
        figures = judge(capture, stage.plan, own)
        records = await records_check(stage, list(ids.values()))
    finally:
        await asyncio.to_thread(server.release)
    entry = assemble(n, options, warmup, {"daemon": [], "database": [], "callers": []}, r0, r1, rss_idle, rss,
                     (load_start, load_end), figures, merged_figures(own), capture.health, records, run_dir)
    entry["daemons"] = per_daemon(DAEMONS, UNPINNED, r0, r1, own, entry)
    if capture.health.get("sipp_failed"):
        entry["valid"]["ok"] = False
        entry["valid"]["problems"].append(f"{capture.health['sipp_failed']} sipp processes could not place their "
                                          "call (the load generator's failure)")
    entry["node"] = node_figures(r0, r1, entry)
    entry["baseline"] = ref.section(ref_call, capture, record, own)
    rejudge(entry, stage.limits, entry["baseline"])
    return entry


def summary(searches: list[dict[str, Any]], ladder: Ladder, margin_pct: int, cpus: int) -> dict[str, Any]:
    """The knee per node (the smallest search's), what this node's CPUs carry per core, and the recommended load."""
    s = summarise(searches, ladder, margin_pct)
    at = next((r for search_ in searches for r in search_["runs"] if r["calls"] == s["knee"]), None)
    node = per_node(s, cpus, 1)
    return {**s, "calls_per_node": s["knee"], "calls_per_cpu": round(s["knee"] / cpus, 1) if s["knee"] else None,
            "recommended_per_node": node and node["calls_per_node"],
            "recommended_max_calls_per_daemon": s["recommended_max_calls"] // DAEMONS
            if s["recommended_max_calls"] else None, "at_knee": (at or {}).get("node"),
            "cpu_bound": cpu_bound(searches, cpus)}


def cpu_bound(searches: list[dict[str, Any]], cpus: int) -> dict[str, Any] | None:
    """What the CPU alone would allow, from the valid run with the most calls in progress (the per-call cost
    least blurred by the parts' fixed cost): the node's cores per call, and this box's CPUs over it, with and
    without the load generator. Not a capacity: it ignores every budget; it says what a call costs."""
    runs = [r for s in searches for r in s["runs"] if (r.get("valid") or {}).get("ok") and (r.get("node") or {})
            .get("node_cores") and r["figures"]["calls"]["mean_concurrent"]]
    if not runs:
        return None
    run = max(runs, key=lambda r: r["figures"]["calls"]["mean_concurrent"])
    calls, node = run["figures"]["calls"]["mean_concurrent"], run["node"]
    per_call = node["node_cores"] / calls
    with_load = (node["node_cores"] + node["load_generator_cores"]) / calls
    return {"from_n": run["calls"], "mean_concurrent": calls, "node_cores_per_call": round(per_call, 4),
            "calls_per_node": int(cpus / per_call), "calls_per_node_with_load_generator": int(cpus / with_load)}


async def prepare_node(workdir: Path, most_calls: int) -> NodeStage:
    """The media bench's stage (knowledge base, plan, TTS cache) and the node's Asterisk, started."""
    from tests.support.asterisk.pbx import PbxPorts, free_udp_port
    from tests.support.ports import closed_tcp_port, free_udp_range

    stage = await prepare_stage(workdir)
    size = RTP_PORTS_PER_CALL * most_calls + 100
    rtp = free_udp_range(size, host="0.0.0.0")
    ports = PbxPorts(sip=free_udp_port(), http=closed_tcp_port(), rtp_start=rtp, rtp_end=rtp + size - 1)
    pbx = ref.node_class()("node-a", 1, workdir / "asterisk", daemons=DAEMONS, ports=ports)
    pbx.run_dir.mkdir(parents=True, exist_ok=True)
    await asyncio.to_thread(pbx.start)
    return NodeStage(stage.workdir, stage.state_dir, stage.plan_path, stage.plan, pbx=pbx)


async def run_bench(ladder: Ladder, repeats: int, margin_pct: int, options: Options, limits: dict[str, float],
                    workdir: Path) -> dict[str, Any]:
    """The report's `knee` section: `repeats` searches over one node."""
    import dataclasses

    stage = dataclasses.replace(await prepare_node(workdir, ladder.stop), limits=limits)
    try:
        searches = [await search(i + 1, ladder, stage, options, run_node, RUN_FIGURES) for i in range(repeats)]
    finally:
        await asyncio.to_thread(stage.pbx.remove)
    cpus = len(os.sched_getaffinity(0))
    return {"ladder": dataclasses.asdict(ladder), "repeats": repeats, "pinned": False, "daemons": DAEMONS, "cpus": cpus,
            "searches": searches, "summary": summary(searches, ladder, margin_pct, cpus)}


def main(argv: list[str] | None = None) -> int:
    from benchmarks.run import REPORTS, git_commit, machine

    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.node_capacity", description=__doc__.splitlines()[0])
    parser.add_argument("--knee", required=True, metavar="START:STOP:STEP", help="call counts per node to search")
    parser.add_argument("--resolution", type=int, help="bisect until pass and fail are this close (default step/2)")
    parser.add_argument("--repeats", type=int, default=2, help="independent searches (default 2)")
    parser.add_argument("--margin", type=int, default=20, help="recommended calls = knee less this %% (default 20)")
    parser.add_argument("--window", type=float, default=60.0, help="measurement window per run, s (default 60)")
    parser.add_argument("--warmup", type=float, help="seconds before the window (default: one average call)")
    parser.add_argument("--stagger", type=float, help="first calls spread over this many s (default: one call)")
    parser.add_argument("--limit", action="append", default=[], metavar="BUDGET=LIMIT", help="replace a budget's limit")
    parser.add_argument("--reports", default=str(REPORTS), help="where to write the report")
    parser.add_argument("--keep", action="store_true", help="keep the work dir (logs, captures, sipp's errors)")
    args = parser.parse_args(argv)
    limits = parse_limits(args.limit)
    if not 1 <= args.repeats <= 5 or not 0 <= args.margin < 100:
        raise SystemExit(f"--repeats {args.repeats} / --margin {args.margin}: give 1-5 searches and a margin of 0-99 %")
    try:
        ladder = Ladder.parse(args.knee, args.resolution)
    except ValueError as exc:
        raise SystemExit(str(exc)) from None
    options = Options(window_s=args.window, warmup_s=args.warmup, stagger_s=args.stagger, pin=False)
    report: dict[str, Any] = {
        "started_at": datetime.now(UTC).isoformat(timespec="seconds"), "git": git_commit(), "machine": machine(),
        "command": shlex.join(["python", "-m", "benchmarks.node_capacity", *argv]), "limits": limits,
        "load_average": {"start": [round(x, 2) for x in os.getloadavg()]}}
    workdir = Path(tempfile.mkdtemp(prefix="ai-operator-node-bench-"))
    try:
        report["knee"] = asyncio.run(run_bench(ladder, args.repeats, args.margin, options, limits, workdir))
    finally:
        if args.keep:
            report["workdir"] = str(workdir)
        else:
            shutil.rmtree(workdir, ignore_errors=True)
    report["load_average"]["end"] = [round(x, 2) for x in os.getloadavg()]
    report["budgets"] = {"knee.reproducible": knee_verdict(report["knee"]["summary"])}
    report["finished_at"] = datetime.now(UTC).isoformat(timespec="seconds")
    out = Path(args.reports)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"node-capacity-{time.strftime('%Y%m%d-%H%M%S')}.json"
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    from benchmarks.node_readme import summary_lines

    print("\n".join(summary_lines(report["knee"])))
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
