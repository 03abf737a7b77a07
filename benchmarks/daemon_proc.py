"""The daemon under benchmark, in its own process so its CPU and memory can be measured alone.

`python -m benchmarks.daemon_proc --env FILE --plan PLAN.json --out FIGURES.json [--cpus 0] [--profile OUT]`
runs the real `Daemon` (ARI URL, database, TTS from the env file: espeak-ng behind the line cache) with one
benchmark double: `ScriptedSTT` recognises which of the plan's caller lines was said. No model. With
`--speech-from-env` (the voice-to-voice benchmark, `latency.py`) there is no double: STT, TTS and the model are
the env file's (the OpenAI adapters against the local server with a latency profile).
Signals: SIGUSR1 starts the measurement window (resets the pacer's send-error statistics, notes the counters);
SIGUSR2 ends it and writes the daemon's own figures for the window to `--out` (pacer, RTP totals, garbage-collection
pauses, turn latencies, the loop steps that held the event loop `SLOW_STEP_MS` or longer, by name: where a
stall came from (each garbage-collection pause, and with AI_OPERATOR_BENCH_STEP_CPU=1 each step, with the loop
thread's CPU time in it: far less is time off the CPU, not work; the pacer's long receive steps split into CPU,
run-queue wait and the rest), the CPU time of the loop's
thread and of the process's other threads, the pacer's skip-aheads with what kept the loop late (`skips`,
`loop_probes.SkipProbe`; rewritten at exit with those after the window), and `turn_ends`: how every utterance
it decided ended, at the policy's early pause or at the full end silence, which the caller-side analysis needs
to judge each turn's latency); SIGTERM stops the daemon.
With `--cpus`, the process is pinned to those CPUs, and with `--db-cpus` the embedded PostgreSQL it starts
is moved to those (by default it shares the daemon's). With `--profile`,
cProfile runs for the window.

Benchmark-only fault injection, to prove the benchmark fails on a daemon that stalls:
`AI_OPERATOR_BENCH_STALL_MS=150 AI_OPERATOR_BENCH_STALL_AT_S=20` blocks the daemon's event loop once for 150 ms,
20 s into the window, at a moment a reply is playing with at least half a second of it left.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import gc
import json
import os
import signal
import time
from pathlib import Path
from typing import Any

from ai_operator.config import load_settings
from ai_operator.daemon.app import Daemon
from ai_operator.daemon.early_turn import EarlyTurn
from ai_operator.daemon.services import DaemonOverrides
from ai_operator.daemon.turn_log import TurnLog
from ai_operator.logs import configure_logging, get_logger
from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.media.timing import ErrorStats
from ai_operator.media.vad import UtteranceEnded
from ai_operator.sim.instant import ScriptedSTT
from ai_operator.storage.embedded import children_of
from ai_operator.turn_driver import Turn
from benchmarks import plan as plans
from benchmarks.loop_probes import ReceiveProbe, SkipProbe
from benchmarks.procstat import thread_cpu_seconds

WINDOW_SAMPLES = 200_000  # send-error samples kept for the window (over an hour of ticks)
TURN_POLL_S = 0.25
STALL_MS_ENV = "AI_OPERATOR_BENCH_STALL_MS"
STALL_AT_ENV = "AI_OPERATOR_BENCH_STALL_AT_S"
STALL_MIN_LEFT_SAMPLES = 4000  # the stall hits a reply with at least this much (0.5 s) left to play
STALL_POLL_S = 0.01
SLOW_STEP_MS = 2.0  # a loop step that held the loop this long is noted (by name) in the figures
STEP_CPU_ENV = "AI_OPERATOR_BENCH_STEP_CPU"  # set: each slow step also says its CPU time (costs ~10 % CPU)
log = get_logger("bench")


def _counters(svc: Any) -> dict[str, int]:
    """The pacer's and the daemon's RTP sockets' running counters (the window's figures are differences of two)."""
    pacer = svc.pacer
    return {"late_ticks": pacer.late_ticks, "skipped_frames": pacer.skipped_frames, "ticks": pacer.ticks,
            "underruns": pacer.underruns, "frames_sent": pacer.frames_sent, **svc.rtp_totals.as_dict()}


class GcPauses:
    """Durations of the garbage collector's passes (a stop-the-world pause of the event loop), and the CPU time
    the thread had in them (a pause much longer than its CPU time is the thread kept off the CPU, not work)."""

    def __init__(self) -> None:
        self.pauses_ms: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self.cpu_ms: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._t = self._cpu = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._t, self._cpu = time.perf_counter(), time.thread_time()
        else:
            self.pauses_ms[info["generation"]].append((time.perf_counter() - self._t) * 1000)
            self.cpu_ms[info["generation"]].append((time.thread_time() - self._cpu) * 1000)

    def reset(self) -> None:
        for v in (*self.pauses_ms.values(), *self.cpu_ms.values()):
            v.clear()

    def summary(self) -> dict[str, dict[str, float]]:
        return {f"gen{g}": {"count": len(v), "max_ms": round(max(v, default=0.0), 2), "total_ms": round(sum(v), 1),
                            "cpu_max_ms": round(max(self.cpu_ms[g], default=0.0), 2),
                            "cpu_total_ms": round(sum(self.cpu_ms[g]), 1)}
                for g, v in self.pauses_ms.items()}


class SlowSteps:
    """Event-loop steps (a callback, or one step of a task) that held the loop longer than `limit_ms`: where the
    loop's stalls come from. Named by the task's coroutine (and the line it next waits at) or the callback."""

    def __init__(self, limit_ms: float = SLOW_STEP_MS) -> None:
        self.limit_s = limit_ms / 1000
        self.steps: dict[str, list[float]] = {}
        self.cpu: dict[str, list[float]] = {}  # the thread's CPU time in each of those steps
        run = asyncio.events.Handle._run
        probe = self

        def timed_run(handle: asyncio.Handle) -> None:
            t = time.perf_counter()
            run(handle)
            took = time.perf_counter() - t
            if took >= probe.limit_s:
                probe.steps.setdefault(_step_name(handle), []).append(took * 1000)

        def timed_run_cpu(handle: asyncio.Handle) -> None:  # two more system calls a step: about 10 % of the CPU
            t, cpu = time.perf_counter(), time.thread_time()
            run(handle)
            took = time.perf_counter() - t
            if took >= probe.limit_s:
                name = _step_name(handle)
                probe.steps.setdefault(name, []).append(took * 1000)
                probe.cpu.setdefault(name, []).append((time.thread_time() - cpu) * 1000)

        cpu = bool(os.environ.get(STEP_CPU_ENV))
        asyncio.events.Handle._run = timed_run_cpu if cpu else timed_run  # type: ignore[method-assign]

    def reset(self) -> None:
        self.steps.clear()
        self.cpu.clear()

    def summary(self, top: int = 12) -> list[dict[str, Any]]:
        rows = sorted(self.steps.items(), key=lambda kv: -sum(kv[1]))[:top]
        return [{"step": name, "count": len(v), "max_ms": round(max(v), 2), "total_ms": round(sum(v), 1),
                 **({"cpu_max_ms": round(max(self.cpu[name]), 2), "cpu_total_ms": round(sum(self.cpu[name]), 1)}
                    if name in self.cpu else {})}
                for name, v in rows]


class TurnEnds:
    """How each utterance the daemon decided ended, per call: (speech end in monotonic ns, "early" when the policy
    ended it at the short pause, `daemon/early_turn.py`, else "full"). Noted where the call hands it to the policy."""

    def __init__(self) -> None:
        self.ends: dict[str, list[tuple[int, str]]] = {}
        heard = EarlyTurn.heard
        probe = self

        async def noted(early: EarlyTurn, ended: UtteranceEnded, text: str, **options: Any) -> list[Turn]:
            # `_forced`: ended at the pause, not decided yet; a speculative one waits for the full silence all the same
            kind = "early" if ended is early._forced and not early._speculative else "full"
            probe.ends.setdefault(early.call.call_id, []).append((round(ended.speech_ended_at * 1e9), kind))
            return await heard(early, ended, text, **options)

        EarlyTurn.heard = noted  # type: ignore[method-assign]


class ModelTurnStages:
    """The stage record (`daemon/turn_log.py` timings, ms) of every model turn the daemon wrote, in order: where a
    model turn's time went (end-of-turn wait, STT, policy, KB, model first text, TTS first chunk, first RTP)."""

    def __init__(self) -> None:
        self.turns: list[dict[str, float]] = []
        write = TurnLog._write
        probe = self

        async def noted(log: TurnLog, record: Any) -> None:
            if "model_total_ms" in record.timings and "first_rtp_ms" in record.timings:
                probe.turns.append(dict(record.timings))
            await write(log, record)

        TurnLog._write = noted  # type: ignore[method-assign]


