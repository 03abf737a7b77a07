"""Media path at scale: N concurrent calls (with churn) through the real daemon, judged from the callers' side.

Three processes: the daemon (`daemon_proc`, pinned with its embedded PostgreSQL to one CPU where the box has
two or more), the callers with the simulated PBX (`caller_proc`, pinned to the others) and this one, which
prepares the conversations (`plan`), takes the CPU readings at the window's edges and judges the capture
(`analysis`). `prepare_stage(workdir)` once per `make bench`; `run_media(n, stage, options)` per call count.
A pacer with no work (`reference_pacer`) runs in the same window: lateness and jitter are judged net of the
box's own (`baseline.py`), lost frames as the daemon's or the host's (`stalls.py`), steal reported beside.
"""

from __future__ import annotations

import asyncio
import contextlib
import io
import json
import os
import secrets
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai_operator.config.schema import VadSettings
from benchmarks import plan as plans
from benchmarks.analysis import Rules, analyse, percentile, verdicts
from benchmarks.baseline import judge_net, reference_figures, reference_problems
from benchmarks.capture import loads
from benchmarks.procstat import (
    box_busy_seconds,
    box_steal_seconds,
    cpu_seconds,
    postmaster_pid,
    rss_mb,
    runqueue_wait_seconds,
    tree_cpu_seconds,
)
from benchmarks.reference_pacer import ReferenceProcess
from benchmarks.stalls import box_problems, events_by_call
from tests.support.asterisk.pbx import free_udp_port
from tests.support.ports import closed_tcp_port

REPO = Path(__file__).resolve().parent.parent
ENV_EXAMPLE = REPO / "etc" / "ai-operator.env.example"
SAMPLE_KB = REPO / "etc" / "kb" / "sample.jsonl"
APP = "ai-operator"
ROUTE = "test"
END_SILENCE_MS = 600
EARLY_PAUSE_MS = 240  # VAD_EARLY_STT_MS: the pause at which the policy may end a turn (VAD_EARLY_TURN, on)
EARLY_REPLY_MS = VadSettings().early_reply_ms  # and the silence its reply waits for (VAD_EARLY_REPLY_MS, default)
THINK_S = (0.4, 0.9)
GAP_S = (0.3, 1.0)
SCRAPE_S = 2.0
START_TIMEOUT_S = 120.0
DONE_TIMEOUT_S = 150.0  # after the window: replies in progress heard out, everyone hangs up
STOP_TIMEOUT_S = 60.0
CALLER_LAG_P99_MS = 20.0  # the callers' own pacing later than this: the run is not a clean test
S = 1_000_000_000


@dataclass(frozen=True)
class Stage:
    """What every run of one `make bench` shares: a state dir with the knowledge base and the plan."""

    workdir: Path
    state_dir: Path
    plan_path: Path
    plan: plans.Plan


@dataclass(frozen=True)
class Options:
    window_s: float = 120.0
    warmup_s: float | None = None  # None: one average call, so the churn is steady when the window opens
    stagger_s: float | None = None  # first calls spread over this; None: one average call
    stall_ms: float = 0.0
    stall_at_s: float | None = None  # None: half the window
    profile: bool = False
    pin: bool = True
    seed: int = 8
    max_calls: int | None = None  # the daemon's MAX_CALLS; None: 2 N (never reached). Below N: an overload run


def write_env(path: Path, values: dict[str, Any]) -> None:
    """The example env file with `values` replacing (or adding) keys."""
    lines, seen = [], set()
    for line in ENV_EXAMPLE.read_text().splitlines():
        key = line.split("=", 1)[0].strip() if "=" in line and not line.lstrip().startswith("#") else None
        if key in values:
            lines.append(f"{key}={values[key]}")
            seen.add(key)
        else:
            lines.append(line)
    lines.extend(f"{k}={v}" for k, v in values.items() if k not in seen)
    path.write_text("\n".join(lines) + "\n")


def base_env(state_dir: Path) -> dict[str, Any]:
    return {"STATE_DIR": state_dir, "DATABASE_URL": "", "OPENAI_API_KEY": "", "LLM_PROVIDER": "none",
            "STT_PROVIDER": "none", "TTS_PROVIDER": "espeak", "EMBEDDING_PROVIDER": "hash",
            "VAD_END_SILENCE_MS": END_SILENCE_MS, "VAD_EARLY_STT_MS": EARLY_PAUSE_MS, "LOG_FORMAT": "json",
            "DRAIN_TIMEOUT_S": 2, "ROUTE_FREIGHT_LOADS_DIR": REPO / "etc" / "loads"}


