"""The SIP caller's media: a G.711 µ-law RTP peer on its own thread, as a softphone's audio engine.

It sends one 20 ms packet every 20 ms once it knows where to (speech when the caller says something, µ-law
silence otherwise), and records every packet it receives with the kernel's receive time (`SO_TIMESTAMPNS`,
CLOCK_REALTIME ns), so a late thread does not change what is measured. The remote address is learnt from the
first packet Asterisk sends (symmetric RTP, as `rtp_symmetric = yes` in the sample endpoint makes Asterisk do).
Once the call is hung up (`hang_up()`, which `hang_up_when_ended` calls when the caller's sipp has finished the
call) it sends nothing more, as a phone stops after BYE: a peer that kept sending to the PBX's old RTP port would be
learnt (symmetric RTP) by the next call the PBX gives that port to, which would then hear nothing.
"""

from __future__ import annotations

import contextlib
import random
import select
import socket
import struct
import subprocess
import threading
import time
from collections import deque
from dataclasses import dataclass

import numpy as np

from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.media.g711 import ulaw_decode, ulaw_encode
from ai_operator.media.rtp import build_header

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)
TIMESPEC = struct.Struct("@qq")
ANCILLARY = socket.CMSG_SPACE(TIMESPEC.size)
FRAME_NS = 20_000_000
PCMU = 0
SILENCE = b"\xff" * FRAME_SAMPLES


@dataclass(frozen=True)
class Received:
    at_ns: int  # kernel receive time, CLOCK_REALTIME
    seq: int
    ts: int
    payload_type: int
    payload: bytes


@dataclass(frozen=True)
class Said:
    first_ns: int  # CLOCK_REALTIME right after the line's first / last frame left the socket
    last_ns: int
    frames: int