def _step_name(handle: asyncio.Handle) -> str:
    callback = getattr(handle, "_callback", None)
    task = getattr(callback, "__self__", None)
    if isinstance(task, asyncio.Task):
        coro: Any = task.get_coro()
        frame = getattr(coro, "cr_frame", None)
        where = f" @{frame.f_code.co_name}:{frame.f_lineno}" if frame is not None else ""
        return f"task {getattr(coro, '__qualname__', repr(coro))}{where}"
    return f"callback {getattr(callback, '__qualname__', repr(callback))}"


class Figures:
    """The daemon's own figures for the window: pacer, RTP totals, GC pauses and every call's turn latencies."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.turn_lists: dict[str, list[float]] = {}
        self.turn_base: dict[str, int] = {}
        self.base: dict[str, Any] = {}
        self.window_started: float | None = None
        self.peak_calls = 0
        self.stalled: dict[str, float] | None = None
        self.gc = GcPauses()
        self.slow = SlowSteps()
        self.ends = TurnEnds()
        self.model_turns = ModelTurnStages()
        self.gc_waited_base = 0
        self.threads_base: dict[int, float] = {}
        self.receive: ReceiveProbe | None = None
        self.skips: SkipProbe | None = None

    def poll_calls(self) -> None:
        """Keep a reference to each live call's latency list (it outlives the call)."""
        manager = self.daemon.manager
        if manager is None:
            return
        self.peak_calls = max(self.peak_calls, len(manager.calls))
        for call_id, call in list(manager.calls.items()):
            self.turn_lists.setdefault(call_id, call.turn_log.bridge)

    def _gc_waited(self) -> int:
        collector = getattr(self.daemon, "collector", None)
        return 0 if collector is None else collector.passes_waited

    def _threads_cpu(self) -> dict[str, float]:
        """CPU seconds in the window of the event loop's thread and of every other thread (which compete with
        it for the interpreter's lock), and how many threads ran."""
        now, pid = thread_cpu_seconds(os.getpid()), os.getpid()
        used = {tid: cpu - self.threads_base.get(tid, 0.0) for tid, cpu in now.items()}
        return {"loop": round(used.get(pid, 0.0), 2), "others": round(sum(v for t, v in used.items() if t != pid), 2),
                "threads": float(len(now))}

    def start_window(self) -> None:
        svc = self.daemon.svc
        if svc is None:
            return
        pacer = svc.pacer
        pacer.send_error_ms = ErrorStats(WINDOW_SAMPLES)
        pacer.tick_end_error_ms = ErrorStats(WINDOW_SAMPLES)
        self.poll_calls()
        self.turn_base = {cid: len(lst) for cid, lst in self.turn_lists.items()}
        self.base = _counters(svc)
        self.gc.reset()
        pacer.overruns.clear()
        self.gc_waited_base = self._gc_waited()
        self.threads_base = thread_cpu_seconds(os.getpid())
        self.receive = self.receive or ReceiveProbe(pacer)
        self.receive.rows.clear()
        self.skips = self.skips or SkipProbe(pacer)
        self.skips.rows.clear()
        self.slow.reset()
        self.peak_calls = 0
        self.window_started = time.monotonic()

    def collect(self) -> dict[str, Any]:
        self.poll_calls()
        svc = self.daemon.svc
        out: dict[str, Any] = {"window_s": None if self.window_started is None else time.monotonic() - self.window_started,
                               "peak_calls": self.peak_calls, "stall": self.stalled}
        if svc is None:
            return out
        pacer = svc.pacer
        out["counters"] = {k: v - self.base.get(k, 0) for k, v in _counters(svc).items()}
        out["send_error_tick_start_ms"] = pacer.send_error_ms.summary()
        out["send_error_last_frame_ms"] = pacer.tick_end_error_ms.summary()
        out["gc"] = self.gc.summary()
        out["gc_waited_ticks"] = self._gc_waited() - self.gc_waited_base  # ticks a due pass waited for room
        out["overruns"] = [{k: round(v * 1000.0, 2) for k, v in vars(o).items()} for o in pacer.overruns
                           if self.window_started is not None]  # the last steps over 20 ms (ms)
        out["slow_steps"] = self.slow.summary()
        out["threads_cpu_s"] = self._threads_cpu()
        out["long_receives"] = self.receive.summary() if self.receive is not None else None
        out["skips"] = list(self.skips.rows) if self.skips is not None else []  # the pacer's skip-aheads (stalls.py)
        out["ports"] = {"size": svc.ports.size, "in_use": svc.ports.in_use}
        bridge: list[float] = []
        for cid, lst in self.turn_lists.items():
            bridge.extend(lst[self.turn_base.get(cid, 0):])
        out["bridge_ms"] = bridge
        out["turn_ends"] = self.ends.ends
        out["model_turn_stages"] = self.model_turns.turns
        return out

    def add_late_skips(self, out: Path) -> None:
        """At exit: the skips since the window's figures were written join them (the replies judged run on past
        the window's end, and a loss there is matched to its skip too)."""
        if self.skips is not None and out.exists():
            written = json.loads(out.read_text())
            out.write_text(json.dumps({**written, "skips": list(self.skips.rows)}))