async def prepare_stage(workdir: Path) -> Stage:
    """The sample knowledge base ingested into a fresh embedded PostgreSQL, the plan, the TTS cache prewarmed."""
    from ai_operator.config import load_settings
    from ai_operator.kb.commands import kb_ingest

    state = workdir / "state"
    env = workdir / "plan.env"
    write_env(env, base_env(state))
    settings = load_settings(env, environ={})
    out = io.StringIO()
    if await kb_ingest(settings, SAMPLE_KB, prune=False, reembed=False, out=out) != 0:
        raise RuntimeError(f"benchmark: ingesting {SAMPLE_KB} failed: {out.getvalue().strip()}")
    plan = await plans.prepare(settings, workdir / "plan", ROUTE)
    return Stage(workdir, state, workdir / "plan" / "plan.json", plan)


def rtp_range(size: int) -> tuple[int, int]:
    """A range of `size` ports starting at one the OS hands out (the daemon skips any taken meanwhile)."""
    base = free_udp_port("127.0.0.1")
    if base + size - 1 > 65535:
        base = 65535 - size + 1
    return base, base + size - 1


def pinning(pin: bool = True) -> dict[str, list[int]]:
    """The daemon alone on the first CPU; its PostgreSQL, the callers and this process on the rest, as README's
    sizing rule keeps a core for Asterisk (the callers stand for it) and the database; one CPU: none."""
    cpus = sorted(os.sched_getaffinity(0))
    if len(cpus) < 2 or not pin:
        return {"daemon": [], "database": [], "callers": []}
    return {"daemon": cpus[:1], "database": cpus[1:], "callers": cpus[1:]}


class CallerProcess:
    """`caller_proc` as a child process; its JSON-line events are read as they come."""

    def __init__(self, proc: asyncio.subprocess.Process, log: Any) -> None:
        self.proc = proc
        self._log = log

    @classmethod
    async def start(cls, spec_path: Path, log_path: Path, module: str = "benchmarks.caller_proc") -> CallerProcess:
        log = log_path.open("wb")
        proc = await asyncio.create_subprocess_exec(
            sys.executable, "-m", module, "--spec", str(spec_path), cwd=REPO,
            stdout=asyncio.subprocess.PIPE, stderr=log)
        return cls(proc, log)

    async def event(self, name: str, timeout: float) -> dict[str, Any]:
        assert self.proc.stdout is not None
        deadline = time.monotonic() + timeout
        while True:
            line = await asyncio.wait_for(self.proc.stdout.readline(), max(0.1, deadline - time.monotonic()))
            if not line:
                raise RuntimeError(f"the caller process exited (code {await self.proc.wait()}) before '{name}'")
            with contextlib.suppress(ValueError):
                msg = json.loads(line)
                if msg.get("event") == "failed":
                    raise RuntimeError(f"the caller process failed: {msg.get('error')}")
                if msg.get("event") == name:
                    return msg

    async def alive(self) -> None:
        """Raises with the caller process's own error when it has exited."""
        if self.proc.returncode is None:
            return
        with contextlib.suppress(TimeoutError):
            await self.event("never", 1.0)
        raise RuntimeError(f"the caller process exited (code {self.proc.returncode}); see its log")

    async def stop(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                self.proc.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self.proc.wait(), STOP_TIMEOUT_S)
        if self.proc.returncode is None:
            self.proc.kill()
            await self.proc.wait()
        self._log.close()


def write_daemon_env(path: Path, base: dict[str, Any], ari_url: str, password: str, metrics_port: int, rtp: tuple[int, int],
               max_calls: int, extra: dict[str, Any] | None = None) -> Path:
    """The env file of a daemon under benchmark: `base` settings, the simulated PBX's ARI, its own metrics port and
    RTP range, MAX_CALLS; `extra` last (a run's own settings)."""
    write_env(path, {**base, "ARI_URL": ari_url, "ARI_USER": APP, "ARI_PASSWORD": password, "ARI_APP": APP,
                     "METRICS_HOST": "127.0.0.1", "METRICS_PORT": metrics_port, "MAX_CALLS": max_calls,
                     "RTP_PORT_MIN": rtp[0], "RTP_PORT_MAX": rtp[1], **(extra or {})})
    return path


