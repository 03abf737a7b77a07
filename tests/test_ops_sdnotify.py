"""sd_notify over a real AF_UNIX datagram socket (a path and an abstract one)."""

from __future__ import annotations

import asyncio
import os
import socket
import time
import uuid

import pytest

from ai_operator.ops.sdnotify import Notifier, watchdog_loop
from tests.support.wait import eventually


def _receiver(address: str | bytes) -> socket.socket:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(address)
    sock.settimeout(2)
    return sock


@pytest.fixture
def path_socket(tmp_path):
    path = str(tmp_path / "notify.sock")
    sock = _receiver(path)
    yield path, sock
    sock.close()


@pytest.fixture
def abstract_socket():
    name = f"ai-operator-test-{uuid.uuid4().hex}"
    sock = _receiver(b"\0" + name.encode())
    yield "@" + name, sock
    sock.close()


def _recv(sock: socket.socket) -> dict[str, str]:
    data = sock.recv(4096).decode()
    return dict(line.split("=", 1) for line in data.split("\n"))


@pytest.mark.parametrize("kind", ["path", "abstract"])
def test_states_reach_the_socket(kind, path_socket, abstract_socket):
    address, sock = path_socket if kind == "path" else abstract_socket
    n = Notifier.from_env({"NOTIFY_SOCKET": address})
    assert n.enabled
    assert n.ready(status="ARI connected")
    assert _recv(sock) == {"READY": "1", "STATUS": "ARI connected"}
    assert n.watchdog()
    assert _recv(sock) == {"WATCHDOG": "1"}
    assert n.status("3 calls\nactive")
    assert _recv(sock) == {"STATUS": "3 calls active"}
    assert n.stopping()
    assert _recv(sock) == {"STOPPING": "1"}
    n.close()


def test_reloading_carries_monotonic_usec(path_socket):
    address, sock = path_socket
    n = Notifier.from_env({"NOTIFY_SOCKET": address})
    before = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
    assert n.reloading()
    msg = _recv(sock)
    assert msg["RELOADING"] == "1"
    assert int(msg["MONOTONIC_USEC"]) >= before
    n.close()


def test_no_socket_is_a_noop():
    n = Notifier.from_env({})
    assert not n.enabled
    assert n.ready() is False
    assert n.watchdog() is False
    assert n.watchdog_interval_s() is None


def test_missing_socket_path_does_not_raise(tmp_path):
    n = Notifier.from_env({"NOTIFY_SOCKET": str(tmp_path / "gone.sock")})
    assert n.ready() is False
    assert n.watchdog() is False


def test_watchdog_interval_and_pid():
    env = {"NOTIFY_SOCKET": "@x", "WATCHDOG_USEC": "30000000"}
    assert Notifier.from_env(env).watchdog_interval_s() == pytest.approx(15.0)
    own = {**env, "WATCHDOG_PID": str(os.getpid())}
    assert Notifier.from_env(own).watchdog_interval_s() == pytest.approx(15.0)
    other = {**env, "WATCHDOG_PID": str(os.getpid() + 1)}
    assert Notifier.from_env(other).watchdog_interval_s() is None
    assert Notifier.from_env({**env, "WATCHDOG_USEC": "junk"}).watchdog_interval_s() is None
    assert Notifier.from_env({**env, "WATCHDOG_USEC": "0"}).watchdog_interval_s() is None


async def test_watchdog_loop_pings_only_while_healthy(path_socket):
    address, sock = path_socket
    sock.setblocking(False)
    n = Notifier.from_env({"NOTIFY_SOCKET": address, "WATCHDOG_USEC": "40000"})  # ping every 20 ms
    state = {"healthy": True, "checks_unhealthy": 0}

    def healthy() -> bool:
        if not state["healthy"]:
            state["checks_unhealthy"] += 1
        return bool(state["healthy"])

    def drain() -> int:
        count = 0
        while True:
            try:
                assert sock.recv(64) == b"WATCHDOG=1"
                count += 1
            except BlockingIOError:
                return count

    task = asyncio.create_task(watchdog_loop(n, healthy))
    pings = [0]
    await eventually(lambda: (pings.__setitem__(0, pings[0] + drain()) or pings[0] >= 3), what="three pings")
    state["healthy"] = False
    await eventually(lambda: state["checks_unhealthy"] >= 1, what="a check while unhealthy")
    drain()  # pings sent before that check
    await eventually(lambda: state["checks_unhealthy"] >= 4, what="three more checks while unhealthy")
    assert drain() == 0
    task.cancel()
    n.close()


async def test_watchdog_loop_returns_without_watchdog():
    await asyncio.wait_for(watchdog_loop(Notifier.from_env({"NOTIFY_SOCKET": "@x"}), lambda: True), 1)
