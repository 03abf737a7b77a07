"""Tick-driven receive: every call's socket in one `RtpReceiver`, read only when the pacer's tick drains it, after
that tick's frames went out. Real UDP sockets on 127.0.0.1, ports from the OS."""

from __future__ import annotations

import asyncio
import socket
import time
from collections.abc import Callable

import numpy as np

from ai_operator.media.codecs import FRAME_SAMPLES, get_codec
from ai_operator.media.pacer import Pacer
from ai_operator.media.playout import PlayoutStream
from ai_operator.media.rtp import build_header
from ai_operator.media.transport import PortAllocator, RtpEndpoint, RtpReceiver
from tests.support.wait import eventually

HOST = "127.0.0.1"


def _udp() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((HOST, 0))
    return s


def _ports(n: int) -> PortAllocator:
    """A range of `n` ports starting at one the OS hands out (the allocator skips any taken meanwhile)."""
    with _udp() as probe:
        base = min(probe.getsockname()[1], 65535 - n)
    return PortAllocator(HOST, base, base + n - 1)


async def _queued(sock: socket.socket) -> bool:
    """True once `sock` has a datagram waiting (the kernel has delivered what was sent)."""
    import select

    return bool(select.select([sock], [], [], 0)[0])


async def test_datagrams_wait_for_drain_and_digital_silence_is_not_decoded() -> None:
    codec = get_codec("ulaw")
    receiver = RtpReceiver()
    audio: dict[int, list[np.ndarray]] = {0: [], 1: []}
    silent = {0: 0, 1: 0}
    alloc = _ports(20)

    def count_silence(i: int) -> Callable[[], None]:
        return lambda: silent.__setitem__(i, silent[i] + 1)

    eps = [await RtpEndpoint.open(alloc, codec, audio[i].append, receiver=receiver, on_silence=count_silence(i))
           for i in (0, 1)]
    peers = [_udp(), _udp()]
    try:
        assert len(receiver) == 2
        for ep, peer in zip(eps, peers, strict=True):
            ep.set_remote(*peer.getsockname())
        tone = codec.encode((np.sin(np.arange(FRAME_SAMPLES) / 3) * 6000).astype(np.int16))
        for seq in range(3):
            peers[0].sendto(build_header(0, False, seq, 0, 1) + tone, eps[0].local_address)
            peers[1].sendto(build_header(0, False, seq, 0, 2) + codec.silence_payload(), eps[1].local_address)
        await eventually(lambda: _queued(eps[0]._sock), what="datagrams queued")
        await eventually(lambda: _queued(eps[1]._sock), what="datagrams queued")
        await asyncio.sleep(0)  # give the loop a pass: nothing reads a receiver's sockets but its drain
        assert audio[0] == [] and silent[1] == 0 and eps[0].stats.received == 0

        def all_read() -> bool:  # the kernel may still be delivering the last ones
            receiver.drain()
            return eps[0].stats.received + eps[1].stats.received >= 6

        await eventually(all_read, what="all six datagrams read")
        assert len(audio[0]) == 3 and silent == {0: 0, 1: 3} and audio[1] == []
        assert np.array_equal(audio[0][0], codec.decode(tone))
        assert eps[0].stats.received == 3 and eps[1].stats.received == 3
    finally:
        for ep in eps:
            ep.close()
        for p in peers:
            p.close()
    assert len(receiver) == 0 and receiver.drain() == 0 and alloc.in_use == 0


async def test_a_backlog_is_read_a_few_per_tick_so_sends_are_not_held_back() -> None:
    codec = get_codec("ulaw")
    receiver = RtpReceiver()
    frames: list[np.ndarray] = []
    ep = await RtpEndpoint.open(_ports(4), codec, frames.append, receiver=receiver)
    peer = _udp()
    try:
        ep.set_remote(*peer.getsockname())
        backlog = 3 * RtpReceiver.MAX_ROUNDS
        for seq in range(backlog):
            peer.sendto(build_header(0, False, seq, 0, 1) + bytes(160), ep.local_address)
        await eventually(lambda: _queued(ep._sock), what="datagrams queued")
        reads: list[int] = []

        def backlog_read() -> bool:
            reads.append(receiver.drain())
            return sum(reads) >= backlog

        await eventually(backlog_read, what="the backlog read")
        assert max(reads) <= RtpReceiver.MAX_ROUNDS and len(frames) == backlog
    finally:
        ep.close()
        peer.close()


