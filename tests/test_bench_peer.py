"""The benchmark callers' RTP endpoint over real loopback UDP: kernel receive timestamps in the capture, the
speech of a line timed at the socket, and the daemon's /metrics parsed for the packets it read."""

from __future__ import annotations

import socket
import time

from ai_operator.media.rtp import build_header
from ai_operator.ops.metrics import Metrics
from benchmarks.bench_peer import RecordingPeer, SendTally
from benchmarks.caller_proc import packets_read
from benchmarks.capture import parse_packets
from tests.support.wait import eventually


class _Call:
    """The part of a SimCall a peer talks to."""

    def __init__(self) -> None:
        self.media = 0

    def media_started(self) -> None:
        self.media += 1


PROBE_SSRC = 55  # the warm-up datagrams, told apart from the test's own (77)


async def _arrival_stamping_on(peer: RecordingPeer, sender: socket.socket) -> None:
    """Wait until the kernel stamps datagrams on arrival. The first socket on a host that asks for timestamps turns
    arrival stamping on through a deferred kernel work item; until it runs, a datagram is stamped when it is read."""
    probes = 0

    async def stamped_on_arrival() -> bool:
        nonlocal probes
        probes += 1
        before = time.time_ns()
        sender.sendto(build_header(0, False, probes, 0, PROBE_SSRC) + b"\xff" * 160, peer.local)
        after = time.time_ns()
        await peer.until_received(probes)
        last = parse_packets(peer.capture)["t"].tolist()[-1]
        return before <= last <= after

    await eventually(stamped_on_arrival, what="the kernel stamping datagrams on arrival")


async def test_received_packets_carry_kernel_timestamps_and_their_headers() -> None:
    peer = RecordingPeer("ulaw", ("127.0.0.1", 9))
    await peer.open()
    try:
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sender:
            await _arrival_stamping_on(peer, sender)
            probes = peer.received
            before = time.time_ns()
            for i in range(5):
                sender.sendto(build_header(0, i == 0, 100 + i, 8000 + 160 * i, 77) + b"\xff" * 160, peer.local)
            after = time.time_ns()
            await peer.until_received(probes + 5)
        packets = parse_packets(peer.capture)[probes:]
    finally:
        peer.close()
    assert packets["seq"].tolist() == [100, 101, 102, 103, 104] and set(packets["ssrc"].tolist()) == {77}
    assert packets["length"].tolist() == [172] * 5 and (packets["b1"] >> 7).tolist() == [1, 0, 0, 0, 0]
    assert all(before <= t <= after for t in packets["t"].tolist())  # stamped by the kernel on arrival
    assert SendTally.unstamped == 0 and peer.drops == 0


async def test_a_line_is_sent_one_frame_per_tick_and_timed_at_the_socket() -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as daemon:
        daemon.bind(("127.0.0.1", 0))
        daemon.settimeout(2)
        peer = RecordingPeer("ulaw", daemon.getsockname())
        await peer.open()
        peer.call = _Call()  # type: ignore[assignment]
        sent = SendTally.sent
        try:
            said = peer.speak([b"\x01" * 160, b"\x02" * 160, b"\x03" * 160])
            start = time.monotonic_ns()
            for _ in range(5):
                peer.tick()
            first, last = await said
            got = [daemon.recv(2048) for _ in range(5)]
        finally:
            peer.close()
    assert [g[12:13] for g in got] == [b"\x01", b"\x02", b"\x03", b"\xff", b"\xff"]  # speech, then silence
    assert start <= first <= last <= time.monotonic_ns() and peer.lines == [(first, last)]
    assert SendTally.sent - sent == 5 and peer.call.media == 1


def test_packets_read_counts_what_the_daemon_exports_as_read_and_dropped() -> None:
    metrics = Metrics()
    metrics.set_rtp_source(lambda: {"packets_in": 123456, "packets_out": 5, "dropped_foreign": 3,
                                    "dropped_malformed": 2, "dropped_wrong_pt": 1})
    assert packets_read(metrics.render().decode()) == 123456 + 3 + 2 + 1
