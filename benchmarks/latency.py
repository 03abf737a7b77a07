"""`make bench-latency` (`python -m benchmarks.latency [--profiles instant,cloud,slow] [--n 1,100]`): voice-to-voice
latency measured at the caller, by turn kind, with provider-shaped speech services.

Per profile and call count: the real daemon (`daemon_proc --speech-from-env`: the OpenAI STT, TTS and chat
adapters, as shipped) against the local OpenAI server with that latency profile (`ai_operator/sim/
latency_profiles.py`; in this process, its STT recognising the scripted lines, its model searching then
answering), the simulated PBX and N caller slots in their own process (`caller_proc`, the scale bench's
kernel-timestamped capture) running `latency_plan`'s dialogues on two routes (knowledge base; model). Judged by
`latency_analysis` (p50/p95/max per kind, PASS/FAIL per budget, NOT MEASURED for a kind with no turn), and
where each kind's time went by the daemon's own turn records (`latency_stages`: `stages` in the report). Writes
`benchmarks/reports/latency-<time>.json` and prints a table. The TTS cache starts empty each run and the daemon
prewarms its lines at start, in the background, as in production; the window opens once that first pass is over
(the server answers it at `instant` speed, then takes the run's profile), as for a daemon restarted with its
cache on disk (the cache is a folder of STATE_DIR) - a daemon's very first start, or one after an ingestion, is
slower until its pass is done (/healthz `prewarm`). `--cold`: the window opens while the pass runs at the
profile's speed (at `cloud` speed the sample KB's lines take minutes, so early calls miss the cache). `--quick`: instant and cloud, N=1 only, short windows. `--set KEY=VALUE` (repeatable) is a daemon setting for
every run, e.g. `--set VAD_EARLY_TURN=false` to measure without the policy ending turns. `--stt stream`: the
streaming STT (`STT_PROVIDER=openai_realtime`, the server's Realtime websocket) instead of batch uploads.
`--pauses`: the pause-in-the-middle callers (`latency_plan.PAUSE_SCRIPTS`). Each run also reports the daemon's
early and speculative decisions from its /metrics (`early_decisions`: decided, withdrawn, wasted requests, the
withdrawn share of turns) and, per kind, replies that began before the caller had finished (`answered_early`),
the daemon's own loop figures for the window (`daemon_loop`) and whether it had the CPU (`daemon_cpu`: the share
of the window it was busy, its loop waited on the run queue, and the box's CPU the hypervisor stole), and the
median stage record of its model turns (`model_turn_stages`: where their time went) and the requests it sent ahead
(`early_decisions.prefetch_requests`, request/outcome).
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import secrets
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from benchmarks import caller_proc, procstat
from benchmarks import latency_analysis as la
from benchmarks import latency_plan as lplan
from benchmarks import latency_stages as lstages
from benchmarks.capture import loads
from benchmarks.media_bench import (
    APP,
    DONE_TIMEOUT_S,
    GAP_S,
    SAMPLE_KB,
    SCRAPE_S,
    START_TIMEOUT_S,
    THINK_S,
    CallerProcess,
    Options,
    base_env,
    pinning,
    rtp_range,
    start_daemon,
    stop_daemon,
    write_daemon_env,
    write_env,
)
from benchmarks.run import REPORTS, git_commit, machine
from tests.support.ports import closed_tcp_port

# The daemon's own figures kept in the report: its slow loop steps, GC pauses and pacer overruns (daemon_proc)
DAEMON_LOOP_FIGURES = ("slow_steps", "gc", "gc_waited_ticks", "overruns", "counters")

KEY = "bench-key"
CALL_S = 60.0  # about one call of the plan (the knowledge-base answers are long)
SINGLE_WARMUP_S = 10.0  # N=1: no churn to settle, only the daemon's start
WINDOWS_S = {1: 180.0, 100: 60.0}  # per call count: three calls at N=1 (one at a time), hundreds of turns at 100
DEFAULT_WINDOW_S = 90.0
QUICK_WINDOW_S = 60.0
PATHS = {"/v1/audio/transcriptions": "stt", "/v1/chat/completions": "chat", "/v1/audio/speech": "tts",
         "/v1/realtime": "stt_stream"}
STT_MODES = {"batch": "openai", "stream": "openai_realtime"}  # --stt: the daemon's STT_PROVIDER


def daemon_env(state: Path, openai_url: str) -> dict[str, Any]:
    """The bench's daemon settings: OpenAI speech and (on the model route) model against the local server."""
    return {**base_env(state), "OPENAI_API_KEY": KEY, "OPENAI_BASE_URL": openai_url, "STT_PROVIDER": "openai",
            "TTS_PROVIDER": "openai", "LLM_PROVIDER": "none", "ROUTE_MODEL_ENABLED": "true",
            "ROUTE_MODEL_POLICY": "operator", "ROUTE_MODEL_HANDOFF": "ai-operator-handoff,operator,1",
            "ROUTE_MODEL_LLM": "openai"}