class RtpPeer:
    def __init__(self, host: str = "127.0.0.1") -> None:
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 20)
        self.sock.bind((host, 0))
        self.sock.setblocking(False)
        self.host, self.port = self.sock.getsockname()[:2]
        self.remote: tuple[str, int] | None = None
        self.received: list[Received] = []
        self.lines: list[Said] = []
        self.sent = 0
        self.ticks = 0  # 20 ms ticks of the sending thread (sending or not)
        self.hung_up_ns: int | None = None  # CLOCK_REALTIME when the call was hung up; nothing is sent after it
        self._send_lock = threading.Lock()
        self._speech: deque[tuple[bytes, bool]] = deque()  # (frame, last of its line)
        self._queued_lines = 0
        self._line_first: int | None = None
        self._line_frames = 0
        self._said = threading.Condition()
        self._stop = threading.Event()
        self._seq = random.randrange(1 << 16)
        self._ts = random.randrange(1 << 32)
        self._ssrc = random.randrange(1 << 32)
        self._thread = threading.Thread(target=self._run, name=f"rtp-peer-{self.port}", daemon=True)
        self._thread.start()

    # --- speaking -------------------------------------------------------------------------------------------
    def say(self, pcm: np.ndarray) -> int:
        """Queue `pcm` (int16, 8 kHz) as speech; returns the index of this line in `lines` once said."""
        padded = np.concatenate([pcm, np.zeros((-len(pcm)) % FRAME_SAMPLES, dtype=np.int16)])
        payload = ulaw_encode(padded)
        frames = [payload[i : i + FRAME_SAMPLES] for i in range(0, len(payload), FRAME_SAMPLES)]
        with self._said:
            index = self._queued_lines
            self._queued_lines += 1
            self._speech.extend((f, i == len(frames) - 1) for i, f in enumerate(frames))
        return index

    def wait_said(self, index: int, timeout: float = 60.0) -> Said:
        with self._said:
            if not self._said.wait_for(lambda: len(self.lines) > index, timeout):
                raise AssertionError(f"line {index} not said within {timeout:g} s (remote {self.remote})")
            return self.lines[index]

    def speak(self, pcm: np.ndarray, timeout: float = 60.0) -> Said:
        return self.wait_said(self.say(pcm), timeout)

    # --- what was heard -------------------------------------------------------------------------------------
    def packets(self) -> list[Received]:
        return list(self.received)

    def pcm(self, since_ns: int = 0) -> tuple[np.ndarray, np.ndarray]:
        """(arrival ns per frame, the decoded audio) of the µ-law frames received since `since_ns`."""
        got = [p for p in list(self.received) if p.at_ns >= since_ns and p.payload_type == PCMU]
        times = np.array([p.at_ns for p in got], dtype=np.int64)
        audio = ulaw_decode(b"".join(p.payload for p in got)) if got else np.zeros(0, dtype=np.int16)
        return times, audio

    # --- the call's end -------------------------------------------------------------------------------------
    def hang_up(self) -> None:
        """The call is over: no packet leaves after this returns (what arrives is still recorded)."""
        with self._send_lock:
            if self.hung_up_ns is None:
                self.hung_up_ns = time.time_ns()

    # --- the thread -----------------------------------------------------------------------------------------
    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.sock.close()

    def _run(self) -> None:
        next_ns = time.monotonic_ns()
        while not self._stop.is_set():
            wait_s = max(0.0, (next_ns - time.monotonic_ns()) / 1e9)
            readable, _, _ = select.select([self.sock], [], [], wait_s)
            if readable:
                self._drain()
                continue
            now = time.monotonic_ns()
            if now < next_ns:
                continue
            next_ns += FRAME_NS
            if now - next_ns > 10 * FRAME_NS:  # far behind (a stalled machine): resynchronise, never burst
                next_ns = now + FRAME_NS
            self.ticks += 1
            if self.remote is not None:
                with self._send_lock:
                    if self.hung_up_ns is None:
                        self._send()

    def _drain(self) -> None:
        while True:
            try:
                data, ancillary, _flags, addr = self.sock.recvmsg(2048, ANCILLARY)
            except (BlockingIOError, InterruptedError):
                return
            except OSError:
                return
            at = 0
            for level, kind, payload in ancillary:
                if level == socket.SOL_SOCKET and kind == SO_TIMESTAMPNS:
                    sec, nsec = TIMESPEC.unpack_from(payload)
                    at = sec * 1_000_000_000 + nsec
            if len(data) < 12 or data[0] >> 6 != 2:
                continue
            if self.remote is None:
                self.remote = (addr[0], addr[1])
            cc = data[0] & 0x0F
            seq, ts = struct.unpack_from("!HI", data, 2)
            self.received.append(Received(at or time.time_ns(), seq, ts, data[1] & 0x7F, data[12 + 4 * cc :]))

    def _send(self) -> None:
        with self._said:
            speaking = bool(self._speech)
            payload, finished = self._speech.popleft() if speaking else (SILENCE, False)
        header = build_header(PCMU, self.sent == 0, self._seq, self._ts, self._ssrc)
        assert self.remote is not None
        with contextlib.suppress(OSError):
            self.sock.sendto(header + payload, self.remote)
        now = time.time_ns()
        self.sent += 1
        self._seq = (self._seq + 1) & 0xFFFF
        self._ts = (self._ts + FRAME_SAMPLES) & 0xFFFFFFFF
        if speaking:
            if self._line_first is None:
                self._line_first, self._line_frames = now, 0
            self._line_frames += 1
            if finished:
                with self._said:
                    self.lines.append(Said(self._line_first, now, self._line_frames))
                    self._line_first = None
                    self._said.notify_all()


def hang_up_when_ended(proc: subprocess.Popen[bytes], peer: RtpPeer) -> threading.Thread:
    """A thread that hangs `peer` up once `proc` (the caller's sipp, which exits when its call has ended) exits."""
    def watch() -> None:
        proc.wait()
        peer.hang_up()

    thread = threading.Thread(target=watch, name=f"hang-up-{peer.port}", daemon=True)
    thread.start()
    return thread
