"""K daemons on one node (`python -m benchmarks.run --daemons 1,2`): the media benchmark with the node split.

As README "Scaling out" runs a node: K daemon processes (`daemon_proc`), each its own ARI app
(`ai-operator-1..K`), RTP range, metrics port and STATE_DIR (with a copy of the prewarmed TTS cache), all on
ONE PostgreSQL: the stage's embedded server, started here and handed to every daemon as its DATABASE_URL. The
callers (`caller_proc`, one simulated PBX) send calls to the apps round-robin; a call one daemon sends back
goes to the next, as the dialplan split does. The window's CPU is read per daemon, for the database (every
backend) and the callers; the report keeps each daemon's share and their sum, and the budgets are judged
over all calls as for one daemon.

Pinning: where the box has a CPU per daemon plus one for the callers, each daemon gets its own CPU (the
database shares the daemons' CPUs) and the callers the rest; otherwise nothing is pinned and the report says
so (on 2 CPUs, K=2 leaves no CPU for the callers: compare K=2 unpinned with K=1 at the same N in one run).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import secrets
import shutil
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

from benchmarks.capture import loads
from benchmarks.media_bench import (
    DONE_TIMEOUT_S,
    END_SILENCE_MS,
    GAP_S,
    ROUTE,
    SCRAPE_S,
    START_TIMEOUT_S,
    THINK_S,
    CallerProcess,
    Options,
    Stage,
    _sleep_until,
    assemble,
    base_env,
    judge,
    records_check,
    start_daemon,
    stop_daemon,
    write_env,
)
from benchmarks.procstat import (
    box_busy_seconds,
    cpu_seconds,
    postmaster_pid,
    rss_mb,
    runqueue_wait_seconds,
    tree_cpu_seconds,
)
from tests.support.asterisk.pbx import free_udp_port
from tests.support.ports import free_tcp_ports

APP_PREFIX = "ai-operator"
USER = "ai-operator"


def apps(k: int) -> list[str]:
    return [f"{APP_PREFIX}-{i}" for i in range(1, k + 1)]


def pinning(k: int, pin: bool = True) -> dict[str, Any]:
    """A CPU per daemon and the rest for the callers when the box has K+1 CPUs or more; else none."""
    cpus = sorted(os.sched_getaffinity(0))
    if not pin or len(cpus) < k + 1:
        return {"daemons": [[] for _ in range(k)], "callers": [], "pinned": False}
    return {"daemons": [[c] for c in cpus[:k]], "callers": cpus[k:], "pinned": True}


def rtp_ranges(k: int, size: int) -> list[tuple[int, int]]:
    """K disjoint ranges of `size` ports from one base the OS hands out (the daemons skip ports taken meanwhile)."""
    base = min(free_udp_port("127.0.0.1"), 65536 - k * size)
    return [(base + i * size, base + (i + 1) * size - 1) for i in range(k)]


def merged_figures(own: list[dict[str, Any]]) -> dict[str, Any]:
    """The daemons' own window figures as one: counters and peaks summed, turn latencies pooled, the worst
    send-time error."""
    counters: dict[str, int] = {}
    for figures in own:
        for key, value in (figures.get("counters") or {}).items():
            counters[key] = counters.get(key, 0) + value
    sends = [f.get("send_error_last_frame_ms") or {} for f in own]
    worst = max(sends, key=lambda s: s.get("p99_ms", -1.0), default={})
    return {"counters": counters, "peak_calls": sum(f.get("peak_calls") or 0 for f in own),
            "bridge_ms": [ms for f in own for ms in f.get("bridge_ms") or []], "send_error_last_frame_ms": worst,
            "stall": next((f["stall"] for f in own if f.get("stall")), None),
            "gc": [f.get("gc") for f in own]}


def start_daemons(started: list[subprocess.Popen[bytes]], stage: Stage, dirs: list[Path], ports: list[int],
                  rtps: list[tuple[int, int]], pins: dict[str, Any], options: Options, values: dict[str, Any]) -> None:
    """A `daemon_proc` per dir (app `ai-operator-<i>`, its metrics port and RTP range, its STATE_DIR with a copy of
    the prewarmed TTS cache, as every node's daemons have), appended to `started` as each starts; `values`: what
    they share (database, ARI, MAX_CALLS)."""
    for i, (app, port, rtp, d) in enumerate(zip(apps(len(dirs)), ports, rtps, dirs, strict=True)):
        d.mkdir(exist_ok=True)
        if (stage.state_dir / "tts-cache").is_dir():
            shutil.copytree(stage.state_dir / "tts-cache", d / "state" / "tts-cache", dirs_exist_ok=True)
        write_env(d / "daemon.env", {**base_env(d / "state"), **values, "ARI_APP": app, "METRICS_HOST": "127.0.0.1",
                                     "METRICS_PORT": port, "RTP_PORT_MIN": rtp[0], "RTP_PORT_MAX": rtp[1]})
        started.append(start_daemon(d, d / "daemon.env", stage.plan_path, {"daemon": pins["daemons"][i]}, options,
                                    options.window_s))


def last_line(log: Path) -> str:
    """The last non-empty line of a daemon's log (its error), for a failure message that names the cause."""
    with contextlib.suppress(OSError):
        lines = [line for line in log.read_text(errors="replace").splitlines() if line.strip()]
        return lines[-1][-300:] if lines else "(empty)"
    return "(unreadable)"


async def apps_registered(pbx: Any, names: list[str], daemons: list[Any], dirs: list[Path],
                          timeout: float = START_TIMEOUT_S) -> None:
    """Until every daemon's app is registered with Asterisk; a daemon that exited first, or the timeout, is
    named with its log."""
    deadline = time.monotonic() + timeout
    while not set(names) <= {a["name"] for a in await asyncio.to_thread(pbx.ari, "GET", "/applications") or []}:
        exited = [(p, d) for p, d in zip(daemons, dirs, strict=False) if p.poll() is not None]
        if dead := [f"{d / 'daemon.log'} (exit {p.returncode}; it ends: {last_line(d / 'daemon.log')})"
                    for p, d in exited]:
            raise RuntimeError(f"a daemon exited before registering with Asterisk: {', '.join(dead)}")
        if time.monotonic() > deadline:
            raise TimeoutError(f"the daemons did not register {names} with Asterisk in {timeout:g} s (see "
                               f"{', '.join(str(d / 'daemon.log') for d in dirs)}; --keep keeps them)")
        await asyncio.sleep(0.2)


def _readings(pids: list[int], pg_pid: int | None, caller_pid: int) -> dict[str, Any]:
    own = [cpu_seconds(p) for p in pids]
    waits = [runqueue_wait_seconds(p) for p in pids]
    return {"t": time.monotonic(), "daemon": sum(own), "per_daemon": own,
            "callers": cpu_seconds(caller_pid), "db": tree_cpu_seconds(pg_pid) if pg_pid else 0.0,
            "db_pid": float(pg_pid or 0), "self": cpu_seconds(os.getpid()), "box": box_busy_seconds(),
            "daemon_wait": sum(waits) / len(waits), "per_daemon_wait": waits}  # the mean daemon's wait


def _pin_database(pg_pid: int | None, cpus: list[int]) -> None:
    """The postmaster (and the backends it forks from now on) on the daemons' CPUs."""
    if pg_pid and cpus:
        with contextlib.suppress(OSError):
            os.sched_setaffinity(pg_pid, set(cpus))


async def run_multi(n: int, k: int, stage: Stage, options: Options) -> dict[str, Any]:
    """One run of `n` caller slots over `k` daemons; the media run's entry plus `daemons` (per-daemon CPU)."""
    from ai_operator.storage.embedded import EmbeddedServer

    run_dir = stage.workdir / f"n{n}-k{k}"
    run_dir.mkdir(parents=True, exist_ok=True)
    plan = stage.plan
    call_s = plan.call_seconds(sum(THINK_S) / 2, END_SILENCE_MS / 1000)
    warmup = options.warmup_s if options.warmup_s is not None else call_s + 5
    stagger = options.stagger_s if options.stagger_s is not None else call_s
    pins = pinning(k, options.pin)
    names = apps(k)
    password = secrets.token_hex(8)
    ports = free_tcp_ports(len(names))
    spec = {"n": n, "plan": str(stage.plan_path), "out": str(run_dir / "capture"), "seed": options.seed,
            "ari_user": USER, "ari_password": password, "app": names[0], "apps": names, "route": ROUTE,
            "warmup_s": warmup, "call_s": call_s, "window_s": options.window_s, "stagger_s": stagger,
            "think_s": THINK_S, "gap_s": GAP_S, "scrape_s": SCRAPE_S,
            "metrics_url": f"http://127.0.0.1:{ports[0]}/metrics",
            "metrics_urls": [f"http://127.0.0.1:{p}/metrics" for p in ports], "cpus": pins["callers"]}
    (run_dir / "spec.json").write_text(json.dumps(spec))
    server = EmbeddedServer.in_state_dir(stage.state_dir)
    dsn = await asyncio.to_thread(server.start)  # the node's one database, for every daemon
    pg = postmaster_pid(stage.state_dir / "pgdata")
    _pin_database(pg, [c for cpus in pins["daemons"] for c in cpus])
    own_affinity = os.sched_getaffinity(0)
    if pins["callers"]:
        os.sched_setaffinity(0, set(pins["callers"]))
    callers = await CallerProcess.start(run_dir / "spec.json", run_dir / "callers.log")
    daemons: list[subprocess.Popen[bytes]] = []
    dirs = [run_dir / f"daemon-{i}" for i in range(1, k + 1)]
    try:
        url = (await callers.event("ari", START_TIMEOUT_S))["url"]
        start_daemons(daemons, stage, dirs, ports, rtp_ranges(k, max(4 * n, 100)), pins, options, {
            "DATABASE_URL": dsn, "ARI_URL": url, "ARI_USER": USER, "ARI_PASSWORD": password,
            "MAX_CALLS": max(2 * n, 10)})
        window = await callers.event("window", START_TIMEOUT_S)
        pids = [p.pid for p in daemons]
        rss_idle = sum(rss_mb(p) for p in pids)
        load_start = os.getloadavg()
        await _sleep_until(window["t0_ns"])
        await callers.alive()
        r0 = _readings(pids, pg, callers.proc.pid)
        for p in daemons:
            p.send_signal(signal.SIGUSR1)
        await _sleep_until(window["t1_ns"])
        await callers.alive()
        r1 = _readings(pids, pg, callers.proc.pid)
        for p in daemons:
            p.send_signal(signal.SIGUSR2)
        rss = sum(rss_mb(p) for p in pids)
        load_end = os.getloadavg()
        await callers.event("done", DONE_TIMEOUT_S + options.window_s)
        await callers.proc.wait()
    finally:
        await asyncio.gather(*(stop_daemon(p) for p in daemons))
        await callers.stop()
        os.sched_setaffinity(0, own_affinity)
    try:
        capture = loads((run_dir / "capture" / "capture.json").read_text(),
                        (run_dir / "capture" / "packets.bin").read_bytes())
        own = [json.loads((d / "daemon-figures.json").read_text()) if (d / "daemon-figures.json").exists() else {}
               for d in dirs]
        figures = judge(capture, plan, own)
        answered = [c.channel_id for c in capture.calls if c.outcome not in ("refused", "no_media")]
        records = await records_check(stage, answered)
    finally:
        await asyncio.to_thread(server.release)
    entry = assemble(n, options, warmup, pins, r0, r1, rss_idle, rss, (load_start, load_end), figures,
                     merged_figures(own), capture.health, records, run_dir)
    entry["daemons"] = per_daemon(k, pins, r0, r1, own, entry)
    return entry


def per_daemon(k: int, pins: dict[str, Any], r0: dict[str, Any], r1: dict[str, Any], own: list[dict[str, Any]],
               entry: dict[str, Any]) -> dict[str, Any]:
    """Each daemon's CPU in the window, its share of the node's calls (by the RTP it sent) and the sum."""
    window = r1["t"] - r0["t"]
    sent = [((f.get("counters") or {}).get("sent") or 0) for f in own]
    total_sent = sum(sent) or 1
    rows = []
    for i in range(k):
        cpu = r1["per_daemon"][i] - r0["per_daemon"][i]
        wait = r1["per_daemon_wait"][i] - r0["per_daemon_wait"][i]
        rows.append({"app": apps(k)[i], "cpus": pins["daemons"][i], "cpu_s": round(cpu, 2),
                     "cores": round(cpu / window, 3), "runqueue_wait_pct": round(100 * wait / window, 1),
                     "share_of_rtp_out": round(sent[i] / total_sent, 3), "peak_calls": own[i].get("peak_calls")})
    return {"k": k, "pinned": pins["pinned"], "per_daemon": rows,
            "sum_cores": round(sum(r["cores"] for r in rows), 3),
            "s_per_call_minute": (entry.get("cpu") or {}).get("s_per_call_minute")}


def comparison(runs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """At each N with K=1 and K>1 runs: the CPU per call-minute of K over that of 1 (pure)."""
    by_n: dict[int, dict[int, dict[str, Any]]] = {}
    for run in runs:
        if run.get("daemons"):
            by_n.setdefault(run["calls"], {})[run["daemons"]["k"]] = run
    out = []
    for n, by_k in sorted(by_n.items()):
        one = (by_k.get(1) or {}).get("cpu", {}).get("s_per_call_minute")
        for k, run in sorted(by_k.items()):
            if k == 1 or not one:
                continue
            mine = run["cpu"].get("s_per_call_minute")
            out.append({"n": n, "k": k, "s_per_call_minute_k1": one, "s_per_call_minute": mine,
                        "ratio": round(mine / one, 3) if mine else None,
                        "pinned_k1": by_k[1]["daemons"]["pinned"], "pinned": run["daemons"]["pinned"]})
    return out


def render(runs: list[dict[str, Any]]) -> list[str]:
    """Lines for the printed summary: each K-daemon run's per-daemon CPU and the K=1 comparison."""
    lines = []
    for run in runs:
        d = run.get("daemons")
        if not d:
            continue
        each = ", ".join(f"{r['app']} {r['cores']:.2f} cores (waited {r['runqueue_wait_pct']} %, "
                         f"{100 * r['share_of_rtp_out']:.0f} % of the audio)" for r in d["per_daemon"])
        lines.append(f"N={run['calls']} K={d['k']} ({'pinned' if d['pinned'] else 'not pinned'}): {each}; "
                     f"sum {d['sum_cores']:.2f} cores, {d['s_per_call_minute']} CPU s per call-minute with the "
                     f"database, verdict {run['verdict']}")
    for c in comparison(runs):
        lines.append(f"N={c['n']}: K={c['k']} costs {c['ratio']} x the CPU per call-minute of K=1 "
                     f"({c['s_per_call_minute']} vs {c['s_per_call_minute_k1']}; K=1 "
                     f"{'pinned' if c['pinned_k1'] else 'not pinned'}, K={c['k']} "
                     f"{'pinned' if c['pinned'] else 'not pinned'})")
    return lines