async def prepare(workdir: Path, scripts: Any = lplan.SCRIPTS) -> lplan.LatencyPlan:
    """The sample knowledge base in a fresh embedded PostgreSQL, the checked scripts, the callers' audio."""
    from ai_operator.config import load_settings
    from ai_operator.kb.commands import kb_ingest

    env = workdir / "plan.env"
    write_env(env, base_env(workdir / "state"))
    settings = load_settings(env, environ={})
    out = io.StringIO()
    if await kb_ingest(settings, SAMPLE_KB, prune=False, reembed=False, out=out) != 0:
        raise RuntimeError(f"latency bench: ingesting {SAMPLE_KB} failed: {out.getvalue().strip()}")
    return await lplan.prepare(settings, workdir / "plan", scripts)


def _server(profile: str, seed: int, plan: lplan.LatencyPlan) -> Any:
    from ai_operator.sim.instant import ScriptedSTT
    from ai_operator.sim.openai_server import FakeOpenAI
    from ai_operator.speech.wav import decode_wav

    recogniser = ScriptedSTT(plan.fragments)
    server = FakeOpenAI(api_key=KEY, latency=profile, seed=seed)
    server.transcripts = lambda wav, _fields: recogniser.recognise_in_order(decode_wav(wav)[0])
    server.chat_script = lplan.model_script
    return server


