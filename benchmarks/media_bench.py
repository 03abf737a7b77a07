"""Media path at scale: N simultaneous calls through the real daemon (its own process, `daemon_proc`) and the
simulated PBX (this process) over loopback, callers speaking 2 s in every 5 s, instant STT/TTS, no model.

`run_media(n, duration_s, workdir) -> dict`: daemon CPU seconds per call-minute and cores used, RSS per call,
frames lost/late at the caller side, the daemon's send-time error, bridge-added turn latency (caller side and
the daemon's own `bridge_ms`), and this process's CPU (to show whether the PBX double was the bottleneck).
"""

from __future__ import annotations

import asyncio
import json
import os
import random
import secrets
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.callers import (
    PERIOD_S,
    arrivals_of,
    caller,
    percentile,
    stream_quality,
    turn_latencies,
)
from benchmarks.procstat import cpu_seconds, rss_mb

REPO = Path(__file__).resolve().parent.parent
ENV_EXAMPLE = REPO / "etc" / "ai-operator.env.example"
END_SILENCE_MS = 600
GREETING_WAIT_S = 2.5  # the greeting (two instant-TTS lines) is over before the caller first speaks
RTP_PORT_MIN = 31000
DAEMON_START_TIMEOUT_S = 90.0
DAEMON_STOP_TIMEOUT_S = 60.0
SETTLE_S = 1.0
PLACE_BATCH = 25
PLACE_PAUSE_S = 0.05


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


def _round(v: float | None, nd: int = 2) -> float | None:
    return None if v is None else round(v, nd)


class DaemonProcess:
    """`benchmarks.daemon_proc` as a child process."""

    def __init__(self, env: Path, out: Path, log: Path, profile: Path | None = None) -> None:
        cmd = [sys.executable, "-m", "benchmarks.daemon_proc", "--env", str(env), "--out", str(out)]
        if profile is not None:
            cmd += ["--profile", str(profile)]
        self.out = out
        self._log = log.open("wb")
        self.proc = subprocess.Popen(cmd, cwd=REPO, stdout=self._log, stderr=subprocess.STDOUT)

    @property
    def pid(self) -> int:
        return self.proc.pid

    def signal(self, sig: int) -> None:
        self.proc.send_signal(sig)

    async def stop(self) -> dict[str, Any]:
        """SIGTERM; the daemon writes its figures and exits."""
        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
        deadline = time.monotonic() + DAEMON_STOP_TIMEOUT_S
        while self.proc.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._log.close()
        return json.loads(self.out.read_text()) if self.out.exists() else {}


async def _wait_subscribed(pbx: Any, daemon: DaemonProcess, app: str) -> None:
    deadline = time.monotonic() + DAEMON_START_TIMEOUT_S
    while app not in pbx.apps:
        if daemon.proc.poll() is not None:
            raise RuntimeError(f"daemon exited with {daemon.proc.returncode} before connecting (see its log)")
        if time.monotonic() > deadline:
            raise TimeoutError("daemon did not connect to the simulated PBX in time")
        await asyncio.sleep(0.1)


