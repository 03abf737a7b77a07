"""What the media benchmark's callers record, and its byte format. Pure: records in, bytes out and back.

A received RTP packet is one 22-byte record: the kernel's receive time (`SO_TIMESTAMPNS`: CLOCK_REALTIME in ns,
little-endian int64), the datagram's length (uint16) and its first 12 bytes (the RTP fixed header, network
order). Everything else the callers note is in CLOCK_MONOTONIC ns (the daemon's pacer clock): when each call
was placed and ended, when each caller line's first and last speech frame left the socket, the callers'
cumulative packets sent after every 20 ms tick, and each `/metrics` scrape of the daemon. Pairs of
(realtime, monotonic) readings taken through the run map the kernel's timestamps onto the monotonic clock.

On disk a capture is two files: `capture.json` (everything but the packets) and `packets.bin` (every call's
records, one call after the other; each call names its offset and count).
"""

from __future__ import annotations

import json
import struct
from dataclasses import asdict, dataclass, field
from typing import Any

import numpy as np

RECORD = struct.Struct("<qH12s")
RECORD_SIZE = RECORD.size  # 22
RTP_FIXED_HEADER = 12
PACKET_DTYPE = np.dtype([("t", "<i8"), ("length", "<u2"), ("b0", "u1"), ("b1", "u1"), ("seq", ">u2"),
                         ("ts", ">u4"), ("ssrc", ">u4")])
assert PACKET_DTYPE.itemsize == RECORD_SIZE


def record(kernel_ns: int, datagram: bytes) -> bytes:
    """One received datagram as a capture record."""
    return RECORD.pack(kernel_ns, min(len(datagram), 0xFFFF), datagram[:RTP_FIXED_HEADER])


def parse_packets(blob: bytes | bytearray | memoryview) -> np.ndarray:
    """Records back as a structured array: t (kernel ns), length, b0, b1 (marker|payload type), seq, ts, ssrc."""
    if len(blob) % RECORD_SIZE:
        raise ValueError(f"capture: {len(blob)} bytes is not a whole number of {RECORD_SIZE}-byte records")
    return np.frombuffer(bytes(blob), dtype=PACKET_DTYPE)


@dataclass
class CallLog:
    """One simulated call as its caller saw it (monotonic ns) and the packets it received."""

    index: int
    variant: int
    channel_id: str
    placed_ns: int
    lines: list[tuple[int, int]] = field(default_factory=list)  # (first, last) speech frame sent, per line said
    ended_ns: int | None = None
    outcome: str = "answered"  # answered | refused (sent back to the dialplan) | no_media | abandoned
    packets: bytes = b""

    def meta(self) -> dict[str, Any]:
        d = asdict(self)
        d.pop("packets")
        d["lines"] = [list(pair) for pair in self.lines]
        return d


@dataclass
class Capture:
    """Everything the caller process recorded in one run."""

    t0_ns: int  # measurement window, monotonic
    t1_ns: int
    calls: list[CallLog] = field(default_factory=list)
    clock: list[tuple[int, int]] = field(default_factory=list)  # (realtime ns, monotonic ns)
    sent: list[tuple[int, int]] = field(default_factory=list)  # (monotonic ns after a tick, packets sent so far)
    scrapes: list[tuple[int, int, int]] = field(default_factory=list)  # (request ns, response ns, packets read)
    health: dict[str, Any] = field(default_factory=dict)  # the callers' own figures (drops, tick lateness)


def dumps(capture: Capture) -> tuple[str, bytes]:
    """(capture.json text, packets.bin bytes)."""
    calls, offset, parts = [], 0, []
    for c in capture.calls:
        n = len(c.packets) // RECORD_SIZE
        calls.append({**c.meta(), "offset": offset, "count": n})
        parts.append(c.packets)
        offset += n
    meta = {"t0_ns": capture.t0_ns, "t1_ns": capture.t1_ns, "calls": calls,
            "clock": [list(p) for p in capture.clock], "sent": [list(p) for p in capture.sent],
            "scrapes": [list(s) for s in capture.scrapes], "health": capture.health}
    return json.dumps(meta), b"".join(parts)


def loads(meta_text: str, blob: bytes) -> Capture:
    """Inverse of `dumps`."""
    meta = json.loads(meta_text)
    calls = []
    for c in meta["calls"]:
        start = c["offset"] * RECORD_SIZE
        calls.append(CallLog(index=c["index"], variant=c["variant"], channel_id=c["channel_id"],
                             placed_ns=c["placed_ns"], lines=[(a, b) for a, b in c["lines"]],
                             ended_ns=c["ended_ns"], outcome=c["outcome"],
                             packets=blob[start : start + c["count"] * RECORD_SIZE]))
    return Capture(t0_ns=meta["t0_ns"], t1_ns=meta["t1_ns"], calls=calls,
                   clock=[(a, b) for a, b in meta["clock"]], sent=[(a, b) for a, b in meta["sent"]],
                   scrapes=[(a, b, c) for a, b, c in meta["scrapes"]], health=meta.get("health") or {})


class ClockMap:
    """Maps CLOCK_REALTIME ns (kernel packet timestamps) onto CLOCK_MONOTONIC ns by the offsets sampled through
    the run (linear between samples): NTP steps of the wall clock do not bend the figures."""

    def __init__(self, pairs: list[tuple[int, int]]) -> None:
        if not pairs:
            raise ValueError("capture: no (realtime, monotonic) clock readings")
        ordered = sorted(pairs)
        self._real0 = ordered[0][0]
        self._off0 = ordered[0][1] - ordered[0][0]
        self._x = np.array([r - self._real0 for r, _ in ordered], dtype=np.float64)
        self._y = np.array([(m - r) - self._off0 for r, m in ordered], dtype=np.float64)

    def to_mono(self, realtime_ns: np.ndarray) -> np.ndarray:
        rel = np.asarray(realtime_ns, dtype=np.int64) - self._real0
        off = np.interp(rel.astype(np.float64), self._x, self._y)
        return rel + self._real0 + self._off0 + np.round(off).astype(np.int64)

    @property
    def drift_ns(self) -> int:
        """How far the two clocks moved apart between the first and the last reading."""
        return int(self._y[-1] - self._y[0])
