"""Instructions the media plane spends per call per 20 ms, counted by callgrind: repeatable on a busy box.

`python -m benchmarks.media_replay [--calls 20] [--baseline main]`

`media_micro` measures CPU time, which a shared box inflates; this replays the same work on a virtual clock
(no real time, no waiting) and counts user-space instructions with `valgrind --tool=callgrind`, which other
processes cannot change. Each run: `--calls` calls, each with a real UDP socket pair, for `--ticks` 20 ms ticks;
per tick the pacer sends every speaking stream's frame, then every caller sends one frame (a loop of an
espeak-ng line and `--gap` s of digital silence), which the implementation under test receives its own way
(the baseline: one asyncio callback per datagram; this tree: the receiver drained once per tick) into the
real `CallerListener`; every utterance heard is answered with a bot line. Runs of two lengths are subtracted,
so start-up and imports cancel out: the figure is instructions per call per tick. Kernel work (the socket
system calls themselves) is not counted.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

FRAME_S = 0.02


class Clock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t


async def replay(args: argparse.Namespace) -> dict[str, Any]:
    import socket

    from ai_operator.config.schema import VadSettings
    from ai_operator.media import transport
    from ai_operator.media.bargein import BargeInDetector
    from ai_operator.media.codecs import get_codec
    from ai_operator.media.listener import CallerListener
    from ai_operator.media.playout import PlayoutStream
    try:  # (a baseline tree may still have the pacer in playout.py)
        from ai_operator.media.pacer import Pacer
    except ImportError:
        from ai_operator.media.playout import Pacer  # type: ignore[attr-defined,no-redef]
    from ai_operator.media.rtp import build_header
    from ai_operator.media.vad import UtteranceSegmenter

    try:
        from benchmarks.media_micro import MicroCall
    except ImportError:  # run as a script against a baseline tree: this file's folder is on the path
        from media_micro import MicroCall  # type: ignore[import-not-found,no-redef]

    codec, v, clock = get_codec("ulaw"), VadSettings(), Clock()
    reply = np.load(args.bot)
    line = codec.encode(np.load(args.caller))
    speech = [line[i : i + 160] for i in range(0, len(line) - 159, 160)]
    cycle = len(speech) + int(args.gap / FRAME_S)
    tick_driven = hasattr(transport, "RtpReceiver")
    receiver = transport.RtpReceiver() if tick_driven else None
    pacer = Pacer(clock=clock)
    alloc = transport.PortAllocator("127.0.0.1", args.port_min, args.port_min + 4 * args.calls)
    calls, endpoints, peers = [], [], []
    for _ in range(args.calls):
        listener = CallerListener(UtteranceSegmenter(v.aggressiveness, v.start_ms, 600, v.max_utterance_s),
                                  BargeInDetector(v.barge_in_ms))
        call = MicroCall(listener, reply, clock)
        if receiver is not None:
            ep = await transport.RtpEndpoint.open(alloc, codec, call.on_audio, on_silence=call.on_silence,
                                                  receiver=receiver)
        else:
            ep = await transport.RtpEndpoint.open(alloc, codec, call.on_audio)
            call.pacer = pacer  # pacer.poll() after every packet, as the baseline's Call does
        peer = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        peer.bind(("127.0.0.1", 0))
        peer.setblocking(False)
        ep.set_remote(*peer.getsockname())
        call.stream = PlayoutStream(codec, ep.send_frame, on_frame=listener.note_bot_power, clock=clock)
        pacer.add(call.stream)
        calls.append(call)
        endpoints.append(ep)
        peers.append(peer)
    silence = codec.silence_payload()
    base = sum(ep.stats.received for ep in endpoints)
    for k in range(args.ticks):
        clock.t = 1000.0 + k * FRAME_S
        pacer.tick(clock.t)
        for i, (peer, ep) in enumerate(zip(peers, endpoints, strict=True)):
            pos = (k + 37 * i) % cycle
            peer.sendto(build_header(0, pos == 0, k, 160 * k, i) + (speech[pos] if pos < len(speech) else silence),
                        ep.local_address)
        want = base + (k + 1) * args.calls
        while sum(ep.stats.received for ep in endpoints) < want:
            if receiver is not None:
                receiver.drain()
            await asyncio.sleep(0)
        for peer in peers if k % 50 == 49 else ():  # the bot's frames, read and thrown away as Asterisk would
            while True:  # play them
                try:
                    peer.recv(2048)
                except BlockingIOError:
                    break
    return {"heard": sum(c.heard for c in calls), "barge_ins": sum(c.barge_ins for c in calls),
            "frames_out": sum(c.stream.stats.frames_sent for c in calls),
            "packets_in": sum(ep.stats.received for ep in endpoints) - base}


def instructions(tree: Path, ticks: int, args: argparse.Namespace, work: Path) -> tuple[int, dict[str, Any]]:
    out = work / f"cg.{tree.name}.{ticks}"
    cmd = ["valgrind", "--tool=callgrind", f"--callgrind-out-file={out}", sys.executable, __file__, "--role",
           "replay", "--calls", str(args.calls), "--ticks", str(ticks), "--gap", str(args.gap), "--caller",
           str(work / "caller.npy"), "--bot", str(work / "bot.npy"), "--port-min", str(args.port_min)]
    env = {**os.environ, "PYTHONPATH": str(tree), "PYTHONMALLOC": "malloc"}
    run = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    summary = re.search(r"^summary:\s+(\d+)", out.read_text(), re.M)
    assert summary is not None, f"no callgrind summary in {out}"
    return int(summary.group(1)), json.loads(run.stdout.strip().splitlines()[-1])


def compare(args: argparse.Namespace) -> None:
    sys.path.insert(0, str(Path(__file__).resolve().parent))
    from media_micro import BOT_LINE, CALLER_LINE, REPO, export, speak

    with tempfile.TemporaryDirectory(prefix="media-replay-") as tmp:
        work = Path(tmp)
        speak(CALLER_LINE, work / "caller.npy")
        speak(BOT_LINE, work / "bot.npy")
        snapshot = work / "this-tree"  # a copy: editing the tree meanwhile does not change what is measured
        for package in ("ai_operator", "policies"):
            shutil.copytree(REPO / package, snapshot / package, ignore=shutil.ignore_patterns("__pycache__"))
        trees = {f"baseline ({args.baseline})": export(args.baseline, work / "baseline"), "this tree": snapshot}
        result: dict[str, Any] = {"calls": args.calls, "ticks": [args.short, args.ticks]}
        per = {}
        for name, tree in trees.items():
            long_ir, long_run = instructions(tree, args.ticks, args, work)
            short_ir, _ = instructions(tree, args.short, args, work)
            per[name] = (long_ir - short_ir) / ((args.ticks - args.short) * args.calls)
            result[name] = {"instructions_per_call_tick": round(per[name]), **long_run}
            print(name, json.dumps(result[name]), flush=True)
        base = next(iter(per.values()))
        result["ratio_to_baseline"] = {k: round(x / base, 3) for k, x in per.items()}
        print(json.dumps(result))


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--role", choices=("compare", "replay"), default="compare")
    p.add_argument("--calls", type=int, default=20)
    p.add_argument("--ticks", type=int, default=1500)
    p.add_argument("--short", type=int, default=300, help="ticks of the shorter run subtracted")
    p.add_argument("--gap", type=float, default=5.0)
    p.add_argument("--baseline", default="main")
    p.add_argument("--caller", type=Path)
    p.add_argument("--bot", type=Path)
    p.add_argument("--port-min", type=int, default=47000)
    args = p.parse_args(argv)
    if args.role == "replay":
        print(json.dumps(asyncio.run(replay(args))))
    else:
        compare(args)


if __name__ == "__main__":
    main()