async def run_media(n: int, duration_s: float, workdir: Path, clip: np.ndarray, *, profile: Path | None = None,
                    seed: int = 8) -> dict[str, Any]:
    """One run with `n` calls and a measurement window of `duration_s` seconds."""
    from ai_operator.sim.pbx import SimulatedPbx

    rng = random.Random(seed)
    password = secrets.token_hex(8)
    pbx = SimulatedPbx(user="ai-operator", password=password)
    url = await pbx.start()
    run_dir = workdir / f"n{n}"
    run_dir.mkdir(parents=True, exist_ok=True)
    env = run_dir / "daemon.env"
    write_env(env, {
        "ARI_URL": url, "ARI_USER": "ai-operator", "ARI_PASSWORD": password, "STATE_DIR": workdir / "state",
        "METRICS_PORT": 0, "MAX_CALLS": max(2 * n, 10), "RTP_PORT_MIN": RTP_PORT_MIN,
        "RTP_PORT_MAX": RTP_PORT_MIN + max(4 * n, 100), "VAD_END_SILENCE_MS": END_SILENCE_MS,
        "IDLE_TIMEOUT_S": 60, "DRAIN_TIMEOUT_S": 2, "LOG_FORMAT": "json", "LLM_PROVIDER": "none",
        "STT_PROVIDER": "none", "TTS_PROVIDER": "espeak", "ROUTE_FREIGHT_LOAD": REPO / "etc" / "loads" / "sample.json",
    })
    daemon = DaemonProcess(env, run_dir / "daemon-figures.json", run_dir / "daemon.log", profile)
    sims: list[Any] = []
    tasks: list[asyncio.Task[None]] = []
    ends: list[list[float]] = []
    try:
        await _wait_subscribed(pbx, daemon, "ai-operator")
        await asyncio.sleep(SETTLE_S)
        rss_idle = rss_mb(daemon.pid)
        t_place = time.monotonic()
        for i in range(n):
            sims.append(await pbx.place_call("test"))
            if (i + 1) % PLACE_BATCH == 0:
                await asyncio.sleep(PLACE_PAUSE_S)
        await asyncio.gather(*(s.wait_media(timeout=30 + n * 0.1) for s in sims))
        setup_s = time.monotonic() - t_place
        ready = time.monotonic()
        first = ready + GREETING_WAIT_S
        t0 = first + PERIOD_S  # every caller is cycling by now
        t1 = t0 + duration_s
        for sim in sims:
            ends.append([])
            tasks.append(asyncio.create_task(caller(sim, clip, first + rng.uniform(0, PERIOD_S), t1 + PERIOD_S, ends[-1])))
        await asyncio.sleep(max(0.0, t0 - time.monotonic()))
        daemon.signal(signal.SIGUSR1)
        cpu0, own0, t0 = cpu_seconds(daemon.pid), cpu_seconds(os.getpid()), time.monotonic()
        await asyncio.sleep(max(0.0, t1 - time.monotonic()))
        cpu1, own1, t1 = cpu_seconds(daemon.pid), cpu_seconds(os.getpid()), time.monotonic()
        rss = rss_mb(daemon.pid)
        ended_early = sum(1 for s in sims if s.ended)
        figures = await daemon.stop()
    finally:
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)
        if daemon.proc.poll() is None:
            await daemon.stop()
        await pbx.stop()
    window = t1 - t0
    lost = late = frames = 0
    latencies: list[float] = []
    for sim, sim_ends in zip(sims, ends, strict=True):
        arr = arrivals_of(sim.received)
        q = stream_quality(arr, t0, t1)
        frames, lost, late = frames + q["frames"], lost + q["lost"], late + q["late"]
        latencies += turn_latencies([e for e in sim_ends if t0 <= e < t1 - PERIOD_S / 2], arr, END_SILENCE_MS)
    cpu = cpu1 - cpu0
    send = figures.get("send_error_last_frame_ms") or figures.get("send_error_tick_start_ms") or {}
    own_bridge = figures.get("turns", {}).get("bridge_ms", [])
    counters = figures.get("counters", {})
    return {
        "calls": n, "window_s": round(window, 2), "setup_s": round(setup_s, 2), "calls_ended_early": ended_early,
        "daemon_cpu_s": round(cpu, 2), "daemon_cores": round(cpu / window, 3),
        "cpu_s_per_call_minute": round(cpu / (n * window / 60), 4),
        "rss_mb": round(rss, 1), "rss_idle_mb": round(rss_idle, 1), "rss_mb_per_call": round((rss - rss_idle) / n, 3),
        "frames_received": frames, "frames_lost": lost, "frames_late": late,
        "send_error_p50_ms": _round(send.get("p50_ms")), "send_error_p99_ms": _round(send.get("p99_ms")),
        "send_error_max_ms": _round(send.get("max_ms")),
        "send_error_tick_start": {k: _round(v) for k, v in (figures.get("send_error_tick_start_ms") or {}).items()},
        "late_ticks": counters.get("late_ticks"), "skipped_frames": counters.get("skipped_frames"),
        "underruns": counters.get("underruns"), "rtp_received": counters.get("received"), "rtp_sent": counters.get("sent"),
        "rtp_dropped": sum(counters.get(k, 0) for k in ("dropped_foreign", "dropped_malformed", "dropped_wrong_pt", "dropped_wrong_size")),
        "ports": figures.get("ports"),
        "turns_measured": len(latencies),
        "turn_bridge_p50_ms": _round(percentile(latencies, 50)), "turn_bridge_p95_ms": _round(percentile(latencies, 95)),
        "daemon_bridge_ms_turns": len(own_bridge),
        "daemon_bridge_p50_ms": _round(percentile(own_bridge, 50)), "daemon_bridge_p95_ms": _round(percentile(own_bridge, 95)),
        "sim_process_cores": round((own1 - own0) / window, 3),
    }
