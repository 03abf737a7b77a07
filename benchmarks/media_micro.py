"""CPU of the media plane alone, per call-minute: this tree's code against a baseline's, in one run.

`python -m benchmarks.media_micro --n 200 [--seconds 20] [--rounds 2] [--baseline main]`

The full benchmark (`make bench`) judges everything at once and needs a quiet box; this one isolates the part
that scales with calls and packets, so a change to it can be measured on a busy box: it is a ratio of CPU time,
old and new taking turns in the same run. Per implementation and round, two processes:

- `media` (measured; pinned to the first CPU when the box has two): N calls of the real receive path
  (`RtpEndpoint` on real UDP sockets), the real `CallerListener` (webrtcvad, echo test, barge-in) and the real
  `PlayoutStream`s behind one `Pacer`, glued the way the daemon's `Call` glues them; every utterance heard is
  answered with a bot line (which feeds the echo reference and barge-in). Its CPU time over the window, per
  call-minute, is the figure.
- `sender` (pinned to the other CPU): N Asterisk-like RTP sources sending 20 ms frames on an absolute schedule,
  each call a loop of a spoken line (espeak-ng) then `--gap` seconds of digital silence.

The baseline is `git archive <ref>` of `ai_operator/` and `policies/` in a temporary folder, put first on the
media process's PYTHONPATH; this file runs in both as a script, adapting to the media API it finds.
"""

from __future__ import annotations

import argparse
import asyncio
import io
import json
import os
import random
import shutil
import socket
import subprocess
import sys
import tarfile
import tempfile
import time
import wave
from pathlib import Path
from typing import Any

import numpy as np

REPO = Path(__file__).resolve().parent.parent
FRAME_S = 0.02
CALLER_LINE = "Здравствуйте, я хотел бы узнать баланс моего счёта, пожалуйста"
BOT_LINE = "Добрый день, оператор слушает. Ваш баланс можно узнать в личном кабинете или по короткому номеру."


def speak(text: str, path: Path) -> None:
    import soxr

    wav = subprocess.run(["espeak-ng", "-v", "ru", "--stdout", text], check=True, capture_output=True).stdout
    with wave.open(io.BytesIO(wav)) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    np.save(path, soxr.resample(pcm, rate, 8000).astype(np.int16))


# ---- the measured process -------------------------------------------------------------------------------------
class MicroCall:
    """What the daemon's `Call` does per frame: listener in, events out; a bot line for every utterance heard."""

    def __init__(self, listener: Any, reply: np.ndarray, clock: Any = time.monotonic) -> None:
        self.listener = listener
        self.clock = clock
        self.reply = reply
        self.stream: Any = None
        self.heard = 0
        self.barge_ins = 0
        self.pacer: Any = None  # the baseline's receive path polls the pacer after every packet

    def on_audio(self, frame: np.ndarray) -> None:
        stream = self.stream
        self._events(self.listener.feed(frame, self.clock(), stream is not None and stream.speaking))
        if self.pacer is not None:
            self.pacer.poll()

    def on_silence(self) -> None:
        stream = self.stream
        speaking = stream is not None and stream.speaking
        skip = getattr(self.listener, "skip_silent", None)  # (a baseline may not have it)
        if skip is not None and skip(speaking):
            return
        self._events(self.listener.feed_silent(self.clock(), speaking))

    def _events(self, events: list[Any]) -> None:
        for ev in events:
            name = type(ev).__name__
            if name == "Heard":
                self.heard += 1
                self.stream.enqueue(self.reply, f"r{self.heard}")
            elif name == "BargedIn":
                self.barge_ins += 1
                self.stream.flush()
                self.listener.reset_bargein()


