"""Port numbers for the benchmarks' own processes, asked of the OS (never fixed).

A TCP listener (a daemon's metrics port) needs a port free for TCP, an RTP range one free for UDP: the two
protocols have separate port spaces, so a number free for one may be taken in the other (Asterisk's ARI port,
an HTTP client's outgoing connection)."""

from __future__ import annotations

import contextlib
import socket


def free_udp_port(host: str = "127.0.0.1") -> int:
    """A UDP port number the OS says is free now."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.bind((host, 0))
        return int(sock.getsockname()[1])


def free_tcp_ports(k: int, host: str = "127.0.0.1") -> list[int]:
    """`k` distinct TCP port numbers the OS says are free now (all held while they are chosen, so none repeats)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) for _ in range(k)]
        for sock in socks:
            sock.bind((host, 0))
        return [int(sock.getsockname()[1]) for sock in socks]


def free_tcp_port(host: str = "127.0.0.1") -> int:
    """A TCP port number the OS says is free now."""
    return free_tcp_ports(1, host)[0]