def _reply_playing(daemon: Daemon) -> bool:
    """Some call is playing a reply with at least STALL_MIN_LEFT_SAMPLES still to go."""
    manager = daemon.manager
    for call in list(manager.calls.values()) if manager else ():
        stream = call.media.stream
        if stream is not None and stream.speaking and stream.frames_left * FRAME_SAMPLES >= STALL_MIN_LEFT_SAMPLES:
            return True
    return False


async def stall_once(daemon: Daemon, figures: Figures, ms: float, after_s: float) -> None:
    """The fault injection of the module docstring: block the loop once, mid-reply."""
    await asyncio.sleep(after_s)
    while not _reply_playing(daemon):
        await asyncio.sleep(STALL_POLL_S)
    at = time.monotonic()
    time.sleep(ms / 1000)  # deliberately blocking: this is the fault
    if figures.skips is not None:  # the skip it causes is the daemon's whatever the host stole meanwhile
        figures.skips.injected.append((at, time.monotonic()))
    figures.stalled = {"ms": ms, "at_s": round(at - (figures.window_started or at), 3)}
    log.warning("bench_stall_injected", ms=ms)


async def move_database(daemon: Daemon, cpus: set[int]) -> None:
    """Once the daemon is ready, its embedded PostgreSQL (the postmaster and every process it has started; the
    backends it forks later inherit the postmaster's CPUs) runs on `cpus`, off the daemon's own CPU."""
    await daemon.ready.wait()
    server = daemon.db.server if daemon.db is not None else None
    postmaster = server.postmaster_pid() if server is not None else None
    if postmaster is None:
        return
    for pid in [postmaster, *children_of(postmaster)]:
        with contextlib.suppress(ProcessLookupError):
            os.sched_setaffinity(pid, cpus)
    log.info("bench_database_moved", cpus=sorted(cpus), postmaster=postmaster)