async def media_role(args: argparse.Namespace) -> None:
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
    from ai_operator.media.vad import UtteranceSegmenter
    from ai_operator.ops.gc_tuning import settle_heap

    codec = get_codec("ulaw")
    reply = np.load(args.bot)
    v = VadSettings()
    tick_driven = hasattr(transport, "RtpReceiver")
    receiver = transport.RtpReceiver() if tick_driven else None
    pacer = Pacer(receive=receiver.drain) if receiver is not None else Pacer()
    await pacer.start()
    alloc = transport.PortAllocator("127.0.0.1", args.port_min, args.port_min + 4 * args.n)
    calls, endpoints = [], []
    for _ in range(args.n):
        listener = CallerListener(UtteranceSegmenter(v.aggressiveness, v.start_ms, 600, v.max_utterance_s),
                                  BargeInDetector(v.barge_in_ms))
        call = MicroCall(listener, reply)
        if tick_driven:
            gate = None if args.no_gate else call.on_silence
            ep = await transport.RtpEndpoint.open(alloc, codec, call.on_audio, on_silence=gate,
                                                  receiver=receiver)
        else:
            ep = await transport.RtpEndpoint.open(alloc, codec, call.on_audio)
            call.pacer = pacer
        call.stream = PlayoutStream(codec, ep.send_frame, on_frame=listener.note_bot_power)
        pacer.add(call.stream)
        calls.append(call)
        endpoints.append(ep)
    print(json.dumps({"ports": [ep.local_address[1] for ep in endpoints]}), flush=True)
    remotes = json.loads(await asyncio.get_running_loop().run_in_executor(None, sys.stdin.readline))["remotes"]
    for ep, port in zip(endpoints, remotes, strict=True):
        ep.set_remote("127.0.0.1", port)
    settle_heap()
    await asyncio.sleep(args.warmup)
    t0, c0, in0 = time.monotonic(), time.process_time(), sum(ep.stats.received for ep in endpoints)
    out0 = sum(c.stream.stats.frames_sent for c in calls)
    profiler = None
    if args.profile:
        import cProfile

        profiler = cProfile.Profile()
        profiler.enable()
    await asyncio.sleep(args.seconds)
    cpu, wall = time.process_time() - c0, time.monotonic() - t0
    if profiler is not None:
        profiler.disable()
        profiler.dump_stats(args.profile)
    packets_in = sum(ep.stats.received for ep in endpoints) - in0
    print(json.dumps({
        "cpu_s": round(cpu, 3), "wall_s": round(wall, 3), "call_minutes": round(args.n * wall / 60, 3),
        "cpu_s_per_call_minute": round(cpu / (args.n * wall / 60), 4),
        "packets_in": packets_in, "cpu_us_per_packet_in": round(cpu * 1e6 / max(1, packets_in), 2),
        "frames_out": sum(c.stream.stats.frames_sent for c in calls) - out0,
        "heard": sum(c.heard for c in calls), "barge_ins": sum(c.barge_ins for c in calls),
        "late_ticks": pacer.late_ticks, "send_error_p99_ms": round(pacer.send_error_ms.p99, 3),
        "tick_driven": tick_driven,
    }), flush=True)
    await pacer.stop()
    for ep in endpoints:
        ep.close()


# ---- the load -------------------------------------------------------------------------------------------------
def sender_role(args: argparse.Namespace) -> None:
    from ai_operator.media.codecs import get_codec
    from ai_operator.media.rtp import build_header

    codec = get_codec("ulaw")
    line = codec.encode(np.load(args.caller))
    frame_bytes = codec.bytes_per_frame
    speech = [line[i : i + frame_bytes] for i in range(0, len(line) - frame_bytes + 1, frame_bytes)]
    cycle = len(speech) + int(args.gap / FRAME_S)
    silence = codec.silence_payload()
    ports = json.loads(sys.stdin.readline())["ports"]
    socks = []
    for _ in ports:
        s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        s.bind(("127.0.0.1", 0))
        s.setblocking(False)
        socks.append(s)
    print(json.dumps({"remotes": [s.getsockname()[1] for s in socks]}), flush=True)
    rng = random.Random(7)
    phase = [rng.randrange(cycle) for _ in ports]
    seq = [rng.randrange(65536) for _ in ports]
    end = time.monotonic() + args.warmup + args.seconds + 2
    t0, k = time.monotonic(), 0
    while time.monotonic() < end:
        for i, (s, port) in enumerate(zip(socks, ports, strict=True)):
            pos = (k + phase[i]) % cycle
            payload = speech[pos] if pos < len(speech) else silence
            s.sendto(build_header(0, pos == 0, seq[i] + k, 160 * k, i) + payload, ("127.0.0.1", port))
            if k % 50 == 0:  # the bot's audio: read and thrown away, as Asterisk would play it
                while True:
                    try:
                        s.recv(2048)
                    except BlockingIOError:
                        break
        k += 1
        time.sleep(max(0.0, t0 + k * FRAME_S - time.monotonic()))


