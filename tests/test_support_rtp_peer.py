"""The real-Asterisk tests' caller media (tests/support/asterisk/rtp_peer.py) stops sending once its call is hung
up: real UDP on loopback, a socket standing for the PBX's RTP port, a real child process for the caller's sipp."""

from __future__ import annotations

import socket
import subprocess
import sys

from ai_operator.media.rtp import build_header
from tests.support.asterisk.rtp_peer import RtpPeer, hang_up_when_ended
from tests.support.wait import eventually_sync


def _pbx_port() -> socket.socket:
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    return sock


def _drain(sock: socket.socket) -> int:
    """Packets waiting on `sock` (loopback delivers at send time: what was sent is here)."""
    sock.setblocking(False)
    count = 0
    while True:
        try:
            sock.recv(2048)
        except BlockingIOError:
            return count
        count += 1


def _start_media(peer: RtpPeer, pbx: socket.socket) -> None:
    """The PBX's first packet: the peer learns where to send (symmetric RTP) and starts sending."""
    pbx.sendto(build_header(0, True, 1, 160, 1234) + b"\xff" * 160, (peer.host, peer.port))
    eventually_sync(lambda: peer.sent >= 5, 30, what="the peer's first packets")


def test_no_packet_leaves_after_the_hang_up_is_seen():
    pbx = _pbx_port()
    peer = RtpPeer("127.0.0.1")
    try:
        _start_media(peer, pbx)
        peer.hang_up()
        sent = peer.sent
        ticks = peer.ticks
        eventually_sync(lambda: peer.ticks >= ticks + 10, 30, what="ten more ticks of the peer's thread")
        assert peer.sent == sent and peer.hung_up_ns is not None
        assert _drain(pbx) == sent  # every packet sent before the hang-up arrived, none after it
    finally:
        peer.close()
        pbx.close()


def test_the_peer_hangs_up_when_the_callers_sipp_ends_the_call():
    pbx = _pbx_port()
    peer = RtpPeer("127.0.0.1")
    sipp = subprocess.Popen([sys.executable, "-c", "import sys; sys.stdin.read()"], stdin=subprocess.PIPE)
    try:
        hang_up_when_ended(sipp, peer)
        _start_media(peer, pbx)
        assert peer.hung_up_ns is None  # the call goes on while sipp runs
        assert sipp.stdin is not None
        sipp.stdin.close()  # the call ends: sipp exits
        eventually_sync(lambda: peer.hung_up_ns is not None, 30, what="the peer hung up after sipp ended")
        sent, ticks = peer.sent, peer.ticks
        eventually_sync(lambda: peer.ticks >= ticks + 10, 30, what="ten more ticks of the peer's thread")
        assert peer.sent == sent
    finally:
        if sipp.poll() is None:
            sipp.kill()
        sipp.wait(10)
        peer.close()
        pbx.close()
