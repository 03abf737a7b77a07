"""Capture, byte for byte, RTP that a real Asterisk sends to the daemon's externalMedia socket during one real call,
and write it as test fixtures (`tests/data/rtp-asterisk/`, read by `tests/test_media_rtp_asterisk.py`).

The harness's whole stack runs (Asterisk from the samples, the daemon process with `RTP_CODEC`, a sipp caller who
says one line); an `AF_PACKET` socket on the loopback sees every datagram delivered to the daemon's RTP port
range without touching the daemon, so it needs root (CAP_NET_RAW). Two runs of consecutive packets are kept per
codec: the first ones after the media starts, and the first ones that carry the caller's voice (not digital
silence). Beside the `.rtp` files a manifest names each packet's header fields, decoded here with `struct`
alone (not with the packet class the test checks against them).

    sudo AI_OPERATOR_ASTERISK_PREFIX=/opt/ai-operator-asterisk .venv/bin/python -m tests.support.asterisk.capture_rtp
"""

from __future__ import annotations

import argparse
import json
import socket
import struct
import subprocess
import threading
from pathlib import Path
from typing import Any

from ai_operator.config.envfile import read_env_file
from ai_operator.media.codecs import get_codec
from tests.support.asterisk.pbx import REPO, asterisk_binary
from tests.support.asterisk.stack import Stack
from tests.support.wait import eventually_sync

OUT_DIR = REPO / "tests" / "data" / "rtp-asterisk"
ETH_P_ALL = 0x0003
PACKET_HOST = 0  # delivered to this host (loopback shows each datagram again as PACKET_OUTGOING)
ETH_HEADER = 14
RUN = 5  # consecutive packets per run
LINE = ("Здравствуйте, у меня не работает интернет.", "ru")


def header_fields(data: bytes) -> dict[str, Any]:
    """The fixed RTP header of `data`, decoded with struct only."""
    first, second, seq, ts, ssrc = struct.unpack_from("!BBHII", data, 0)
    return {"version": first >> 6, "padding": bool(first & 0x20), "extension": bool(first & 0x10),
            "csrc_count": first & 0x0F, "marker": bool(second & 0x80), "payload_type": second & 0x7F,
            "sequence_number": seq, "timestamp": ts, "ssrc": ssrc, "size": len(data)}


class LoopbackTap:
    """Every UDP payload delivered on `lo` from a port in `sources` to a port in `targets`, in arrival order, with
    its destination port."""

    def __init__(self, sources: range, targets: range) -> None:
        self.sources, self.targets = sources, targets
        self.datagrams: list[tuple[int, bytes]] = []
        self._sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
        self._sock.bind(("lo", 0))
        self._sock.settimeout(0.2)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def _run(self) -> None:
        while not self._stop.is_set():
            try:
                frame, addr = self._sock.recvfrom(65535)
            except TimeoutError:
                continue
            if addr[2] != PACKET_HOST or len(frame) < ETH_HEADER + 28 or frame[12:14] != b"\x08\x00":
                continue
            ip = frame[ETH_HEADER:]
            ihl = (ip[0] & 0x0F) * 4
            if ip[9] != socket.IPPROTO_UDP:
                continue
            sport, dport, length, _sum = struct.unpack_from("!HHHH", ip, ihl)
            if sport in self.sources and dport in self.targets:
                self.datagrams.append((dport, bytes(ip[ihl + 8 : ihl + length])))

    def to_port(self, port: int) -> list[bytes]:
        return [data for dport, data in list(self.datagrams) if dport == port]

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        self._sock.close()


def runs(datagrams: list[bytes], silence: bytes) -> list[list[bytes]]:
    """The first RUN datagrams, and the first RUN consecutive ones that carry voice."""
    voiced = next(i for i in range(RUN, len(datagrams) - RUN)
                  if all(d[12:] != silence for d in datagrams[i : i + RUN]))
    return [datagrams[:RUN], datagrams[voiced : voiced + RUN]]


def capture(codec_name: str) -> list[list[bytes]]:
    stack = Stack.start(RTP_CODEC=codec_name)
    try:
        env = {entry.key: entry.value for entry in read_env_file(stack.env_file)}
        ports = stack.pbx.ports
        tap = LoopbackTap(range(ports.rtp_start, ports.rtp_end + 1),
                          range(int(env["RTP_PORT_MIN"]), int(env["RTP_PORT_MAX"]) + 1))
        try:
            caller = stack.dial("100")
            caller.wait_media()
            assert stack.daemon is not None
            local_rtp = stack.daemon.wait_event("call_media_ready")["local_rtp"]  # the externalMedia socket
            port = int(local_rtp.rsplit(":", 1)[1])
            stack.say(caller, *LINE)
            silence = get_codec(codec_name).silence_payload()
            eventually_sync(lambda: _has_voice(tap.to_port(port), silence), what="voiced RTP to the daemon")
            caller.close()
        finally:
            tap.close()
        return runs(tap.to_port(port), silence)
    finally:
        stack.stop()


def _has_voice(datagrams: list[bytes], silence: bytes) -> bool:
    try:
        runs(list(datagrams), silence)
    except StopIteration:
        return False
    return True


def asterisk_version() -> str:
    binary = asterisk_binary()
    done = subprocess.run([str(binary), "-V"], capture_output=True, text=True, check=True, timeout=30)
    return done.stdout.strip()


def write(codec_name: str, captured: list[list[bytes]], out_dir: Path, version: str) -> None:
    out_dir.mkdir(parents=True, exist_ok=True)
    manifest: dict[str, Any] = {"codec": codec_name, "asterisk": version, "runs": []}
    for r, run in enumerate(captured):
        names = []
        for i, data in enumerate(run):
            name = f"{codec_name}-{r}-{i}.rtp"
            (out_dir / name).write_bytes(data)
            names.append({"file": name, **header_fields(data)})
        manifest["runs"].append(names)
    (out_dir / f"{codec_name}.json").write_text(json.dumps(manifest, indent=1) + "\n", encoding="utf-8")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--codec", action="append", choices=["ulaw", "alaw", "slin"],
                        help="codec(s) to capture (default: ulaw and slin)")
    parser.add_argument("--out", type=Path, default=OUT_DIR)
    args = parser.parse_args()
    version = asterisk_version()
    for codec_name in args.codec or ["ulaw", "slin"]:
        write(codec_name, capture(codec_name), args.out, version)
        print(f"{codec_name}: written to {args.out}")


if __name__ == "__main__":
    main()
