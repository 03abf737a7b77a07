"""Starting the embedded PostgreSQL on a busy box: pgserver's pg_ctl gives up after 10 s while the postmaster it
launched goes on (crash recovery after a kill takes longer under load); the server then waits for that postmaster
instead of failing. A real server (the test process's shared one) stands for the postmaster that got there."""

from __future__ import annotations

import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from ai_operator.storage.embedded import EmbeddedServer
from tests.support.storage import shared_server


def _gives_up_once() -> tuple[list[int], Callable[[], str]]:
    attempts: list[int] = []

    def start() -> str:
        attempts.append(1)
        if len(attempts) == 1:
            raise subprocess.TimeoutExpired(["pg_ctl", "start"], 10)
        return "started"

    return attempts, start


def test_a_pg_ctl_timeout_waits_for_the_postmaster_it_launched() -> None:
    server = shared_server()  # its postmaster runs and says "ready" in postmaster.pid
    attempts, start = _gives_up_once()
    assert server._patiently(start) == "started"
    assert len(attempts) == 2


def test_a_pg_ctl_timeout_with_no_postmaster_still_fails(tmp_path: Path) -> None:
    server = EmbeddedServer(tmp_path / "pgdata")  # nothing started here: nothing to wait for
    attempts, start = _gives_up_once()
    with pytest.raises(subprocess.TimeoutExpired):
        server._patiently(start)
    assert len(attempts) == 1
