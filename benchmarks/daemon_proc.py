"""The daemon under benchmark, in its own process so its CPU and memory can be measured alone.

`python -m benchmarks.daemon_proc --env FILE --out FIGURES.json [--say TEXT] [--tts-seconds S] [--profile OUT]`
runs the real `Daemon` (ARI URL and credentials from the env file) with instant adapters: `InstantSTT` hears
`--say` for every utterance, `InstantTTS` speaks a tone of `--tts-seconds` per line, and no model. Signals:
SIGUSR1 starts the measurement window (resets the pacer's send-error statistics and notes the counters);
SIGTERM writes the daemon's own figures for the window to `--out` and stops the daemon. With `--profile`,
cProfile runs for the window and its statistics are written next to the figures.
"""

from __future__ import annotations

import argparse
import asyncio
import cProfile
import gc
import json
import signal
import time
from pathlib import Path
from typing import Any

from ai_operator.config import load_settings
from ai_operator.daemon.app import Daemon
from ai_operator.logs import configure_logging
from ai_operator.media.timing import ErrorStats
from ai_operator.media.transport import TOTALS
from ai_operator.sim.instant import InstantSTT, InstantTTS

DEFAULT_SAY = "Алло"
DEFAULT_TTS_SECONDS = 0.8
WINDOW_SAMPLES = 200_000  # send-error samples kept for the window (over an hour of ticks)
TURN_POLL_S = 0.25


def _counters(pacer: Any) -> dict[str, int]:
    """The pacer's and the RTP sockets' running counters (the window's figures are differences of two)."""
    return {"late_ticks": pacer.late_ticks, "skipped_frames": pacer.skipped_frames, "ticks": pacer.ticks,
            "underruns": pacer.underruns, "frames_sent": pacer.frames_sent, **TOTALS.as_dict()}


class GcPauses:
    """Durations of the garbage collector's passes (a stop-the-world pause of the event loop)."""

    def __init__(self) -> None:
        self.pauses_ms: dict[int, list[float]] = {0: [], 1: [], 2: []}
        self._t = 0.0
        gc.callbacks.append(self._on_gc)

    def _on_gc(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._t = time.perf_counter()
        else:
            self.pauses_ms[info["generation"]].append((time.perf_counter() - self._t) * 1000)

    def reset(self) -> None:
        for v in self.pauses_ms.values():
            v.clear()

    def summary(self) -> dict[str, dict[str, float]]:
        return {f"gen{g}": {"count": len(v), "max_ms": round(max(v, default=0.0), 2), "total_ms": round(sum(v), 1)}
                for g, v in self.pauses_ms.items()}


class Figures:
    """Collects the daemon's internal figures: pacer, RTP totals, ports and every call's turn latencies."""

    def __init__(self, daemon: Daemon) -> None:
        self.daemon = daemon
        self.turn_lists: dict[str, tuple[list[float], list[float]]] = {}
        self.turn_base: dict[str, int] = {}
        self.base: dict[str, Any] = {}
        self.window_started: float | None = None
        self.peak_calls = 0
        self.gc = GcPauses()

    def poll_calls(self) -> None:
        """Keep a reference to each live call's latency lists (they outlive the call)."""
        manager = self.daemon.manager
        if manager is None:
            return
        self.peak_calls = max(self.peak_calls, len(manager.calls))
        for call_id, call in list(manager.calls.items()):
            if call_id not in self.turn_lists:  # a call first seen in the window counts from its first turn
                self.turn_lists[call_id] = (call.turns.bridge, call.turns.first_rtp)

    def start_window(self) -> None:
        svc = self.daemon.svc
        if svc is None:
            return
        pacer = svc.pacer
        pacer.send_error_ms = ErrorStats(WINDOW_SAMPLES)
        pacer.tick_end_error_ms = ErrorStats(WINDOW_SAMPLES)
        self.poll_calls()
        self.turn_base = {cid: len(lists[0]) for cid, lists in self.turn_lists.items()}
        self.base = _counters(pacer)
        self.gc.reset()
        self.window_started = time.monotonic()

    def collect(self) -> dict[str, Any]:
        self.poll_calls()
        svc = self.daemon.svc
        out: dict[str, Any] = {"window_s": None if self.window_started is None else time.monotonic() - self.window_started,
                               "peak_calls": self.peak_calls}
        if svc is None:
            return out
        pacer = svc.pacer
        out["counters"] = {k: v - self.base.get(k, 0) for k, v in _counters(pacer).items()}
        out["send_error_tick_start_ms"] = pacer.send_error_ms.summary()
        out["send_error_last_frame_ms"] = pacer.tick_end_error_ms.summary()
        out["gc"] = self.gc.summary()
        out["ports"] = {"size": svc.ports.size, "in_use": svc.ports.in_use}
        bridge: list[float] = []
        first_rtp: list[float] = []
        for cid, (b, f) in self.turn_lists.items():
            start = self.turn_base.get(cid, 0)
            bridge.extend(b[start:])
            first_rtp.extend(f[start:])
        out["turns"] = {"bridge_ms": bridge, "first_rtp_ms": first_rtp}
        return out


async def main_async(args: argparse.Namespace) -> int:
    settings = load_settings(args.env)
    configure_logging(settings.ops.log_level, "json")
    say = args.say
    daemon = Daemon(settings, env_path=None, overrides={
        "stt": InstantSTT(lambda _pcm: say), "tts": InstantTTS(fixed_s=args.tts_seconds)})
    figures = Figures(daemon)
    profiler = cProfile.Profile() if args.profile else None
    loop = asyncio.get_running_loop()

    def on_usr1() -> None:
        figures.start_window()
        if profiler is not None:
            profiler.enable()

    def on_term() -> None:
        if profiler is not None:
            profiler.disable()
            profiler.dump_stats(args.profile)
        Path(args.out).write_text(json.dumps(figures.collect()))
        daemon.request_stop()

    loop.add_signal_handler(signal.SIGUSR1, on_usr1)
    loop.add_signal_handler(signal.SIGTERM, on_term)

    async def poller() -> None:
        while True:
            await asyncio.sleep(TURN_POLL_S)
            figures.poll_calls()

    task = asyncio.create_task(poller())
    try:
        return await daemon.serve()
    finally:
        task.cancel()


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--env", required=True)
    parser.add_argument("--out", required=True)
    parser.add_argument("--say", default=DEFAULT_SAY)
    parser.add_argument("--tts-seconds", type=float, default=DEFAULT_TTS_SECONDS)
    parser.add_argument("--profile", default=None)
    return asyncio.run(main_async(parser.parse_args()))


if __name__ == "__main__":
    raise SystemExit(main())
