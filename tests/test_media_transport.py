"""RtpEndpoint and PortAllocator over real UDP sockets on 127.0.0.1."""

from __future__ import annotations

import asyncio
import socket

import numpy as np
import pytest

from ai_operator.media.codecs import FRAME_SAMPLES, get_codec
from ai_operator.media.rtp import RtpPacket, build_header
from ai_operator.media.transport import NoFreePort, PortAllocator, RtpEndpoint
from tests.support.wait import eventually

HOST = "127.0.0.1"
BASE_PORT = 46310


def _udp() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((HOST, 0))
    s.setblocking(False)
    return s


async def test_good_packets_are_decoded_foreign_and_garbage_dropped() -> None:
    codec = get_codec("ulaw")
    frames: list[np.ndarray] = []
    alloc = PortAllocator(HOST, BASE_PORT, BASE_PORT + 9)
    ep = await RtpEndpoint.open(alloc, codec, frames.append)
    asterisk, stranger = _udp(), _udp()
    try:
        assert ep.local_address[0] == HOST and BASE_PORT <= ep.local_address[1] <= BASE_PORT + 9
        pcm = (np.sin(np.arange(FRAME_SAMPLES) / 5) * 8000).astype(np.int16)
        good = build_header(0, True, 1, 160, 42) + codec.encode(pcm)
        asterisk.sendto(good, ep.local_address)  # before set_remote: foreign
        await eventually(lambda: ep.stats.dropped_foreign == 1, what="the foreign packet dropped")

        ep.set_remote(*asterisk.getsockname())
        asterisk.sendto(good, ep.local_address)
        stranger.sendto(good, ep.local_address)
        asterisk.sendto(b"\x00garbage-not-rtp", ep.local_address)
        asterisk.sendto(build_header(8, False, 2, 320, 42) + bytes(160), ep.local_address)  # wrong PT
        asterisk.sendto(build_header(0, False, 3, 480, 42) + bytes(80), ep.local_address)  # short payload
        # full-parse path: a CSRC-carrying packet is still good
        asterisk.sendto(RtpPacket(0, 4, 640, 42, codec.encode(pcm), csrc=[7]).serialize(), ep.local_address)
        await eventually(lambda: ep.stats.received == 2 and ep.stats.dropped_wrong_size == 1, what="two received, one of the wrong size")
        await eventually(lambda: ep.stats.dropped_foreign == 2 and ep.stats.dropped_malformed == 1,
                         what="the foreign and malformed ones dropped")
        assert ep.stats.dropped_wrong_pt == 1
        assert len(frames) == 2
        expected = codec.decode(codec.encode(pcm))
        for f in frames:
            assert f.dtype == np.int16 and np.array_equal(f, expected)
    finally:
        ep.close()
        asterisk.close()
        stranger.close()


async def test_send_frame_reaches_remote_and_is_noop_before_set_remote() -> None:
    alloc = PortAllocator(HOST, BASE_PORT + 10, BASE_PORT + 19)
    ep = await RtpEndpoint.open(alloc, get_codec("slin"), lambda f: None)
    peer = _udp()
    try:
        ep.send_frame(b"dropped")  # no remote yet
        assert ep.stats.sent == 0
        ep.set_remote(*peer.getsockname())
        ep.send_frame(b"hello-rtp")
        loop = asyncio.get_running_loop()
        data, addr = await asyncio.wait_for(loop.sock_recvfrom(peer, 2048), 2)
        assert data == b"hello-rtp"
        assert addr == ep.local_address  # symmetric: we send from the port we receive on
        assert ep.stats.sent == 1
    finally:
        ep.close()
        peer.close()


async def test_slin_frames_decode_big_endian() -> None:
    codec = get_codec("slin")
    got: list[np.ndarray] = []
    ep = await RtpEndpoint.open(PortAllocator(HOST, BASE_PORT + 20, BASE_PORT + 29), codec, got.append)
    peer = _udp()
    try:
        ep.set_remote(*peer.getsockname())
        pcm = np.arange(FRAME_SAMPLES, dtype=np.int16) * 100
        peer.sendto(build_header(11, False, 1, 0, 5) + pcm.astype(">i2").tobytes(), ep.local_address)
        await eventually(lambda: len(got) == 1, what="the frame delivered")
        assert np.array_equal(got[0], pcm)
    finally:
        ep.close()
        peer.close()


async def test_port_released_on_close_and_reusable() -> None:
    alloc = PortAllocator(HOST, BASE_PORT + 30, BASE_PORT + 30)
    ep = await RtpEndpoint.open(alloc, get_codec("ulaw"), lambda f: None)
    port = ep.local_address[1]
    with pytest.raises(NoFreePort, match=str(BASE_PORT + 30)):
        await RtpEndpoint.open(alloc, get_codec("ulaw"), lambda f: None)
    ep.close()
    ep.close()  # idempotent
    await eventually(lambda: alloc.in_use == 0, what="the port released")
    ep2 = await RtpEndpoint.open(alloc, get_codec("ulaw"), lambda f: None)
    assert ep2.local_address[1] == port
    ep2.close()


async def test_allocator_round_robin_skips_ports_held_by_others() -> None:
    blocker = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    blocker.bind((HOST, BASE_PORT + 41))
    alloc = PortAllocator(HOST, BASE_PORT + 40, BASE_PORT + 43)
    eps = []
    try:
        for _ in range(3):
            eps.append(await RtpEndpoint.open(alloc, get_codec("ulaw"), lambda f: None))
        ports = [e.local_address[1] for e in eps]
        assert ports == [BASE_PORT + 40, BASE_PORT + 42, BASE_PORT + 43]
        with pytest.raises(NoFreePort):
            await RtpEndpoint.open(alloc, get_codec("ulaw"), lambda f: None)
        eps[0].close()
        await eventually(lambda: alloc.in_use == 2, what="the first port released")
        eps[0] = await RtpEndpoint.open(alloc, get_codec("ulaw"), lambda f: None)
        assert eps[0].local_address[1] == BASE_PORT + 40  # round-robin wrapped round to the freed port
    finally:
        for e in eps:
            e.close()
        blocker.close()


def test_allocator_and_remote_validation() -> None:
    with pytest.raises(ValueError, match="port range"):
        PortAllocator(HOST, 2000, 1000)


async def test_broken_consumer_does_not_stop_reception() -> None:
    calls = []

    def bad(frame: np.ndarray) -> None:
        calls.append(1)
        raise RuntimeError("consumer bug")

    ep = await RtpEndpoint.open(PortAllocator(HOST, BASE_PORT + 50, BASE_PORT + 51), get_codec("ulaw"), bad)
    peer = _udp()
    try:
        ep.set_remote(*peer.getsockname())
        for seq in range(3):
            peer.sendto(build_header(0, False, seq, 0, 1) + bytes(160), ep.local_address)
        await eventually(lambda: len(calls) == 3, what="three calls")
        assert ep.stats.received == 3
        with pytest.raises(ValueError, match="port"):
            ep.set_remote(HOST, 0)
    finally:
        ep.close()
        peer.close()
