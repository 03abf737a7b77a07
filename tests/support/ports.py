"""Ports for tests, always asked of the OS (never a fixed number or range): a TCP port that nothing listens
on, distinct TCP ports for listeners to come, a TCP port held by a listening socket, and a run of UDP ports that bound a moment ago."""

from __future__ import annotations

import contextlib
import socket


def closed_tcp_port(host: str = "127.0.0.1") -> int:
    """A port the OS just handed out and that is closed again: a connection to it is refused."""
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def free_tcp_ports(k: int, host: str = "127.0.0.1") -> list[int]:
    """`k` distinct TCP ports the OS just handed out, all held while they are chosen (so none repeats), then
    closed: a daemon's metrics listener each. A UDP check says nothing of a TCP port (their numbers are apart)."""
    with contextlib.ExitStack() as stack:
        socks = [stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM)) for _ in range(k)]
        for sock in socks:
            sock.bind((host, 0))
        return [int(sock.getsockname()[1]) for sock in socks]


def listening_socket(host: str = "127.0.0.1") -> socket.socket:
    """A TCP socket listening on a free port (the caller closes it): that port is taken."""
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.bind((host, 0))
    s.listen()
    return s


def free_udp_range(n: int, host: str = "127.0.0.1", tries: int = 50) -> int:
    """The first of `n` consecutive UDP ports that all bound (and were released) just now."""
    for _ in range(tries):
        with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
            s.bind((host, 0))
            base = int(s.getsockname()[1])
        if base + n >= 65535:
            continue
        held: list[socket.socket] = []
        try:
            for port in range(base, base + n):
                u = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
                held.append(u)
                u.bind((host, port))
        except OSError:
            continue
        finally:
            for u in held:
                u.close()
        return base
    raise RuntimeError(f"no run of {n} free UDP ports on {host}")