async def run_one(profile: str, n: int, window_s: float, workdir: Path, plan: lplan.LatencyPlan,
                  seed: int = 26, extra: dict[str, str] | None = None, cold: bool = False) -> dict[str, Any]:
    """One run: `n` caller slots against the daemon with speech services of `profile` (`cold`: the window does
    not wait for the daemon's prewarm, which runs at the profile's speed)."""
    from ai_operator.sim.latency_profiles import ProviderLatency

    extra = extra or {}
    run_dir = workdir / f"{profile}-n{n}"
    run_dir.mkdir(parents=True, exist_ok=True)
    state = workdir / "state"
    shutil.rmtree(state / "tts-cache", ignore_errors=True)
    cpus = pinning(True)
    own_affinity = os.sched_getaffinity(0)
    if cpus["callers"]:
        os.sched_setaffinity(0, set(cpus["callers"]))
    server = _server(profile if cold else "instant", seed, plan)
    openai_url = await server.start()
    password, metrics_port = secrets.token_hex(8), closed_tcp_port()
    spec = {"n": n, "plan": str(workdir / "plan" / "plan.json"), "out": str(run_dir / "capture"), "seed": seed,
            "ari_user": APP, "ari_password": password, "app": APP, "route": lplan.KB_ROUTE,
            "routes": {str(i): r for i, r in plan.routes.items()}, "warmup_s": CALL_S if n > 1 else SINGLE_WARMUP_S, "call_s": CALL_S,
            "window_s": window_s, "stagger_s": CALL_S, "think_s": THINK_S, "gap_s": GAP_S, "scrape_s": SCRAPE_S,
            "metrics_url": f"http://127.0.0.1:{metrics_port}/metrics", "cpus": cpus["callers"],
            "prewarmed": not cold}
    (run_dir / "spec.json").write_text(json.dumps(spec))
    callers = await CallerProcess.start(run_dir / "spec.json", run_dir / "callers.log")
    daemon: subprocess.Popen[bytes] | None = None
    try:
        url = (await callers.event("ari", START_TIMEOUT_S))["url"]
        env = write_daemon_env(run_dir / "daemon.env", daemon_env(state, openai_url), url, password, metrics_port,
                               rtp_range(max(4 * n, 100)), max(2 * n, 10), extra)
        daemon = start_daemon(run_dir, env, workdir / "plan" / "plan.json", cpus, Options(), window_s, speech_from_env=True)
        window = await callers.event("window", START_TIMEOUT_S + (0.0 if cold else caller_proc.PREWARM_TIMEOUT_S))
        if not cold:  # the prewarm is over: the run's profile from here on
            server.latency = ProviderLatency(profile, seed)
        wall = [datetime.now(UTC) + timedelta(seconds=(window[k] - time.monotonic_ns()) / 1e9)
                for k in ("t0_ns", "t1_ns")]
        await asyncio.sleep(max(0.0, (window["t0_ns"] - time.monotonic_ns()) / 1e9))
        daemon.send_signal(signal.SIGUSR1)  # the daemon's own figures (slow steps, GC, overruns) count from here
        cpu_from = daemon_cpu_now(daemon.pid)
        await asyncio.sleep(max(0.0, (window["t1_ns"] - time.monotonic_ns()) / 1e9))
        daemon.send_signal(signal.SIGUSR2)
        cpu = daemon_cpu_share(cpu_from, daemon_cpu_now(daemon.pid), os.cpu_count() or 1)
        await callers.event("done", DONE_TIMEOUT_S + window_s)
        await callers.proc.wait()
        early = await early_decisions(f"http://127.0.0.1:{metrics_port}/metrics")
    finally:
        if daemon is not None:
            await stop_daemon(daemon)
        await callers.stop()
        await server.stop()
        os.sched_setaffinity(0, own_affinity)
    own_path = run_dir / "daemon-figures.json"
    own = json.loads(own_path.read_text()) if own_path.exists() else {}
    loop = {k: own[k] for k in DAEMON_LOOP_FIGURES if k in own}  # where the daemon's loop stalls came from
    model_stages = stage_medians(own.get("model_turn_stages", []))  # where the model turns' time went
    capture = loads((run_dir / "capture" / "capture.json").read_text(),
                    (run_dir / "capture" / "packets.bin").read_bytes())
    figures = la.analyse(capture, plan.kinds)
    try:
        stages: Any = lstages.stages(await lstages.read_turns(None, state, *wall))
    except Exception as exc:  # the figures stand without the breakdown
        stages = {"error": f"{type(exc).__name__}: {exc}"}
    t0, t1 = capture.t0_ns / 1e9, capture.t1_ns / 1e9  # the server's stamps are time.monotonic() seconds
    requests = Counter(PATHS.get(r["path"], r["path"]) for r in server.requests if t0 <= r["time"] < t1)
    model_stages["ahead_of_commit_ms"] = chat_ahead_of_commit(server.requests)
    return {"profile": profile, "n": n, "figures": figures, "requests_in_window": dict(requests),
            "early_decisions": early, "budgets": la.verdicts(figures, profile), "health": capture.health,
            "stages": stages, "daemon_loop": loop, "daemon_cpu": cpu, "model_turn_stages": model_stages, "cold": cold}


STAGES = ("eou_ms", "stt_ms", "stt_final_ms", "policy_ms", "kb_ms", "model_ms", "tts_first_chunk_ms", "playout_ms",
          "other_ms", "first_rtp_ms", "release_ms")


def chat_ahead_of_commit(requests: list[dict[str, Any]]) -> list[float]:
    """For each chat request the server got: how long before (positive) or after (negative) the commit of the
    caller's utterance nearest it (the streaming STT's commit at `VAD_EARLY_STT_MS`, where the turn is decided) it
    arrived, ms: a request sent ahead (`VAD_PREFETCH_MS`) arrives before it."""
    commits = [at for r in requests if r["path"] == "/v1/realtime" for kind, at in r.get("events", [])
               if kind == "input_audio_buffer.commit"]
    chats = [r["time"] for r in requests if r["path"] == "/v1/chat/completions"]
    return [round((min(commits, key=lambda c: abs(c - t)) - t) * 1000, 1) for t in chats] if commits else []


