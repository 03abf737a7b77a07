"""The media benchmark's callers, in their own process: the simulated PBX (ARI + RTP) and N caller slots.

`python -m benchmarks.caller_proc --spec SPEC.json` (written by `media_bench`). Each slot places a call, hears
the greeting, says its dialogue's lines one at a time (each after the reply to the previous one has arrived in
full, plus a short thinking pause) and, after the goodbye, waits for the bot to hang up; then it places the next
call. Slots start staggered over one average call, so calls end and new ones arrive at a steady rate. From the
window's end on, nobody starts a new line or call: replies in progress are heard out, then everyone hangs up.
With several daemons (the spec's `apps` and `metrics_urls`, `multi_daemon`), calls go to the apps round-robin
and each falls over to the next app when one sends it back, as the dialplan split of README "Scaling out" does;
the RTP counters are summed over the daemons.

Meanwhile: the kernel-timestamped capture of every call (`bench_peer`), the daemon's `/metrics` RTP counters
every `scrape_s`, and (realtime, monotonic) clock readings. Progress goes to stdout as JSON lines
(`ari`, `window`, `done`); the capture is written to the spec's `out` directory (`capture.py`'s format).
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import os
import random
import re
import sys
import time
import traceback
from pathlib import Path
from typing import Any

import numpy as np

from ai_operator.media.codecs import get_codec
from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.sim.pbx import SimCall, SimulatedPbx
from benchmarks import capture as cap
from benchmarks import plan as plans
from benchmarks.bench_peer import CountingPacer, RecordingPeer, SendTally

S = 1_000_000_000
SUBSCRIBE_TIMEOUT_S = 120.0
MEDIA_TIMEOUT_S = 10.0
FIRST_FRAME_WAIT_S = 10.0  # no reply at all for this long: the caller gives up on the call
QUIET_S = 1.0  # a reply that stops this long short of its length is over (what is missing is counted)
HANGUP_WAIT_S = 10.0
CLOCK_EVERY_S = 1.0
SETTLED_S = 2.0  # the daemon says it takes calls for this long before the first call is placed
SETTLE_TIMEOUT_S = 60.0
PREWARM_TIMEOUT_S = 900.0  # with the spec's `prewarmed`: the daemon's first prewarm pass is waited for this long
RTP_IN = re.compile(r'^ai_operator_rtp_packets_total\{direction="in"\}\s+(\S+)', re.M)
RTP_DROPPED = re.compile(r"^ai_operator_rtp_dropped_packets_total\{[^}]*\}\s+(\S+)", re.M)


def emit(event: str, **fields: Any) -> None:
    print(json.dumps({"event": event, **fields}), flush=True)


def packets_read(text: str) -> int:
    """The daemon's RTP packets read (kept or dropped) from a /metrics page."""
    found = RTP_IN.search(text)
    if found is None:
        raise ValueError("/metrics has no ai_operator_rtp_packets_total{direction=\"in\"}")
    return int(float(found.group(1))) + sum(int(float(v)) for v in RTP_DROPPED.findall(text))


