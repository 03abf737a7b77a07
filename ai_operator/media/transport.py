"""The UDP side of externalMedia: one socket per call, a port allocator, drop/receive counters, receive statistics.

This is the only socket code of the media path. `RtpEndpoint` receives Asterisk's RTP on a local port, keeps
only packets from the media address Asterisk told us (UNICASTRTP_LOCAL_ADDRESS/PORT), decodes good 20 ms frames
and hands them to `on_audio`; a frame that is exactly the codec's digital silence goes to `on_silence` instead,
undecoded, when one is given. Everything else is dropped and counted (never logged per packet).
`send_frame` sends ready-made RTP datagrams (built by the playout pacer) straight to that address.

Reading is batched: with an `RtpReceiver` (the daemon's: one epoll set for every call, drained by the pacer once
per 20 ms tick) there is no callback per datagram; an endpoint opened without one reads whenever its socket is
readable (`loop.add_reader`), everything queued at once. Once per drain the receiver reads one socket's first
datagram with its kernel arrival time (`SO_TIMESTAMPNS`) and reports how long it waited unread (`on_age`): the
age of the oldest unread caller audio, sampled every tick, for /metrics.

Every datagram is read with its kernel arrival stamp, so each endpoint keeps the RFC 3550 receive statistics of
its call (`receive_stats`: loss and interarrival jitter, `media/rtpstats.py`) from when packets arrived, not from
when a tick read them. The counters of all calls (`RtpStats`) belong to whoever opens the endpoints (the daemon's
services), never to the process.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import ipaddress
import select
import socket
import struct
import time
from collections.abc import Callable
from typing import Any

import numpy as np

from ai_operator.logs import get_logger
from ai_operator.media.codecs import Codec
from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.media.rtp import RTP_HEADER_SIZE, RtpError, RtpPacket
from ai_operator.media.rtpstats import EndpointReceiveStats

log = get_logger("media")

_PLAIN_V2 = 0x80  # first header byte of a version-2 packet without padding, extension or CSRC
RECEIVE_BUFFER_BYTES = 256 * 1024
SO_TIMESTAMPNS = getattr(socket, "SO_TIMESTAMPNS", 35)  # Linux's value; Python does not name it
_TIMESPEC = struct.Struct("@qq")
_SEQ_TS_SSRC = struct.Struct("!HII")  # bytes 2..11 of the fixed header
_ANCILLARY_BYTES = socket.CMSG_SPACE(_TIMESPEC.size)
_TIMESPEC_SIZE = _TIMESPEC.size
_unpack_timespec = _TIMESPEC.unpack_from
_SOL_SOCKET = socket.SOL_SOCKET


class NoFreePort(RuntimeError):
    """Every port of the configured range is taken."""


class PortAllocator:
    """Hands out UDP ports from [port_min, port_max] on `host`, round-robin, skipping ports in use."""

    def __init__(self, host: str, port_min: int, port_max: int) -> None:
        if not 0 < port_min <= port_max <= 65535:
            raise ValueError(f"RTP port range {port_min}..{port_max} is invalid (need 0 < min <= max <= 65535)")
        self.host = host
        self.port_min = port_min
        self.port_max = port_max
        self._next = port_min
        self._held: set[int] = set()

    @property
    def size(self) -> int:
        return self.port_max - self.port_min + 1

    @property
    def in_use(self) -> int:
        return len(self._held)

    def bind(self) -> socket.socket:
        """A non-blocking UDP socket bound to the next free port; raises `NoFreePort` when none is left."""
        for _ in range(self.size):
            port = self._next
            self._next = port + 1 if port < self.port_max else self.port_min
            if port in self._held:
                continue
            sock = socket.socket(socket.AF_INET6 if ":" in self.host else socket.AF_INET, socket.SOCK_DGRAM)
            try:
                sock.setblocking(False)
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RECEIVE_BUFFER_BYTES)
                with contextlib.suppress(OSError):  # arrival stamps: only for the receive-age sample
                    sock.setsockopt(socket.SOL_SOCKET, SO_TIMESTAMPNS, 1)
                sock.bind((self.host, port))
            except OSError as exc:
                sock.close()
                if exc.errno in (errno.EADDRINUSE, errno.EACCES):
                    continue  # someone else holds it: skip
                raise
            self._held.add(port)
            return sock
        raise NoFreePort(f"no free RTP port in {self.host}:{self.port_min}-{self.port_max} ({self.in_use} held by us)")

    def release(self, port: int) -> None:
        """Give `port` back (idempotent)."""
        self._held.discard(port)


class RtpStats:
    """Plain counters for one endpoint, or (passed to every endpoint as `totals`) for all of one daemon's calls."""

    __slots__ = ("dropped_foreign", "dropped_malformed", "dropped_wrong_pt", "dropped_wrong_size", "received", "sent")

    def __init__(self) -> None:
        self.received = 0
        self.sent = 0
        self.dropped_foreign = 0
        self.dropped_malformed = 0
        self.dropped_wrong_pt = 0
        self.dropped_wrong_size = 0

    def as_dict(self) -> dict[str, int]:
        return {name: getattr(self, name) for name in self.__slots__}


