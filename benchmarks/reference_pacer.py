"""A pacer with no work beside the daemon in the same window: how late the box alone makes a 20 ms timer.

`python -m benchmarks.reference_pacer --t0-ns T0 --t1-ns T1 --out FILE` (monotonic ns: the callers' window).
It runs the daemon's own pacing code (`media.pacer.Pacer` driving one `media.playout.PlayoutStream`, the same
schedule on the same kind of asyncio loop) in a process of its own with nothing else to do: one stream of
back-to-back 3 s utterances (each a talkspurt, marker bit first, as the daemon's replies are), every packet
sent to a loopback socket nobody reads. Right after each `sendto` it notes the packet's sequence number, RTP
timestamp, marker and the monotonic time (on loopback the callers' kernel stamp is that moment). At T1 it
writes the packets sent in [T0, T1) and its tick counts to FILE as JSON and exits. `baseline.py` judges them
as `analysis.py` judges the daemon's packets; `media_bench` starts it at the window's start. With `--to HOST:PORT`
(`node_reference`) the frames go to Asterisk instead, from `--port`, with `--pause` seconds of silence between
utterances, and are judged where a caller receives them.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import gc
import json
import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np

from ai_operator.media.codecs import get_codec
from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.media.pacer import Pacer
from ai_operator.media.playout import STOPPED, PlayoutEvent, PlayoutStream

UTTERANCE_S = 3.0  # one talkspurt (a typical reply's length)
QUEUED = 2  # utterances kept queued, so the stream never runs dry
S = 1_000_000_000
EXIT_WAIT_S = 30.0  # after the window: the process writes its record and exits within this
REPO = Path(__file__).resolve().parent.parent


class Reference:
    """The stream, its sink and the record of what was sent in the window."""

    def __init__(self, t0_ns: int, t1_ns: int, to: tuple[str, int] | None = None, port: int = 0,
                 pause_s: float = 0.0) -> None:
        self.t0_ns, self.t1_ns = t0_ns, t1_ns
        self._sink: socket.socket | None = None
        self._out = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self._out.setblocking(False)
        if to is None:  # to a loopback sink nobody reads
            self._sink = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            self._sink.bind(("127.0.0.1", 0))
            to = self._sink.getsockname()
        else:  # through Asterisk: from the port its UnicastRTP channel sends to (strict RTP learns it)
            self._out.bind(("127.0.0.1", port))
        self._to = to
        self.pause_s = pause_s  # silence (no packets) between utterances, as between a daemon's replies
        self.sent: list[tuple[int, int, int, int]] = []  # (monotonic ns after sendto, seq, ts, marker)
        self.send_errors = 0
        self._pcm = np.zeros(int(UTTERANCE_S * SAMPLE_RATE), dtype=np.int16)
        self._made = 0
        self.stream = PlayoutStream(get_codec("ulaw"), self._send, on_event=self._on_event)
        for _ in range(1 if pause_s else QUEUED):
            self._queue_one()

    def _queue_one(self) -> None:
        self._made += 1
        self.stream.enqueue(self._pcm, f"u{self._made}")

    def _on_event(self, event: PlayoutEvent) -> None:
        if event.kind == STOPPED and self.pause_s:
            asyncio.get_running_loop().call_later(self.pause_s, self._queue_one)
        elif event.kind == STOPPED:
            self._queue_one()

    def _send(self, packet: bytes) -> None:
        try:
            self._out.sendto(packet, self._to)
        except OSError:  # the sink's buffer is full: the datagram is dropped, the send time is what counts
            self.send_errors += 1
        at = time.monotonic_ns()
        if self.t0_ns <= at < self.t1_ns:
            self.sent.append((at, int.from_bytes(packet[2:4], "big"), int.from_bytes(packet[4:8], "big"),
                              packet[1] >> 7))

    def close(self) -> None:
        self._out.close()
        if self._sink is not None:
            self._sink.close()


async def run(t0_ns: int, t1_ns: int, **through: Any) -> dict[str, Any]:
    """Pace from now until `t1_ns`; the figures of the window [t0_ns, t1_ns). `through`: `Reference`'s `to`,
    `port` and `pause_s` when the frames go through Asterisk (the node benchmark)."""
    ref = Reference(t0_ns, t1_ns, **through)
    pacer = Pacer()
    pacer.add(ref.stream)
    gc.collect()
    gc.freeze()  # as the daemon settles its heap after start-up
    await pacer.start()
    ticks_before = 0
    try:
        await asyncio.sleep(max(0.0, (t0_ns - time.monotonic_ns()) / S))
        ticks_before = pacer.ticks
        await asyncio.sleep(max(0.0, (t1_ns - time.monotonic_ns()) / S))
    finally:
        await pacer.stop()
        ref.close()
    return {"t0_ns": t0_ns, "t1_ns": t1_ns, "ticks": pacer.ticks - ticks_before,
            "late_ticks": pacer.late_ticks, "skipped_frames": pacer.skipped_frames, "send_errors": ref.send_errors,
            "sent": ref.sent}


class ReferenceProcess:
    """This module as a child process of the benchmark, for the window [t0_ns, t1_ns) (on `cpus` when given:
    the daemon's, when the daemon is pinned)."""

    def __init__(self, run_dir: Path, t0_ns: int, t1_ns: int, cpus: list[int] | None = None,
                 extra: tuple[str, ...] = ()) -> None:
        self.out = run_dir / "reference-pacer.json"
        self.out.unlink(missing_ok=True)
        self._log = (run_dir / "reference-pacer.log").open("wb")
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "benchmarks.reference_pacer", "--t0-ns", str(t0_ns), "--t1-ns", str(t1_ns),
             "--out", str(self.out), *extra], cwd=REPO, stdout=self._log, stderr=subprocess.STDOUT,
            preexec_fn=(lambda: os.sched_setaffinity(0, set(cpus))) if cpus else None)

    async def record(self) -> dict[str, Any] | None:
        """Its record once it has exited (None when it failed: see reference-pacer.log)."""
        deadline = time.monotonic() + EXIT_WAIT_S
        while self.proc.poll() is None and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        self.stop()
        with contextlib.suppress(OSError, ValueError):
            return dict(json.loads(self.out.read_text()))
        return None

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        self._log.close()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--t0-ns", type=int, help="window start, monotonic ns (default: now)")
    parser.add_argument("--t1-ns", type=int, help="window end, monotonic ns")
    parser.add_argument("--seconds", type=float, help="instead of --t1-ns: a window this long from --t0-ns")
    parser.add_argument("--out", required=True)
    parser.add_argument("--to", metavar="HOST:PORT", help="send here (Asterisk's UnicastRTP channel), not to a sink")
    parser.add_argument("--port", type=int, default=0, help="with --to: send from this loopback port")
    parser.add_argument("--pause", type=float, default=0.0, help="seconds without packets between utterances")
    args = parser.parse_args(argv)
    t0 = args.t0_ns if args.t0_ns is not None else time.monotonic_ns()
    if args.t1_ns is None and args.seconds is None:
        parser.error("give --t1-ns or --seconds")
    t1 = args.t1_ns if args.t1_ns is not None else t0 + int(args.seconds * S)
    through: dict[str, Any] = {"pause_s": args.pause}
    if args.to:
        host, _, port = args.to.rpartition(":")
        through.update(to=(host, int(port)), port=args.port)
    Path(args.out).write_text(json.dumps(asyncio.run(run(t0, t1, **through))))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