class Callers:
    def __init__(self, spec: dict[str, Any], plan: plans.Plan) -> None:
        self.spec = spec
        self.plan = plan
        codec = get_codec(plan.codec)
        self.payloads = {text: [codec.encode(pcm[i : i + FRAME_SAMPLES]) for i in range(0, len(pcm), FRAME_SAMPLES)]
                         for text, pcm in plan.caller_audio.items()}
        self.rng = random.Random(spec["seed"])
        self.pbx = SimulatedPbx(user=spec["ari_user"], password=spec["ari_password"])
        self.pbx.peer_factory = RecordingPeer
        self.pacer = CountingPacer()
        self.pbx.pacer = self.pacer
        self.logs: list[tuple[cap.CallLog, RecordingPeer | None]] = []
        self.clock: list[tuple[int, int]] = []
        self.scrapes: list[tuple[int, int, int]] = []
        self.scrape_failures = 0
        self.t0 = self.t1 = 0
        self.settle_s = 0.0
        self.prewarm_done: bool | None = None  # with `prewarmed`: the daemon's first prewarm pass was over in time
        self._count = 0
        self.apps: list[str] = spec.get("apps") or [spec["app"]]
        self.metrics_urls: list[str] = spec.get("metrics_urls") or [spec["metrics_url"]]

    # -- one call ----------------------------------------------------------------------------------
    async def _reply(self, peer: RecordingPeer, start: int, frames: int, ref_ns: int) -> str:
        """Until `frames` packets beyond `start` have arrived: 'complete', 'short' (it stopped early), 'none'
        (nothing came), or 'cut' (the window is over and this reply, begun before it, is not judged)."""
        target = start + frames
        deadline = time.monotonic() + FIRST_FRAME_WAIT_S
        while True:
            seen = peer.received
            try:
                await asyncio.wait_for(peer.until_received(target), QUIET_S)
                return "complete"
            except TimeoutError:
                if time.monotonic_ns() >= self.t1 and ref_ns < self.t0:
                    return "cut"
                if peer.received > seen:
                    continue
                if seen > start:
                    return "short"
                if time.monotonic() >= deadline:
                    return "none"

    async def _media(self, sim: SimCall) -> bool:
        media = asyncio.ensure_future(sim.wait_media(MEDIA_TIMEOUT_S))
        ended = asyncio.ensure_future(sim.wait_hangup(MEDIA_TIMEOUT_S))
        await asyncio.wait({media, ended}, return_when=asyncio.FIRST_COMPLETED)
        for task in (media, ended):
            task.cancel()
            if task.done() and not task.cancelled():
                task.exception()  # retrieved: a timeout here is an answer, not an error
        return media.done() and not media.cancelled() and media.exception() is None

    async def call(self, variant_index: int) -> cap.CallLog:
        """One call from placing it to its end; never raises (a failure is the call's outcome)."""
        variant = self.plan.variants[variant_index]
        index = self._count
        self._count += 1
        placed = time.monotonic_ns()
        first = index % len(self.apps)  # round-robin, then the dialplan split's fall-over
        apps = self.apps[first:] + self.apps[:first]
        route = (self.spec.get("routes") or {}).get(str(variant_index), self.spec["route"])  # per dialogue
        sim = await self.pbx.place_call(route, app=apps[0], then=tuple(apps[1:]),
                                        caller_number=f"+7701{index:07d}")
        log = cap.CallLog(index=index, variant=variant_index, channel_id=sim.channel_id, placed_ns=placed)
        self.logs.append((log, None))
        slot = len(self.logs) - 1
        try:
            if not await self._media(sim) or (peer := self.pbx.peer_for(sim)) is None:
                log.outcome = "refused" if sim.state == "dialplan" else "no_media"
                return log
            self.logs[slot] = (log, peer)  # type: ignore[assignment]
            log.outcome = await self._converse(sim, peer, variant, log)  # type: ignore[arg-type]
        except Exception as exc:  # a broken call must not stop the slot, nor the run
            log.outcome = "error"
            print(f"call {sim.channel_id}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        finally:
            if not sim.ended:
                await sim.hangup()
            log.ended_ns = time.monotonic_ns()
        return log

    async def _converse(self, sim: SimCall, peer: RecordingPeer, variant: plans.Variant, log: cap.CallLog) -> str:
        """The dialogue: each reply heard out, then the next line. Returns the call's outcome."""
        start, ref = 0, log.placed_ns
        for j, line in enumerate(variant.lines):
            if await self._reply(peer, start, variant.frames[j], ref) == "none":
                return "abandoned"
            if time.monotonic_ns() >= self.t1 or sim.ended:
                return "answered"
            await asyncio.sleep(self.rng.uniform(*self.spec["think_s"]))
            said = peer.speak(self.payloads[line])
            ended = asyncio.ensure_future(sim.wait_hangup(HANGUP_WAIT_S * 100))
            await asyncio.wait({said, ended}, return_when=asyncio.FIRST_COMPLETED)
            ended.cancel()
            if not said.done():  # the call ended while the caller was speaking
                return "answered"
            log.lines.append(said.result())
            start, ref = peer.received, log.lines[-1][1]
        await self._reply(peer, start, variant.frames[-1], ref)
        try:
            await sim.wait_hangup(HANGUP_WAIT_S)
        except TimeoutError:
            return "abandoned"
        return "answered"

    async def slot(self, i: int, begin: int, stagger_ns: int) -> None:
        """One caller after another. A call that failed early (refused, no media, given up) is followed by the
        next one no sooner than an average call after it began: the offered load stays N calls per average call,
        and a struggling daemon is not stormed with redials (a call it refuses goes elsewhere in real life)."""
        await asyncio.sleep(max(0.0, (begin + i * stagger_ns - time.monotonic_ns()) / S))
        k = 0
        while time.monotonic_ns() < self.t1:
            placed = time.monotonic_ns()
            log = await self.call((i + k) % len(self.plan.variants))
            k += 1
            gap = self.rng.uniform(*self.spec["gap_s"])
            not_before = placed + int(self.spec["call_s"] * S) if log.outcome != "answered" else 0
            await asyncio.sleep(max(gap, (not_before - time.monotonic_ns()) / S))

    # -- instruments -------------------------------------------------------------------------------
    async def clock_readings(self) -> None:
        while True:
            m1 = time.monotonic_ns()
            r = time.time_ns()
            m2 = time.monotonic_ns()
            self.clock.append((r, (m1 + m2) // 2))
            await asyncio.sleep(CLOCK_EVERY_S)

    async def scraper(self) -> None:
        import aiohttp

        every = self.spec["scrape_s"]
        async with aiohttp.ClientSession() as session:
            await asyncio.sleep(max(0.0, (self.t0 - time.monotonic_ns()) / S))
            while time.monotonic_ns() <= self.t1 + every * S:
                req = time.monotonic_ns()
                try:
                    read = 0
                    for url in self.metrics_urls:
                        async with session.get(url) as resp:
                            read += packets_read(await resp.text())
                    self.scrapes.append((req, time.monotonic_ns(), read))
                except (aiohttp.ClientError, ValueError, TimeoutError):
                    self.scrape_failures += 1
                await asyncio.sleep(max(0.0, (req + every * S - time.monotonic_ns()) / S))

    async def daemon_settled(self) -> None:
        """Until the daemon's /healthz has said it takes calls (not overloaded) for SETTLED_S: its start-up work
        (database, prewarming) must not turn the first calls away. With the spec's `prewarmed`, also until its
        first prewarm pass is over (/healthz `prewarm.passes`; a daemon that does not say is taken as done)."""
        import aiohttp

        urls = [u.rsplit("/", 1)[0] + "/healthz" for u in self.metrics_urls]
        wait_prewarm = bool(self.spec.get("prewarmed"))
        started = time.monotonic()
        calm_since: float | None = None
        async with aiohttp.ClientSession() as session:
            while time.monotonic() - started < (PREWARM_TIMEOUT_S if wait_prewarm else SETTLE_TIMEOUT_S):
                overloaded = prewarming = False
                for url in urls:
                    try:
                        async with session.get(url) as resp:
                            body = await resp.json(content_type=None)
                        overloaded |= bool(body.get("overloaded", False))
                        prewarming |= wait_prewarm and (body.get("prewarm") or {}).get("passes", 1) < 1
                    except (aiohttp.ClientError, ValueError):
                        overloaded = True
                now = time.monotonic()
                self.prewarm_done = not prewarming if wait_prewarm else None
                calm_since = (calm_since or now) if not (overloaded or prewarming) else None
                if calm_since is not None and now - calm_since >= SETTLED_S:
                    break
                await asyncio.sleep(0.2)
        self.settle_s = round(time.monotonic() - started, 2)

    def health(self) -> dict[str, Any]:
        in_window = [late for late, (at, _) in zip(self.pacer.lateness_ms, self.pacer.sent_log, strict=False)
                     if self.t0 <= at < self.t1]
        late = np.asarray(in_window or [0.0])
        return {"capture_drops": sum(p.drops for _, p in self.logs if p is not None),
                "unstamped_packets": SendTally.unstamped, "send_errors": SendTally.send_errors,
                "scrape_failures": self.scrape_failures, "ticks": self.pacer.ticks, "daemon_settle_s": self.settle_s,
                "prewarm_done": self.prewarm_done,
                "tick_lateness_ms": {"p50": round(float(np.percentile(late, 50)), 3),
                                     "p99": round(float(np.percentile(late, 99)), 3),
                                     "max": round(float(late.max()), 3)}}

    # -- the run -----------------------------------------------------------------------------------
    async def run(self) -> None:
        await self.connect()
        await self.daemon_settled()
        await self.measure()
        await self.disconnect()
        self.write(Path(self.spec["out"]))
        emit("done", calls=len(self.logs))

    async def connect(self) -> None:
        """The simulated PBX up and every daemon subscribed to it (the node benchmark's callers have a real PBX)."""
        url = await self.pbx.start()
        emit("ari", url=url)
        deadline = time.monotonic() + SUBSCRIBE_TIMEOUT_S
        while not set(self.apps) <= self.pbx.apps:
            if time.monotonic() > deadline:
                raise TimeoutError("the daemon did not subscribe to the simulated PBX in time")
            await asyncio.sleep(0.05)

    async def disconnect(self) -> None:
        await self.pbx.stop()

    async def measure(self) -> None:
        """The slots from warm-up to the window's end, with the clock readings and the scrapes."""
        spec = self.spec
        gc.collect()
        gc.freeze()  # the start-up objects stay out of this process's collections
        begin = time.monotonic_ns()
        self.t0 = begin + int(spec["warmup_s"] * S)
        self.t1 = self.t0 + int(spec["window_s"] * S)
        emit("window", begin_ns=begin, t0_ns=self.t0, t1_ns=self.t1)
        instruments = [asyncio.create_task(self.clock_readings()), asyncio.create_task(self.scraper())]
        stagger = int(spec["stagger_s"] * S / max(1, spec["n"]))
        await asyncio.gather(*(self.slot(i, begin, stagger) for i in range(spec["n"])))
        for task in instruments:
            task.cancel()
        await asyncio.gather(*instruments, return_exceptions=True)

    def write(self, out: Path) -> None:
        logs = []
        for log, peer in self.logs:
            if peer is not None:
                log.packets = bytes(peer.capture)
            logs.append(log)
        m1, r, m2 = time.monotonic_ns(), time.time_ns(), time.monotonic_ns()
        self.clock.append((r, (m1 + m2) // 2))
        capture = cap.Capture(t0_ns=self.t0, t1_ns=self.t1, calls=logs, clock=self.clock,
                              sent=self.pacer.sent_log, scrapes=self.scrapes, health=self.health())
        meta, blob = cap.dumps(capture)
        out.mkdir(parents=True, exist_ok=True)
        (out / "packets.bin").write_bytes(blob)
        (out / "capture.json").write_text(meta)


def main(argv: list[str] | None = None, callers: type[Callers] = Callers) -> int:
    """`--spec SPEC.json`: `callers` (the node benchmark's are `node_callers.SipCallers`) run the spec."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--spec", required=True)
    args = parser.parse_args(argv)
    spec = json.loads(Path(args.spec).read_text())
    if spec.get("cpus"):
        os.sched_setaffinity(0, set(spec["cpus"]))
    plan = plans.load(Path(spec["plan"]))
    try:
        asyncio.run(callers(spec, plan).run())
    except Exception as exc:
        traceback.print_exc()
        emit("failed", error=f"{type(exc).__name__}: {exc}")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
