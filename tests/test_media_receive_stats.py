"""RFC 3550 receive statistics where packets arrive: the figures (`media/rtpstats.py`) against hand-computed values,
then each call's endpoint over real UDP on 127.0.0.1 (ports from the OS), drained by the daemon's `RtpReceiver`
or read when readable: loss, reorder, duplicates, a wrapped sequence number, a second source, jitter."""

from __future__ import annotations

import select
import socket
import time

import pytest

from ai_operator.media.codecs import get_codec
from ai_operator.media.rtp import build_header
from ai_operator.media.rtpstats import EndpointReceiveStats, ReceiveFigures, ReceiveStats
from ai_operator.media.transport import PortAllocator, RtpEndpoint, RtpReceiver, RtpStats
from tests.support.ports import free_udp_range
from tests.support.wait import eventually

HOST = "127.0.0.1"
MS = 1_000_000  # ns
# 65534, 65535, then 1 (0 late), 0 (reordered), 1 again (duplicate), 4 (2 and 3 never come)
WRAPPING_SEQS = (65534, 65535, 1, 0, 1, 4)
# received 6; extended highest 65536 + 4; expected 65540 - 65534 + 1 = 7; lost 7 - 6 = 1 (2 missing, 1 duplicate)
WRAPPING_FIGURES = ReceiveFigures(packets_received=6, packets_expected=7, packets_lost=1, jitter_ms=0.0)


def test_loss_reorder_duplicate_across_the_sequence_wrap() -> None:
    stats = ReceiveStats()
    for seq in WRAPPING_SEQS:
        stats.add(seq, 0, 0)  # one timestamp, one arrival: no jitter sample
    assert (stats.packets_received, stats.packets_expected, stats.packets_lost) == (6, 7, 1)
    assert stats.cycles == 1 << 16 and stats.max_seq == 4 and stats.jitter == 0


def test_jitter_is_rfc3550_a8_in_q4_fixed_point() -> None:
    """20 ms packets (160 units); the third arrives 10 ms late. Arrivals in units 0, 160, 400, 480, 640 against
    timestamps 0, 160, 320, 480, 640: D = 0, 80, -80, 0. J16 += |D| - ((J16 + 8) >> 4): 0, 80, 155, 145;
    jitter = 145 >> 4 = 9 units = 1.125 ms."""
    stats = ReceiveStats()
    for i, arrival_ms in enumerate((0, 20, 50, 60, 80)):
        stats.add(i, 160 * i, arrival_ms * MS)
    assert stats.jitter == 9 and stats.jitter_ms == 1.125
    assert stats.packets_lost == 0


def test_a_second_source_is_not_loss_and_the_worst_jitter_is_kept() -> None:
    stats = EndpointReceiveStats()
    for i in range(3):  # source A: steady, no jitter
        stats.add(0xA, 10 + i, 160 * i, 20 * i * MS)
    for i, arrival_ms in enumerate((0, 20, 50, 60, 80)):  # source B starts its own numbering: 9 units of jitter
        stats.add(0xB, 5000 + i, 90_000 + 160 * i, (1000 + arrival_ms) * MS)
    stats.add(0xA, 13, 480, 2000 * MS)  # back to A: its own counts go on (no gap, but 1940 ms late)
    # A: D = (16000 - 320) - (480 - 320) = 15520 -> J16 = 15520 -> 970 units (121.25 ms); B: 9 units
    assert stats.sources == 2
    assert stats.figures() == ReceiveFigures(packets_received=9, packets_expected=9, packets_lost=0,
                                             jitter_ms=970 / 8)


def test_sources_past_the_cap_are_counted_apart() -> None:
    stats = EndpointReceiveStats()
    for ssrc in range(EndpointReceiveStats.MAX_SOURCES + 2):
        stats.add(ssrc, 1, 0, 0)
    assert stats.sources == EndpointReceiveStats.MAX_SOURCES and stats.ignored == 2
    assert stats.figures().packets_received == EndpointReceiveStats.MAX_SOURCES


def _udp() -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    s.bind((HOST, 0))
    return s


async def _endpoint(drained: bool, totals: RtpStats) -> tuple[RtpEndpoint, RtpReceiver | None]:
    base = free_udp_range(4)
    receiver = RtpReceiver() if drained else None
    codec = get_codec("ulaw")
    ep = await RtpEndpoint.open(PortAllocator(HOST, base, base + 3), codec, lambda _pcm: None, receiver=receiver,
                                totals=totals)
    return ep, receiver