def stage_medians(turns: list[dict[str, float]]) -> dict[str, Any]:
    """The daemon's stage record of its model turns (the whole run, warm-up included): the median of each stage,
    ms, how many turns, and each turn's model, TTS and first-RTP stages."""
    out: dict[str, Any] = {"turns": len(turns), "each": [
        {k: round(t[k]) for k in ("eou_ms", "kb_ms", "model_ms", "tts_first_chunk_ms", "first_rtp_ms") if k in t}
        for t in turns]}
    for stage in STAGES:
        values = sorted(t[stage] for t in turns if stage in t)
        if values:
            out[stage] = round(values[len(values) // 2], 1)
    return out


def daemon_cpu_now(pid: int) -> tuple[float, float, float, float]:
    """(monotonic time, the daemon's CPU seconds, its event loop's seconds waiting for a CPU, the box's stolen CPU
    seconds) now."""
    return (time.monotonic(), procstat.cpu_seconds(pid), procstat.runqueue_wait_seconds(pid),
            procstat.box_steal_seconds())


def daemon_cpu_share(start: tuple[float, ...], end: tuple[float, ...], cpus: int = 1) -> dict[str, float]:
    """The window's share of wall time the daemon used a CPU (all its threads) and its event loop waited for one,
    and the share of the box's `cpus` the hypervisor stole: a loop that waits for the CPU (other processes on
    its core; `nice` does not reach across sessions when the kernel groups tasks by session, sched_autogroup) or
    runs on a stolen one is late however little it has to do."""
    wall = max(end[0] - start[0], 1e-9)
    return {"busy": round((end[1] - start[1]) / wall, 3), "waiting_for_cpu": round((end[2] - start[2]) / wall, 3),
            "box_steal": round((end[3] - start[3]) / (wall * cpus), 3)}


EARLY_METRICS = ("ai_operator_early_turns_total", "ai_operator_speculative_turns_total",
                 "ai_operator_early_turn_requests_wasted_total", "ai_operator_early_stt_total", "ai_operator_turns_total",
                 "ai_operator_prefetch_requests_total")


async def early_decisions(url: str) -> dict[str, Any]:
    """The daemon's early and speculative decisions over the whole run (warm-up included), from its /metrics,
    with the share of turns whose early decision was withdrawn."""
    import aiohttp
    from prometheus_client.parser import text_string_to_metric_families

    try:
        async with aiohttp.ClientSession() as http, http.get(url) as response:
            page = await response.text()
    except aiohttp.ClientError as exc:
        return {"error": str(exc)}
    out: dict[str, Any] = {}
    for family in text_string_to_metric_families(page):
        for sample in family.samples:
            if sample.name in EARLY_METRICS:
                label = "/".join(sample.labels.values()) if sample.name != "ai_operator_turns_total" else ""
                key = sample.name.removeprefix("ai_operator_").removesuffix("_total")
                out.setdefault(key, {})
                out[key][label or "all"] = out[key].get(label or "all", 0) + int(sample.value)
    turns = sum(out.get("turns", {}).values())
    withdrawn = out.get("early_turns", {}).get("withdrawn", 0) + out.get("speculative_turns", {}).get("withdrawn", 0)
    out["withdrawn_share_of_turns"] = round(withdrawn / turns, 4) if turns else None
    return out


def render(report: dict[str, Any]) -> str:
    rows = [f"{'profile':8} {'N':>4} {'kind':8} {'turns':>5} {'p50 ms':>8} {'p95 ms':>8} {'max ms':>8}  budget"]
    for run in report["runs"]:
        calls = ", ".join(f"{k} {v}" for k, v in sorted(run["figures"]["calls"].items()))
        for kind, b in run["budgets"].items():
            if kind not in run["figures"]["kinds"]:
                rows.append(f"{run['profile']:8} {run['n']:>4} {kind:8} {0:>5}  {la.NOT_MEASURED}: {b.get('reason')}")
        for kind, st in (run.get("stages") or {}).items():
            rows.append(f"{run['profile']:8} {run['n']:>4} stages {kind}: {st}")
        rows.append(f"{run['profile']:8} {run['n']:>4} calls placed in the window: {calls or 'none'}; "
                    f"requests {run['requests_in_window']}; early decisions {run.get('early_decisions')}; "
                    f"daemon CPU share {run.get('daemon_cpu')}; model turn stages (median ms) "
                    f"{run.get('model_turn_stages')}")
        for kind, f in run["figures"]["kinds"].items():
            b = run["budgets"].get(kind)
            verdict = (f"{b['verdict']} (p50 <= {b['p50_limit_ms']:g}, p95 <= {b['p95_limit_ms']:g})" if b
                       else "(report only)")
            if b and b["verdict"] == la.NOT_MEASURED:
                verdict = f"{la.NOT_MEASURED}: {b['reason']}"
            rows.append(f"{run['profile']:8} {run['n']:>4} {kind:8} {f['turns']:>5} {f['p50_ms'] or 0:>8.0f} "
                        f"{f['p95_ms'] or 0:>8.0f} {f['max_ms'] or 0:>8.0f}  {verdict}"
                        + (f" unanswered {f['unanswered']}" if f["unanswered"] else "")
                        + (f" ANSWERED BEFORE THE CALLER FINISHED {f['answered_early']}" if f.get("answered_early")
                           else ""))
    rows.append(f"verdict: {report['verdict']}")
    return "\n".join(rows)


async def run_all(profiles: list[str], sizes: list[int], windows: dict[int, float],
                  extra: dict[str, str] | None = None, scripts: Any = lplan.SCRIPTS, cold: bool = False
                  ) -> dict[str, Any]:
    workdir = Path(tempfile.mkdtemp(prefix="ai-operator-latency-"))
    try:
        print("latency: preparing the knowledge base, the scripts and the callers' audio", flush=True)
        plan = await prepare(workdir, scripts)
        runs = []
        for profile in profiles:
            for n in sizes:
                window = windows.get(n, DEFAULT_WINDOW_S)
                print(f"latency: profile {profile}, N={n}, window {window:g} s", flush=True)
                runs.append(await run_one(profile, n, window, workdir, plan, extra=extra or {}, cold=cold))
    finally:
        shutil.rmtree(workdir, ignore_errors=True)
    return {"runs": runs, "verdict": la.overall(runs)}


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = argparse.ArgumentParser(prog="python -m benchmarks.latency", description=__doc__.splitlines()[0])
    parser.add_argument("--profiles", default="instant,cloud,slow", help="comma-separated latency profiles")
    parser.add_argument("--n", default="1,100", help="comma-separated call counts")
    parser.add_argument("--window", type=float, help="window per run, seconds (default: 180 at N=1, 60 at N=100)")
    parser.add_argument("--quick", action="store_true", help="instant and cloud, N=1, 60 s windows")
    parser.add_argument("--reports", default=str(REPORTS), help="where to write the report")
    parser.add_argument("--label", default="", help="added to the report's file name, e.g. before")
    parser.add_argument("--stt", choices=tuple(STT_MODES), default="batch", help="batch uploads or the stream")
    parser.add_argument("--pauses", action="store_true", help="the pause-in-the-middle callers instead of the "
                        "scripted dialogues (latency_plan.PAUSE_SCRIPTS)")
    parser.add_argument("--cold", action="store_true", help="open the window while the daemon's prewarm still "
                        "runs, at the profile's speed (default: after its first pass)")
    parser.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", help="a daemon setting (repeatable)")
    args = parser.parse_args(argv)
    extra = dict(item.split("=", 1) for item in args.set if "=" in item)
    if len(extra) != len(args.set):
        parser.error(f"--set takes KEY=VALUE, got {[i for i in args.set if '=' not in i]}")
    extra.setdefault("STT_PROVIDER", STT_MODES[args.stt])
    profiles = ["instant", "cloud"] if args.quick else args.profiles.split(",")
    sizes = [1] if args.quick else [int(x) for x in args.n.split(",")]
    window = args.window or (QUICK_WINDOW_S if args.quick else None)
    windows = {n: window for n in sizes} if window else WINDOWS_S
    started = datetime.now(UTC).isoformat(timespec="seconds")
    scripts = lplan.PAUSE_SCRIPTS if args.pauses else lplan.SCRIPTS
    result = asyncio.run(run_all(profiles, sizes, windows, extra, scripts, cold=args.cold))
    report = {"started_at": started, "finished_at": datetime.now(UTC).isoformat(timespec="seconds"),
              "command": " ".join(["python -m benchmarks.latency", *argv]), "git": git_commit(),
              "machine": machine(), "settings": extra, "load_average": [round(x, 2) for x in os.getloadavg()], **result}
    out = Path(args.reports)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"latency-{time.strftime('%Y%m%d-%H%M%S')}{'-' + args.label if args.label else ''}.json"
    path.write_text(json.dumps(report, indent=2, ensure_ascii=False))
    print(render(report))
    print(f"report: {path}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