def start_daemon(run_dir: Path, env: Path, plan_path: Path, cpus: dict[str, list[int]], options: Options,
                 window_s: float, speech_from_env: bool = False) -> subprocess.Popen[bytes]:
    """`daemon_proc` as a child process (`speech_from_env`: no ScriptedSTT, the env file's speech services)."""
    cmd = [sys.executable, "-m", "benchmarks.daemon_proc", "--env", str(env), "--plan", str(plan_path),
           "--out", str(run_dir / "daemon-figures.json"), "--cpus", ",".join(map(str, cpus["daemon"])),
           "--db-cpus", ",".join(map(str, cpus.get("database", [])))]
    if speech_from_env:
        cmd.append("--speech-from-env")
    if options.profile:
        cmd += ["--profile", str(run_dir / "daemon.prof")]
    child_env = dict(os.environ)
    if options.stall_ms > 0:
        child_env["AI_OPERATOR_BENCH_STALL_MS"] = str(options.stall_ms)
        at = options.stall_at_s if options.stall_at_s is not None else window_s / 2
        child_env["AI_OPERATOR_BENCH_STALL_AT_S"] = str(at)
    return subprocess.Popen(cmd, cwd=REPO, env=child_env, stdout=(run_dir / "daemon.log").open("wb"),
                            stderr=subprocess.STDOUT)


async def stop_daemon(proc: subprocess.Popen[bytes]) -> int | None:
    if proc.poll() is None:
        proc.send_signal(signal.SIGTERM)
    deadline = time.monotonic() + STOP_TIMEOUT_S
    while proc.poll() is None and time.monotonic() < deadline:
        await asyncio.sleep(0.1)
    if proc.poll() is None:
        proc.kill()
        proc.wait()
    return proc.returncode


async def _sleep_until(mono_ns: int) -> None:
    await asyncio.sleep(max(0.0, (mono_ns - time.monotonic_ns()) / S))


def _readings(daemon_pid: int, pg_pid: int | None, caller_pid: int) -> dict[str, float]:
    return {"t": time.monotonic(), "daemon": cpu_seconds(daemon_pid), "callers": cpu_seconds(caller_pid),
            "db": tree_cpu_seconds(pg_pid) if pg_pid else 0.0, "db_pid": float(pg_pid or 0),
            "self": cpu_seconds(os.getpid()), "box": box_busy_seconds(), "daemon_wait": runqueue_wait_seconds(daemon_pid),
            "steal": box_steal_seconds()}


async def records_check(stage: Stage, call_ids: list[str]) -> dict[str, int]:
    """How many of the run's answered calls the daemon wrote to the database (and ended), and their turns."""
    from ai_operator.storage.database import Database

    db = await Database.open(None, stage.state_dir)
    try:
        async with db.pool.connection() as conn:
            cur = await conn.execute("SELECT count(*), count(ended_at) FROM calls WHERE call_id = ANY(%s)", (call_ids,))
            calls, ended = await cur.fetchone()  # type: ignore[misc]
            cur = await conn.execute("SELECT count(*) FROM turns WHERE call_id = ANY(%s)", (call_ids,))
            (turns,) = await cur.fetchone()  # type: ignore[misc]
    finally:
        await db.close()
    return {"calls_answered": len(call_ids), "calls_recorded": calls, "calls_ended": ended, "turns_recorded": turns}