class RtpReceiver:
    """Every call's socket in one epoll set; `drain()` reads whatever is queued on any of them (the pacer calls it
    once per tick), so the event loop wakes once per 20 ms for all calls instead of once per datagram."""

    MAX_ROUNDS = 4  # more queued than this on a socket (after a stall): the rest is read at the next ticks

    def __init__(self, on_age: Callable[[float], None] | None = None) -> None:
        self._poller: Any = select.epoll() if hasattr(select, "epoll") else select.poll()
        self._by_fd: dict[int, RtpEndpoint] = {}
        self._on_age = on_age  # seconds the sampled socket's oldest datagram waited unread, once per drain
        self._turn = 0

    def __len__(self) -> int:
        return len(self._by_fd)

    def add(self, endpoint: RtpEndpoint, sock: socket.socket) -> None:
        fd = sock.fileno()
        self._poller.register(fd, select.POLLIN)
        self._by_fd[fd] = endpoint

    def remove(self, fd: int) -> None:
        if self._by_fd.pop(fd, None) is not None:
            self._poller.unregister(fd)

    def drain(self) -> int:
        """Read every queued datagram of every socket (one read per ready socket per round); returns how many."""
        poll, by_fd = self._poller.poll, self._by_fd
        n = 0
        for round_ in range(self.MAX_ROUNDS):
            ready = poll(0)
            if not ready:
                break
            if round_ == 0 and self._on_age is not None:
                self._turn = (self._turn + 1) % len(ready)
                n += self._read_aged(by_fd.get(ready[self._turn][0]))
                ready = ready[: self._turn] + ready[self._turn + 1 :]
            for fd, _mask in ready:
                endpoint = by_fd.get(fd)
                if endpoint is not None and endpoint.read_one_stamped() >= 0:
                    n += 1
        return n

    def _read_aged(self, endpoint: RtpEndpoint | None) -> int:
        if endpoint is None or self._on_age is None:
            return 0
        arrived_ns = endpoint.read_one_stamped()
        if arrived_ns < 0:
            return 0
        if arrived_ns > 0:
            self._on_age(max(0.0, (time.time_ns() - arrived_ns) / 1e9))
        return 1

    def close(self) -> None:
        self._by_fd.clear()
        if hasattr(self._poller, "close"):
            self._poller.close()


