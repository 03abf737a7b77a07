"""The embedded PostgreSQL never preempts the daemon's loop: its postmaster, the processes it started and the
backends it forks for new connections all run under SCHED_BATCH (checked on the real processes), and a server
restarted after a kill is put back under it."""

from __future__ import annotations

import os
import signal

import psycopg
import pytest

from ai_operator.storage.embedded import EmbeddedServer, _process_state, children_of
from tests.support.storage import embedded_state_dir, shared_server
from tests.support.wait import eventually_sync

pytestmark = pytest.mark.skipif(not hasattr(os, "SCHED_BATCH"), reason="Linux scheduling policies only")


def _policies(server: EmbeddedServer) -> dict[int, int]:
    postmaster = server.postmaster_pid()
    assert postmaster is not None
    return {pid: os.sched_getscheduler(pid) for pid in [postmaster, *children_of(postmaster)]}


def _alive(pid: int) -> bool:
    return _process_state(pid) not in (None, "Z", "X")  # a zombie nobody reaped is gone too


def test_the_server_and_a_new_backend_run_under_sched_batch() -> None:
    server = shared_server()
    with psycopg.connect(server.dsn) as conn:  # a backend forked after the start
        backend = conn.execute("SELECT pg_backend_pid()").fetchone()[0]  # type: ignore[index]
        assert os.sched_getscheduler(backend) == os.SCHED_BATCH
        policies = _policies(server)
    assert backend in policies and len(policies) >= 4  # postmaster, checkpointer, writer, ... and the backend
    assert set(policies.values()) == {os.SCHED_BATCH}
    assert os.sched_getscheduler(0) == os.SCHED_OTHER  # the caller's own policy is not touched


def test_a_server_restarted_after_a_kill_runs_under_sched_batch_again() -> None:
    server = EmbeddedServer.in_state_dir(embedded_state_dir())
    server.start()
    try:
        killed = server.postmaster_pid()
        assert killed is not None
        children = children_of(killed)
        os.kill(killed, signal.SIGKILL)
        eventually_sync(lambda: not server.alive(), 30, "the postmaster gone")
        # its processes notice and exit; until then they hold its shared memory and a new one would not start
        eventually_sync(lambda: not any(_alive(pid) for pid in children), 30, "the old server's processes gone")
        server.restart()
        assert server.postmaster_pid() != killed
        assert set(_policies(server).values()) == {os.SCHED_BATCH}
    finally:
        server.release()