async def run_media(n: int, stage: Stage, options: Options) -> dict[str, Any]:
    """One run with `n` caller slots; returns its figures and budget verdicts."""
    run_dir = stage.workdir / f"n{n}"
    run_dir.mkdir(parents=True, exist_ok=True)
    plan = stage.plan
    call_s = plan.call_seconds(sum(THINK_S) / 2, END_SILENCE_MS / 1000)
    warmup = options.warmup_s if options.warmup_s is not None else call_s + 5
    stagger = options.stagger_s if options.stagger_s is not None else call_s
    cpus = pinning(options.pin)
    password = secrets.token_hex(8)
    metrics_port = closed_tcp_port()
    spec = {"n": n, "plan": str(stage.plan_path), "out": str(run_dir / "capture"), "seed": options.seed,
            "ari_user": APP, "ari_password": password, "app": APP, "route": ROUTE, "warmup_s": warmup, "call_s": call_s,
            "window_s": options.window_s, "stagger_s": stagger, "think_s": THINK_S, "gap_s": GAP_S,
            "scrape_s": SCRAPE_S, "metrics_url": f"http://127.0.0.1:{metrics_port}/metrics", "cpus": cpus["callers"]}
    (run_dir / "spec.json").write_text(json.dumps(spec))
    own_affinity = os.sched_getaffinity(0)
    if cpus["callers"]:
        os.sched_setaffinity(0, set(cpus["callers"]))
    callers = await CallerProcess.start(run_dir / "spec.json", run_dir / "callers.log")
    daemon: subprocess.Popen[bytes] | None = None
    reference: ReferenceProcess | None = None
    try:
        url = (await callers.event("ari", START_TIMEOUT_S))["url"]
        env = write_daemon_env(run_dir / "daemon.env", base_env(stage.state_dir), url, password, metrics_port,
                           rtp_range(max(4 * n, 100)), options.max_calls or max(2 * n, 10))
        daemon = start_daemon(run_dir, env, stage.plan_path, cpus, options, options.window_s)
        window = await callers.event("window", START_TIMEOUT_S)
        t0, t1 = window["t0_ns"], window["t1_ns"]
        reference = ReferenceProcess(run_dir, t0, t1, cpus["daemon"])  # the box's own lateness, same window
        pg = postmaster_pid(stage.state_dir / "pgdata")
        rss_idle = rss_mb(daemon.pid)
        load_start = os.getloadavg()
        await _sleep_until(t0)
        await callers.alive()
        r0 = _readings(daemon.pid, pg, callers.proc.pid)
        daemon.send_signal(signal.SIGUSR1)
        await _sleep_until(t1)
        await callers.alive()
        r1 = _readings(daemon.pid, pg, callers.proc.pid)
        daemon.send_signal(signal.SIGUSR2)
        rss = rss_mb(daemon.pid)
        load_end = os.getloadavg()
        await callers.event("done", DONE_TIMEOUT_S + options.window_s)
        await callers.proc.wait()
        await stop_daemon(daemon)
        baseline = await reference.record() or {}  # {}: it failed, and nothing can be judged against it
    finally:
        if daemon is not None:
            await stop_daemon(daemon)
        if reference is not None:
            reference.stop()
        await callers.stop()
        os.sched_setaffinity(0, own_affinity)
    capture = loads((run_dir / "capture" / "capture.json").read_text(), (run_dir / "capture" / "packets.bin").read_bytes())
    own = json.loads((run_dir / "daemon-figures.json").read_text()) if (run_dir / "daemon-figures.json").exists() else {}
    figures = judge(capture, plan, [own])
    answered = [c.channel_id for c in capture.calls if c.outcome != "refused" and c.outcome != "no_media"]
    return assemble(n, options, warmup, cpus, r0, r1, rss_idle, rss, (load_start, load_end), figures, own,
                    capture.health, await records_check(stage, answered), run_dir, baseline)


def judge(capture: Any, plan: plans.Plan, own: list[dict[str, Any]]) -> dict[str, Any]:
    """The capture's figures (`analysis.analyse`), each turn judged against the end-of-turn wait the daemons'
    own records (`own`: each daemon's `daemon_proc` figures) say applied to it, lost frames by their skips."""
    turn_ends: dict[str, list[tuple[int, str]]] = {}
    for figures in own:
        for call_id, ends in (figures.get("turn_ends") or {}).items():
            turn_ends.setdefault(call_id, []).extend((int(at), str(kind)) for at, kind in ends)
    rules = Rules(end_silence_ms=END_SILENCE_MS, early_pause_ms=max(EARLY_PAUSE_MS, EARLY_REPLY_MS))
    return analyse(capture, plan.expected(), rules, turn_ends, events_by_call(own))