async def prewarm_replies(daemon: Daemon, plan: plans.Plan, route_name: str) -> None:
    """Every reply of the plan into the TTS cache's memory (the files are on disk already), before any call."""
    from policies import load_policy

    await daemon.ready.wait()
    route = daemon.settings.route(route_name)
    assert daemon.svc is not None and route is not None
    tts = daemon.svc.tts_for(route)
    segments = load_policy(route.policy).voice_segments
    lines = [seg for v in plan.variants for text, lang in zip(v.replies, v.languages, strict=True)
             for seg in segments(text, lang)]
    made = await tts.prewarm(lines)
    log.info("bench_replies_prewarmed", lines=len(lines), synthesised=made)


async def main_async(args: argparse.Namespace) -> int:
    settings = load_settings(args.env)
    configure_logging(settings.ops.log_level, "json", background=True)  # as `ai-operator run` does
    plan = plans.load(Path(args.plan))
    overrides = DaemonOverrides() if args.speech_from_env else DaemonOverrides(stt=ScriptedSTT(plan.received_audio()))
    daemon = Daemon(settings, env_path=None, overrides=overrides)
    figures = Figures(daemon)
    profiler = cProfile.Profile() if args.profile else None
    loop = asyncio.get_running_loop()
    stall_ms = float(os.environ.get(STALL_MS_ENV) or 0)
    tasks: set[asyncio.Task[None]] = set()

    def on_usr1() -> None:
        figures.start_window()
        if stall_ms > 0:
            task = loop.create_task(stall_once(daemon, figures, stall_ms, float(os.environ.get(STALL_AT_ENV) or 0)))
            tasks.add(task)
        if profiler is not None:
            profiler.enable()

    def on_usr2() -> None:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        Path(args.out).write_text(json.dumps(figures.collect()))

    loop.add_signal_handler(signal.SIGUSR1, on_usr1)
    loop.add_signal_handler(signal.SIGUSR2, on_usr2)
    loop.add_signal_handler(signal.SIGTERM, daemon.request_stop)

    async def poller() -> None:
        while True:
            await asyncio.sleep(TURN_POLL_S)
            figures.poll_calls()

    tasks.add(loop.create_task(poller()))
    if args.db_cpus:
        tasks.add(loop.create_task(move_database(daemon, {int(c) for c in args.db_cpus.split(",")})))
    tasks.add(loop.create_task(prewarm_replies(daemon, plan, args.route)))
    try:
        return await daemon.serve()
    finally:
        for task in tasks:
            task.cancel()
        figures.add_late_skips(Path(args.out))


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--plan", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--route", default="test", help="the route the plan's calls take")
    parser.add_argument("--cpus", default="", help="comma-separated CPUs to pin this process to")
    parser.add_argument("--db-cpus", default="", help="comma-separated CPUs to move the embedded PostgreSQL to")
    parser.add_argument("--profile", default=None)
    parser.add_argument("--speech-from-env", action="store_true", help="no ScriptedSTT: the env file's speech")
    args = parser.parse_args()
    if args.cpus:
        os.sched_setaffinity(0, {int(c) for c in args.cpus.split(",")})
    return asyncio.run(main_async(args))


if __name__ == "__main__":
    raise SystemExit(main())
