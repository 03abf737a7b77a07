"""The benchmark callers' side of the simulated PBX's RTP: a peer that records what it receives with the kernel's
timestamps, and a pacer that notes how many packets the callers have sent.

`RecordingPeer` replaces `RtpPeer` (through `PbxCore.peer_factory`). It reads its socket with `recvmsg`: each
datagram from the daemon is kept as a capture record with the kernel's receive time (`SO_TIMESTAMPNS`), so a
late event loop in this process does not change what is measured; `SO_RXQ_OVFL` reports datagrams the kernel
dropped because this process read too slowly (the run is then invalid: the load generator's fault, not the
daemon's). Caller speech is queued as encoded payloads; when a line's first and last speech frame left the
socket is noted (monotonic ns, right after `sendto`). `CountingPacer` is the PBX's pacing loop that also
notes, after each tick, the packets all callers have sent so far and how late the tick started.
"""

from __future__ import annotations

import asyncio
import socket
import struct
import time
from collections import deque
from collections.abc import Sequence

from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.media.rtp import SEQ_MOD, TS_MOD, build_header
from ai_operator.sim.pbx.rtp_peer import FRAME_S, MAX_LAG_S, MediaPacer, RtpPeer, log
from benchmarks.capture import record

SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux; Python does not name these two
SO_RXQ_OVFL = getattr(socket, "SO_RXQ_OVFL", 40)
TIMESPEC = struct.Struct("@qq")
DROP_COUNT = struct.Struct("@I")
ANCILLARY_SIZE = socket.CMSG_SPACE(TIMESPEC.size) + socket.CMSG_SPACE(DROP_COUNT.size)
RECEIVE_SIZE = 2048
RECEIVE_BUFFER_BYTES = 1 << 20
NS_PER_S = 1_000_000_000


class SendTally:
    """Packets sent by every peer of this process (read by the pacer after each tick)."""

    sent = 0
    send_errors = 0
    unstamped = 0  # datagrams that came without a kernel timestamp (stamped on reading instead)


class RecordingPeer(RtpPeer):
    """Asterisk's end of one externalMedia channel, recording everything it receives."""

    def __init__(self, codec_name: str, remote: tuple[str, int]) -> None:
        super().__init__(codec_name, remote)
        self.sock: socket.socket | None = None
        self.capture = bytearray()
        self.received = 0
        self.drops = 0  # the kernel's count of datagrams dropped on this socket (SO_RXQ_OVFL)
        self.lines: list[tuple[int, int]] = []
        self._speech: deque[bytes] = deque()
        self._line_start: int | None = None
        self._said: asyncio.Future[tuple[int, int]] | None = None
        self._want: tuple[int, asyncio.Future[None]] | None = None

    async def open(self, host: str = "127.0.0.1") -> None:
        sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        try:
            sock.setblocking(False)
            sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
            sock.setsockopt(socket.SOL_SOCKET, SO_RXQ_OVFL, 1)
            sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER_BYTES)
            sock.bind((host, 0))
        except OSError:
            sock.close()
            raise
        self.local = sock.getsockname()[:2]
        self.sock = sock
        asyncio.get_running_loop().add_reader(sock.fileno(), self._drain)

    def close(self) -> None:
        sock, self.sock = self.sock, None
        if sock is not None:
            self._drain_socket(sock)  # whatever the kernel already holds is part of the capture
            asyncio.get_running_loop().remove_reader(sock.fileno())
            sock.close()

    @property
    def is_open(self) -> bool:
        return self.sock is not None

    def _drain(self) -> None:
        if self.sock is not None:
            self._drain_socket(self.sock)

    def _drain_socket(self, sock: socket.socket) -> None:
        capture = self.capture
        while True:
            try:
                data, ancillary, _flags, _addr = sock.recvmsg(RECEIVE_SIZE, ANCILLARY_SIZE)
            except (BlockingIOError, InterruptedError):
                break
            except OSError:
                break
            at = 0
            for level, kind, payload in ancillary:
                if level != socket.SOL_SOCKET:
                    continue
                if kind == SO_TIMESTAMPNS:
                    sec, nsec = TIMESPEC.unpack_from(payload)
                    at = sec * NS_PER_S + nsec
                elif kind == SO_RXQ_OVFL:
                    self.drops = DROP_COUNT.unpack_from(payload)[0]
            if not at:
                SendTally.unstamped += 1
                at = time.time_ns()
            capture += record(at, data)
            self.received += 1
        want = self._want
        if want is not None and self.received >= want[0]:
            self._want = None
            if not want[1].done():
                want[1].set_result(None)

    def until_received(self, count: int) -> asyncio.Future[None]:
        """Resolved once this peer has received `count` packets in all."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        if self.received >= count:
            fut.set_result(None)
        else:
            self._want = (count, fut)
        return fut

    def speak(self, payloads: Sequence[bytes]) -> asyncio.Future[tuple[int, int]]:
        """Queue one line (encoded 20 ms payloads); resolved with (first, last) frame send times."""
        self._speech.extend(payloads)
        self._said = asyncio.get_running_loop().create_future()
        return self._said

    def tick(self) -> None:
        call, sock = self.call, self.sock
        if call is None or sock is None:
            return
        speaking = bool(self._speech)
        payload = self._speech.popleft() if speaking else self._silence
        header = build_header(self.codec.payload_type, self.first, self.seq, self.ts, self.ssrc)
        try:
            sock.sendto(header + payload, self.remote)
        except OSError:
            SendTally.send_errors += 1
        if speaking:
            now = time.monotonic_ns()
            if self._line_start is None:
                self._line_start = now
            if not self._speech:
                line = (self._line_start, now)
                self.lines.append(line)
                self._line_start = None
                if self._said is not None and not self._said.done():
                    self._said.set_result(line)
        self.first = False
        self.seq = (self.seq + 1) % SEQ_MOD
        self.ts = (self.ts + FRAME_SAMPLES) % TS_MOD
        self.sent += 1
        SendTally.sent += 1
        if self.sent == 1:
            call.media_started()


class CountingPacer(MediaPacer):
    """The PBX's pacing loop, noting (monotonic ns after the tick, packets sent so far) and each tick's lateness."""

    def __init__(self) -> None:
        super().__init__()
        self.sent_log: list[tuple[int, int]] = []
        self.lateness_ms: list[float] = []

    async def _run(self) -> None:
        loop = asyncio.get_running_loop()
        next_t = loop.time()
        while True:
            next_t += FRAME_S
            delay = next_t - loop.time()
            if delay > 0:
                await asyncio.sleep(delay)
            elif delay < -MAX_LAG_S:
                next_t = loop.time()
            self.lateness_ms.append((loop.time() - next_t) * 1000)
            self.ticks += 1
            for peer in list(self.active):
                try:
                    peer.tick()
                except Exception as exc:
                    self.active.discard(peer)
                    log.error("simpbx_rtp_send_failed", error=str(exc))
            self.sent_log.append((time.monotonic_ns(), SendTally.sent))
