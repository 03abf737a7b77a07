"""The simulated PBX's RTP side: one UDP socket per externalMedia channel and ONE pacing loop for all calls.

Each `RtpPeer` plays Asterisk's end of an externalMedia channel: while its call is bridged and answered, the
`MediaPacer` makes it send one 20 ms frame (caller speech when queued, else a pre-encoded silence frame) to the
daemon's `external_host`; everything the daemon sends back is parsed and recorded on the call. No per-packet
logging; the loop is cheap enough for hundreds of calls on two cores.
"""

from __future__ import annotations

import asyncio
import random
import socket
from typing import TYPE_CHECKING

from ai_operator.background import BackgroundTask
from ai_operator.logs import get_logger
from ai_operator.media.codecs import Codec, get_codec
from ai_operator.media.frames import FRAME_S, FRAME_SAMPLES
from ai_operator.media.rtp import SEQ_MOD, TS_MOD, RtpError, RtpPacket, build_header

if TYPE_CHECKING:
    from ai_operator.sim.pbx.call import SimCall

MAX_LAG_S = 0.2  # further behind than this, the pacer re-synchronises instead of bursting
log = get_logger("simpbx")


class _Protocol(asyncio.DatagramProtocol):
    def __init__(self, peer: RtpPeer) -> None:
        self.peer = peer

    def datagram_received(self, data: bytes, addr: tuple[str, int]) -> None:
        self.peer.on_datagram(data, addr)


class RtpPeer:
    """Asterisk's RTP endpoint for one externalMedia channel."""

    def __init__(self, codec_name: str, remote: tuple[str, int]) -> None:
        self.codec: Codec = get_codec(codec_name)
        self.remote = remote
        self.transport: asyncio.DatagramTransport | None = None
        self.local: tuple[str, int] = ("127.0.0.1", 0)
        self.call: SimCall | None = None
        self.ssrc = random.getrandbits(32)
        self.seq = random.getrandbits(16)
        self.ts = random.getrandbits(32)
        self.first = True
        self.sent = 0
        self.rejected = 0  # datagrams that were not RTP
        self.unattached = 0  # RTP received while no call was bridged
        self._silence = self.codec.silence_payload()

    async def open(self, host: str = "127.0.0.1") -> None:
        loop = asyncio.get_running_loop()
        transport, _ = await loop.create_datagram_endpoint(lambda: _Protocol(self), local_addr=(host, 0))
        self.transport = transport
        self.local = transport.get_extra_info("sockname")[:2]

    def close(self) -> None:
        if self.transport is not None:
            self.transport.close()
            self.transport = None

    @property
    def is_open(self) -> bool:
        return self.transport is not None

    def on_datagram(self, data: bytes, addr: tuple[str, int]) -> None:
        try:
            packet = RtpPacket.parse(data)
        except RtpError:
            self.rejected += 1
            return
        if self.call is None:
            self.unattached += 1
            return
        self.call.heard(packet)

    def tick(self) -> None:
        """Send one 20 ms frame to the daemon."""
        call = self.call
        if call is None or self.transport is None:
            return
        pcm = call.next_frame()
        payload = self._silence if pcm is None else self.codec.encode(pcm)
        header = build_header(self.codec.payload_type, self.first, self.seq, self.ts, self.ssrc)
        self.transport.sendto(header + payload, self.remote)
        self.first = False
        self.seq = (self.seq + 1) % SEQ_MOD
        self.ts = (self.ts + FRAME_SAMPLES) % TS_MOD
        self.sent += 1
        if self.sent == 1:
            call.media_started()

    def send_raw(self, data: bytes, from_foreign: bool = False) -> None:
        """Send arbitrary bytes to the daemon, from this socket or from a throw-away foreign socket."""
        if not from_foreign and self.transport is not None:
            self.transport.sendto(data, self.remote)
            return
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
            sock.bind(("127.0.0.1", 0))
            sock.sendto(data, self.remote)


class MediaPacer:
    """One loop, one 20 ms tick, every active peer sends one frame per tick."""

    def __init__(self) -> None:
        self.active: set[RtpPeer] = set()
        self.ticks = 0
        self._task = BackgroundTask(self._run, "simpbx-pacer")

    def start(self) -> None:
        self._task.start()

    async def stop(self) -> None:
        await self._task.stop()

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
            self.ticks += 1
            for peer in list(self.active):
                try:
                    peer.tick()
                except Exception as exc:  # one broken peer must not stop everyone's media
                    self.active.discard(peer)
                    log.error("simpbx_rtp_send_failed", error=str(exc))