class RtpEndpoint:
    """One call's RTP socket."""

    def __init__(
        self,
        allocator: PortAllocator,
        codec: Codec,
        on_audio: Callable[[np.ndarray], None],
        sock: socket.socket,
        on_silence: Callable[[], None] | None = None,
        totals: RtpStats | None = None,
    ) -> None:
        self._allocator = allocator
        self.codec = codec
        self.on_audio = on_audio
        self.on_silence = on_silence
        self._silence = codec.silence_payload()
        self._payload_types = frozenset({codec.payload_type, *codec.accepted_payload_types})
        self._frame_bytes = codec.bytes_per_frame
        self.stats = RtpStats()
        self.totals = totals if totals is not None else RtpStats()  # the opener's counters of all its endpoints
        self.receive_stats = EndpointReceiveStats(SAMPLE_RATE)
        self._source_ssrc: int | None = None  # the source heard last, and its statistics' `add` (one call a packet)
        self._source_add: Callable[[int, int, int], None] | None = None
        self._sock = sock
        self._fd = sock.fileno()
        self.local_address: tuple[str, int] = sock.getsockname()[:2]
        self.remote: tuple[str, int] | None = None
        self._receiver: RtpReceiver | None = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._callback_errors = 0

    @classmethod
    async def open(
        cls,
        allocator: PortAllocator,
        codec: Codec,
        on_audio: Callable[[np.ndarray], None],
        *,
        on_silence: Callable[[], None] | None = None,
        receiver: RtpReceiver | None = None,
        totals: RtpStats | None = None,
    ) -> RtpEndpoint:
        """Bind a port from `allocator` and start receiving (drained by `receiver`, else when readable); counts
        go to the endpoint's own `stats` and to `totals` when given."""
        sock = allocator.bind()
        try:
            endpoint = cls(allocator, codec, on_audio, sock, on_silence, totals)
            if receiver is not None:
                receiver.add(endpoint, sock)
                endpoint._receiver = receiver
            else:
                endpoint._loop = asyncio.get_running_loop()
                endpoint._loop.add_reader(endpoint._fd, endpoint.drain)
        except BaseException:
            port = sock.getsockname()[1]
            sock.close()
            allocator.release(port)
            raise
        return endpoint

    def set_remote(self, host: str, port: int) -> None:
        """Where Asterisk sends from and receives our audio (UNICASTRTP_LOCAL_ADDRESS/PORT)."""
        if not 0 < int(port) <= 65535:
            raise ValueError(f"RTP remote port {port!r} outside 1..65535")
        try:
            host = str(ipaddress.ip_address(host))
        except ValueError:
            try:  # a name (rare: Asterisk reports an address); resolved once per call
                host = str(socket.getaddrinfo(host, port, type=socket.SOCK_DGRAM)[0][4][0])
            except socket.gaierror as exc:
                raise ValueError(f"RTP remote address {host!r}: {exc}") from None
        self.remote = (host, int(port))

    def read_one(self) -> int:
        """Read and handle one queued datagram; 1 if there was one."""
        return 0 if self.read_one_stamped() < 0 else 1

    def read_one_stamped(self) -> int:
        """Read and handle one queued datagram; its kernel arrival time (epoch ns; 0 when the kernel did not stamp
        it, and the read time stands in for the statistics), or -1 when nothing was queued (per datagram: no
        float, no None)."""
        try:
            data, ancillary, _flags, addr = self._sock.recvmsg(2048, _ANCILLARY_BYTES)
        except (BlockingIOError, InterruptedError):
            return -1
        except OSError as exc:
            self.socket_error(exc)
            return -1
        arrival_ns = 0
        if ancillary:  # SO_TIMESTAMPNS is the only ancillary data asked for
            level, kind, payload = ancillary[0]
            if level == _SOL_SOCKET and kind == SO_TIMESTAMPNS and len(payload) >= _TIMESPEC_SIZE:
                sec, nsec = _unpack_timespec(payload)
                arrival_ns = sec * 1_000_000_000 + nsec
        self.datagram_received(data, addr, arrival_ns or time.time_ns())
        return arrival_ns

    def socket_error(self, exc: OSError) -> None:
        if not self._closed:
            log.warning("rtp_socket_error", local_port=self.local_address[1], error=repr(exc))

    def drain(self) -> int:
        """Read and handle every queued datagram; returns how many."""
        n = 0
        while not self._closed and self.read_one():
            n += 1
        return n

    def datagram_received(self, data: bytes, addr: tuple[str | Any, int], arrival_ns: int) -> None:
        """One datagram that arrived at `arrival_ns` (epoch ns): only the remote's are kept (a stranger's are
        counted and dropped), checked, counted, fed to the receive statistics, and the audio handed on."""
        stats, totals = self.stats, self.totals
        remote = self.remote
        if addr != remote and (remote is None or addr[1] != remote[1] or addr[0] != remote[0]):  # IPv4: one test
            stats.dropped_foreign += 1
            totals.dropped_foreign += 1
            return
        codec = self.codec
        if len(data) > RTP_HEADER_SIZE and data[0] == _PLAIN_V2:  # fast path: no CSRC/extension/padding
            payload_type = data[1] & 0x7F
            payload = data[RTP_HEADER_SIZE:]
            seq, ts, ssrc = _SEQ_TS_SSRC.unpack_from(data, 2)
        else:
            try:
                packet = RtpPacket.parse(data)
            except RtpError:
                stats.dropped_malformed += 1
                totals.dropped_malformed += 1
                return
            payload_type = packet.payload_type
            payload = packet.payload
            seq, ts, ssrc = packet.sequence_number, packet.timestamp, packet.ssrc
        if payload_type not in self._payload_types:
            stats.dropped_wrong_pt += 1
            totals.dropped_wrong_pt += 1
            return
        if len(payload) != self._frame_bytes:
            stats.dropped_wrong_size += 1
            totals.dropped_wrong_size += 1
            return
        stats.received += 1
        totals.received += 1
        if ssrc == self._source_ssrc and self._source_add is not None:
            self._source_add(seq, ts, arrival_ns)
        else:
            self._new_source(ssrc, seq, ts, arrival_ns)
        try:
            on_silence = self.on_silence
            if on_silence is not None and payload == self._silence:  # digital silence: nothing to decode
                on_silence()
            else:
                self.on_audio(codec.decode(payload))
        except Exception as exc:  # a broken consumer must not kill the socket; say so once
            self._callback_errors += 1
            if self._callback_errors == 1:
                log.error("rtp_on_audio_failed", local_port=self.local_address[1], error=repr(exc))

    def _new_source(self, ssrc: int, seq: int, ts: int, arrival_ns: int) -> None:
        source = self.receive_stats.source(ssrc)
        self._source_ssrc, self._source_add = (ssrc, source.add) if source is not None else (None, None)
        if source is not None:
            source.add(seq, ts, arrival_ns)

    def send_frame(self, packet: bytes) -> None:
        """Send one RTP datagram to the remote; a no-op before `set_remote` or after `close`."""
        remote = self.remote
        if remote is None or self._closed:
            return
        self._sock.sendto(packet, remote)
        self.stats.sent += 1
        self.totals.sent += 1

    @property
    def closed(self) -> bool:
        return self._closed

    def close(self) -> None:
        """Close the socket and release the port (idempotent)."""
        if self._closed:
            return
        self._closed = True
        if self._receiver is not None:
            self._receiver.remove(self._fd)
        elif self._loop is not None and not self._loop.is_closed():
            self._loop.remove_reader(self._fd)
        self._sock.close()
        self._allocator.release(self.local_address[1])