def assemble(n: int, options: Options, warmup: float, cpus: dict[str, list[int]], r0: dict[str, float],
             r1: dict[str, float], rss_idle: float, rss: float, loads_: tuple[Any, Any], figures: dict[str, Any],
             own: dict[str, Any], health: dict[str, Any], records: dict[str, int], run_dir: Path,
             baseline: dict[str, Any] | None = None) -> dict[str, Any]:
    """One run's entry in the report; with `baseline` (a `reference_pacer` record of the window) lateness and
    jitter are judged net of the box's own (`baseline.judge_net`)."""
    window = r1["t"] - r0["t"]
    cpu = {k: r1[k] - r0[k] for k in ("daemon", "db", "callers", "self", "box", "daemon_wait")}
    others = cpu["box"] - cpu["daemon"] - cpu["db"] - cpu["callers"] - cpu["self"]
    calls = figures["calls"]["mean_concurrent"] or 0.0
    call_minutes = calls * window / 60
    counters = own.get("counters", {})
    send = own.get("send_error_last_frame_ms") or {}
    reference = reference_figures(baseline) if baseline is not None else None
    v = verdicts(figures) if baseline is None else judge_net(verdicts(figures), figures, reference)
    problems = []
    if health.get("capture_drops"):
        problems.append(f"the callers' sockets dropped {health['capture_drops']} datagrams (load generator too slow)")
    if health.get("unstamped_packets"):
        problems.append(f"{health['unstamped_packets']} packets came without a kernel timestamp")
    problems += reference_problems(reference) + box_problems(figures)
    lag = (health.get("tick_lateness_ms") or {}).get("p99") or 0.0
    if lag > CALLER_LAG_P99_MS:
        problems.append(f"the callers' 20 ms ticks were {lag:.0f} ms late (p99): the load generator fell behind "
                        "(its audio reached the daemon in bursts)")
    return {
        "calls": n, "max_calls": options.max_calls, "window_s": round(window, 2), "warmup_s": round(warmup, 1),
        "pinning": cpus, "stall_injected_ms": options.stall_ms or None, "stall": own.get("stall"),
        "load_average": {"window_start": [round(x, 2) for x in loads_[0]], "window_end": [round(x, 2) for x in loads_[1]]},
        "cpu": {
            "daemon_s": round(cpu["daemon"], 2), "db_s": round(cpu["db"], 2), "callers_s": round(cpu["callers"], 2),
            "daemon_cores": round(cpu["daemon"] / window, 3), "db_cores": round(cpu["db"] / window, 3),
            "callers_cores": round(cpu["callers"] / window, 3),
            "db_measured": bool(r0.get("db_pid")),
            "s_per_call_minute": round((cpu["daemon"] + cpu["db"]) / call_minutes, 4) if call_minutes else None,
            "daemon_s_per_call_minute": round(cpu["daemon"] / call_minutes, 4) if call_minutes else None,
        },
        "contention": {  # the box is shared: how much of it others used, and how long the daemon waited for a CPU
            "box_busy_cores": round(cpu["box"] / window, 2), "other_processes_cores": round(max(0.0, others) / window, 2),
            "daemon_runqueue_wait_pct": round(100 * cpu["daemon_wait"] / window, 1),
            "steal_cores": round((r1.get("steal", 0.0) - r0.get("steal", 0.0)) / window, 2),  # the host's share
        },
        "baseline": reference,
        "memory": {"rss_mb": round(rss, 1), "rss_idle_mb": round(rss_idle, 1),
                   "rss_mb_per_call": round((rss - rss_idle) / calls, 3) if calls else None},
        "dialogue_diverged_frames": figures["audio"]["extra_frames"],
        "figures": figures,
        "budgets": v,
        "verdict": "PASS" if all(x["verdict"] == "PASS" for x in v.values()) else "FAIL",
        "valid": {"ok": not problems, "problems": problems},
        "records": records,
        "callers": health,
        "daemon": {
            "peak_calls": own.get("peak_calls"), "late_ticks": counters.get("late_ticks"),
            "skipped_frames": counters.get("skipped_frames"), "underruns": counters.get("underruns"),
            "rtp_in": counters.get("received"), "rtp_out": counters.get("sent"),
            "own_send_error_p99_ms": round(send["p99_ms"], 3) if "p99_ms" in send else None,
            "own_send_error_max_ms": round(send["max_ms"], 3) if "max_ms" in send else None,
            "own_bridge_p95_ms": percentile(own.get("bridge_ms") or [], 95), "gc": own.get("gc"),
            "gc_waited_ticks": own.get("gc_waited_ticks"), "overruns": own.get("overruns"),
            **{k: own.get(k) for k in ("slow_steps", "threads_cpu_s", "long_receives")},
        },
        "run_dir": str(run_dir),
    }