# ---- the comparison -------------------------------------------------------------------------------------------
def export(ref: str, into: Path) -> Path:
    data = subprocess.run(["git", "archive", ref, "ai_operator", "policies"], cwd=REPO, check=True,
                          capture_output=True).stdout
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(into, filter="data")
    return into


def one_run(tree: Path, extra: list[str], args: argparse.Namespace, files: dict[str, Path], port_min: int
            ) -> dict[str, Any]:
    cpus = sorted(os.sched_getaffinity(0))
    pin = (["taskset", "-c", str(cpus[0])], ["taskset", "-c", ",".join(map(str, cpus[1:]))]) if len(cpus) > 1 \
        else ([], [])
    common = ["--n", str(args.n), "--seconds", str(args.seconds), "--warmup", str(args.warmup)]
    media = subprocess.Popen([*pin[0], sys.executable, __file__, "--role", "media", *common, "--bot",
                              str(files["bot"]), "--port-min", str(port_min), *extra], stdin=subprocess.PIPE,
                             stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(tree)})
    sender = subprocess.Popen([*pin[1], sys.executable, __file__, "--role", "sender", *common, "--caller",
                               str(files["caller"]), "--gap", str(args.gap)], stdin=subprocess.PIPE,
                              stdout=subprocess.PIPE, text=True, env={**os.environ, "PYTHONPATH": str(REPO)})
    assert media.stdin and media.stdout and sender.stdin and sender.stdout
    sender.stdin.write(media.stdout.readline())
    sender.stdin.flush()
    media.stdin.write(sender.stdout.readline())
    media.stdin.flush()
    result: dict[str, Any] = json.loads(media.stdout.readline())
    media.wait(30)
    sender.wait(30)
    return result


def compare(args: argparse.Namespace) -> None:
    work = Path(tempfile.mkdtemp(prefix="media-micro-"))
    try:
        files = {"caller": work / "caller.npy", "bot": work / "bot.npy"}
        speak(CALLER_LINE, files["caller"])
        speak(BOT_LINE, files["bot"])
        baseline = export(args.baseline, work / "baseline")
        trees: dict[str, tuple[Path, list[str]]] = {f"baseline ({args.baseline})": (baseline, []), "this tree": (REPO, [])}
        if args.variants:
            trees["this tree, no silence gate"] = (REPO, ["--no-gate"])
        results: dict[str, list[dict[str, Any]]] = {name: [] for name in trees}
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
            probe.bind(("127.0.0.1", 0))
            port_min = min(probe.getsockname()[1], 65535 - 5 * args.n)
        for r in range(args.rounds):
            for name, (tree, extra) in trees.items():
                res = one_run(tree, extra, args, files, port_min)
                results[name].append(res)
                print(f"round {r + 1} {name}: {json.dumps(res)}", flush=True)
        summary = {name: float(np.median([x["cpu_s_per_call_minute"] for x in rs])) for name, rs in results.items()}
        base = next(iter(summary.values()))
        print(json.dumps({"n": args.n, "seconds": args.seconds, "load_average": os.getloadavg(),
                          "cpu_s_per_call_minute": summary,
                          "ratio_to_baseline": {k: round(v / base, 3) for k, v in summary.items()}}))
    finally:
        shutil.rmtree(work, ignore_errors=True)


def main(argv: list[str] | None = None) -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--role", choices=("compare", "media", "sender"), default="compare")
    p.add_argument("--n", type=int, default=200)
    p.add_argument("--seconds", type=float, default=20.0)
    p.add_argument("--warmup", type=float, default=5.0)
    p.add_argument("--rounds", type=int, default=2)
    p.add_argument("--gap", type=float, default=5.0, help="seconds of digital silence after each caller line")
    p.add_argument("--baseline", default="main", help="git ref whose media code is the baseline")
    p.add_argument("--variants", action="store_true", help="also this tree without the silence gate")
    p.add_argument("--no-gate", action="store_true", help=argparse.SUPPRESS)
    p.add_argument("--profile", type=Path, help="(media role) cProfile statistics of the window")
    p.add_argument("--bot", type=Path)
    p.add_argument("--caller", type=Path)
    p.add_argument("--port-min", type=int, default=0)
    args = p.parse_args(argv)
    if args.role == "media":
        asyncio.run(media_role(args))
    elif args.role == "sender":
        sender_role(args)
    else:
        compare(args)


if __name__ == "__main__":
    main()