async def _received(ep: RtpEndpoint, receiver: RtpReceiver | None, n: int) -> None:
    async def arrived() -> bool:
        if receiver is not None and select.select([ep._sock], [], [], 0)[0]:
            receiver.drain()
        return ep.stats.received >= n

    await eventually(arrived, what=f"{n} packets received")


@pytest.mark.parametrize("drained", [True, False], ids=["receiver", "when-readable"])
async def test_an_endpoint_counts_loss_reorder_and_duplicates_of_its_own_call(drained: bool) -> None:
    totals = RtpStats()
    ep, receiver = await _endpoint(drained, totals)
    asterisk, stranger = _udp(), _udp()
    try:
        ep.set_remote(*asterisk.getsockname())
        payload = get_codec("ulaw").silence_payload()
        for seq in WRAPPING_SEQS:
            asterisk.sendto(build_header(0, False, seq, 160 * 7, 0x5EED) + payload, ep.local_address)
        stranger.sendto(build_header(0, False, 30_000, 0, 0x5EED) + payload, ep.local_address)  # not counted
        asterisk.sendto(build_header(8, False, 30_001, 0, 0x5EED) + payload, ep.local_address)  # wrong payload type
        await _received(ep, receiver, len(WRAPPING_SEQS))
        await eventually(lambda: ep.stats.dropped_foreign == 1 and ep.stats.dropped_wrong_pt == 1, what="drops")
        assert ep.receive_stats.figures() == WRAPPING_FIGURES
        assert totals.received == 6 and totals.dropped_foreign == 1 and totals.dropped_wrong_pt == 1
    finally:
        ep.close()
        if receiver is not None:
            receiver.close()
        asterisk.close()
        stranger.close()


@pytest.mark.parametrize("drained", [True, False], ids=["receiver", "when-readable"])
async def test_an_endpoint_measures_jitter_from_the_kernel_arrival_times(drained: bool) -> None:
    """Two packets sent back to back whose timestamps are an hour apart: D = (arrival gap) - 28,800,000 units,
    so jitter = |D| >> 4 = 1,800,000 units (225 s) less the arrival gap / 16, and the arrival gap is at most the
    time from the first send until both were handled (measured here, never assumed)."""
    hour = 8000 * 3600
    ep, receiver = await _endpoint(drained, RtpStats())
    asterisk = _udp()
    try:
        ep.set_remote(*asterisk.getsockname())
        payload = get_codec("ulaw").silence_payload()
        started = time.time_ns()
        asterisk.sendto(build_header(0, False, 1, 0, 7) + payload, ep.local_address)
        asterisk.sendto(build_header(0, False, 2, hour, 7) + payload, ep.local_address)
        await _received(ep, receiver, 2)
        gap_units = (time.time_ns() - started) * 8000 // 1_000_000_000 + 1
        figures = ep.receive_stats.figures()
        assert (figures.packets_received, figures.packets_lost) == (2, 0)
        assert (hour - gap_units) >> 4 <= figures.jitter_ms * 8 <= hour >> 4
    finally:
        ep.close()
        if receiver is not None:
            receiver.close()
        asterisk.close()


@pytest.mark.parametrize("drained", [True, False], ids=["receiver", "when-readable"])
async def test_an_endpoint_follows_a_source_switch_and_back(drained: bool) -> None:
    """Asterisk changes SSRC mid-call and back: each source keeps its own numbering (the endpoint's shortcut to
    the source heard last must follow every switch), so nothing counts as loss."""
    ep, receiver = await _endpoint(drained, RtpStats())
    asterisk = _udp()
    try:
        ep.set_remote(*asterisk.getsockname())
        payload = get_codec("ulaw").silence_payload()
        sent = [(0xA, 100), (0xA, 101), (0xB, 7000), (0xB, 7001), (0xB, 7002), (0xA, 102), (0xB, 7003)]
        for ssrc, seq in sent:
            asterisk.sendto(build_header(0, False, seq, 160 * seq, ssrc) + payload, ep.local_address)
        await _received(ep, receiver, len(sent))
        assert ep.receive_stats.sources == 2
        figures = ep.receive_stats.figures()
        assert (figures.packets_received, figures.packets_expected, figures.packets_lost) == (7, 7, 0)
    finally:
        ep.close()
        if receiver is not None:
            receiver.close()
        asterisk.close()