async def test_the_pacer_reads_after_each_ticks_sends() -> None:
    order: list[str] = []
    codec = get_codec("ulaw")
    stream = PlayoutStream(codec, lambda packet: order.append("send"))
    stream.enqueue(np.full(FRAME_SAMPLES * 50, 1000, dtype=np.int16), "u")
    pacer = Pacer(receive=lambda: order.append("receive"), after_tick=lambda: order.append("after"))
    pacer.add(stream)
    await pacer.start()
    try:
        await eventually(lambda: order.count("after") >= 5, what="five ticks")
    finally:
        await pacer.stop()
    assert order[:9] == ["send", "receive", "after"] * 3


async def test_a_failing_receive_does_not_stop_the_pacer() -> None:
    sent: list[bytes] = []
    stream = PlayoutStream(get_codec("ulaw"), sent.append)
    stream.enqueue(np.full(FRAME_SAMPLES * 20, 1000, dtype=np.int16), "u")

    def broken() -> None:
        raise RuntimeError("receive bug")

    pacer = Pacer(receive=broken)
    pacer.add(stream)
    await pacer.start()
    try:
        await eventually(lambda: len(sent) >= 5, what="frames after failing receives")
    finally:
        await pacer.stop()
    assert pacer.receive_errors >= 4


async def test_each_drain_reports_how_long_the_oldest_unread_datagram_waited() -> None:
    codec = get_codec("ulaw")
    ages: list[float] = []
    receiver = RtpReceiver(on_age=ages.append)
    frames: list[np.ndarray] = []
    ep = await RtpEndpoint.open(_ports(4), codec, frames.append, receiver=receiver)
    peer = _udp()
    window: list[tuple[float, float]] = []  # (sent, read) of each round
    seq = 0
    try:
        ep.set_remote(*peer.getsockname())

        async def one_round() -> bool:
            # the kernel turns arrival stamping on through deferred work: the first datagrams may come unstamped
            nonlocal seq
            sent = time.time()
            peer.sendto(build_header(0, False, seq, 0, 1) + bytes(160), ep.local_address)
            seq += 1
            await eventually(lambda: _queued(ep._sock), what="datagram queued")
            got = receiver.drain()
            window.append((sent, time.time()))
            assert got == 1
            return bool(ages)

        await eventually(one_round, what="a stamped datagram")
    finally:
        ep.close()
        peer.close()
    assert len(frames) == seq and ep.stats.received == seq
    sent, read = window[-1]
    arrived = read - ages[-1]  # the arrival time the age implies lies between the send and the read
    assert sent - 0.001 <= arrived <= read
    assert len(ages) == 1  # one sample per drain at most, and an unstamped datagram gives none


async def test_a_step_over_its_slot_is_kept_with_where_its_time_went() -> None:
    """A receive that holds the loop 30 ms (on the pacer's clock) makes an overrun of the receive phase; steps that
    fit their slot are not kept. The fake clock moves 2 ms at every reading, and 30 ms in the slow receive."""
    now = [1000.0]
    slow = [False]

    def clock() -> float:
        now[0] += 0.002
        return now[0]

    def receive() -> None:
        if slow[0]:
            now[0] += 0.030
            slow[0] = False

    pacer = Pacer(receive=receive, clock=clock)
    await pacer.start()
    try:
        await eventually(lambda: pacer.ticks >= 3, what="three ticks")
        assert not pacer.overruns
        slow[0] = True
        await eventually(lambda: pacer.overruns, what="the slow step kept")
    finally:
        await pacer.stop()
    overrun = pacer.overruns[0]
    assert 0.030 <= overrun.receive < 0.040 and overrun.send < 0.010 and overrun.after < 0.010
    assert len(pacer.overruns) == 1 and overrun.cpu >= 0.0
