"""Fixtures of the cluster tests (`-m cluster`): calls through Kamailio to two Asterisk nodes with two daemons
each, one PostgreSQL and its streaming replica, all started by `scripts/cluster.sh up` (see
`tests/support/cluster/`).

Part of `make test` and CI. Without kamailio or the Asterisk build they are skipped, saying why, unless
`AI_OPERATOR_REQUIRE_ASTERISK=1` (CI sets it), which makes that a failure; `AI_OPERATOR_SKIP_ASTERISK=1` skips
them on purpose. The cluster is shared by the session: a test that stops or kills a part starts it again before
it ends (in `finally`), so the next test finds every part up.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest

from tests.support.asterisk import asterisk_binary, asterisk_prefix
from tests.support.cluster.caller import FrontDoorCaller
from tests.support.cluster.cluster import Cluster
from tests.support.cluster.kamailio import kamailio_binary
from tests.support.cluster.procs import alive

SKIP_ENV = "AI_OPERATOR_SKIP_ASTERISK"
REQUIRE_ENV = "AI_OPERATOR_REQUIRE_ASTERISK"
HERE = Path(__file__).resolve().parent
REPO = HERE.parents[1]


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: every test in this folder is a `cluster` test
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.cluster)


def missing() -> str | None:
    if kamailio_binary() is None:
        return "kamailio is not installed (make install installs it: scripts/system-deps.sh)"
    if asterisk_binary() is None:
        return f"no Asterisk in {asterisk_prefix()}: build it with `make asterisk` (scripts/asterisk-build.sh)"
    if shutil.which("sipp") is None:
        return "sipp is not installed (make install installs it)"
    return None


@pytest.fixture(scope="session")
def cluster_ready() -> None:
    reason = missing()
    if reason is None:
        return
    if os.environ.get(REQUIRE_ENV) == "1" and os.environ.get(SKIP_ENV) != "1":
        pytest.fail(f"{reason}; {REQUIRE_ENV}=1 (CI) makes a missing part a failure", pytrace=False)
    pytest.skip(f"{reason} (set {REQUIRE_ENV}=1 to make this a failure)")


@pytest.fixture(scope="session")
def cluster(cluster_ready: None) -> Iterator[Cluster]:
    base = Path(tempfile.mkdtemp(prefix="aiop-cluster-"))
    script = [str(REPO / "scripts" / "cluster.sh")]
    env = {**os.environ, "PYTHON": os.environ.get("PYTHON", sys.executable)}
    up = subprocess.run([*script, "up", "--dir", str(base)], capture_output=True, text=True, timeout=600, env=env,
                        check=False)
    assert up.returncode == 0, f"cluster.sh up exited {up.returncode}:\n{up.stdout}\n{up.stderr[-3000:]}"
    cluster = Cluster.load(base)
    pids = [pid for _, pid, _ in cluster.parts()]
    try:
        yield cluster
    finally:
        down = subprocess.run([*script, "down", "--dir", str(base)], capture_output=True, text=True, timeout=600,
                              env=env, check=False)
        left = [pid for pid in pids if alive(pid)]
        shutil.rmtree(base, ignore_errors=True)
        assert down.returncode == 0 and not left, f"cluster.sh down: {down.stdout}{down.stderr[-2000:]}; left {left}"


@pytest.fixture
def dial(cluster: Cluster, tmp_path: Path) -> Iterator[Any]:
    """`dial(hangup_after_s=...)` -> a FrontDoorCaller; every caller is closed after the test."""
    callers: list[FrontDoorCaller] = []
    nodes = {name: cluster.node(name) for name in cluster.node_names}

    def place(hangup_after_s: float = 6.0) -> FrontDoorCaller:
        caller = FrontDoorCaller(cluster.front_door, nodes, tmp_path / f"caller-{len(callers)}",
                                 hangup_after_s=hangup_after_s)
        callers.append(caller)
        return caller

    try:
        yield place
    finally:
        for caller in callers:
            caller.close()


def call_rows(cluster: Cluster, call_ids: list[str], role: str = "primary") -> list[dict[str, Any]]:
    """The `calls` rows of these call ids (every row, duplicates included) from the cluster's database."""
    with psycopg.connect(cluster.db(role).dsn, autocommit=True, connect_timeout=5) as conn:
        cur = conn.execute("SELECT call_id, answered_at, ended_at, ended_by, disposition, summary FROM calls"
                           " WHERE call_id = ANY(%s)", (call_ids,))
        names = [d.name for d in cur.description or []]
        return [dict(zip(names, row, strict=True)) for row in cur.fetchall()]


def call_story(cluster: Cluster, call_id: str) -> str:
    """Every daemon log line and the node's Asterisk log lines about one call, for a failure message."""
    lines = [f"{node}/{i}: {ev}" for node, i in cluster.daemons() for ev in cluster.events(node, i)
             if ev.get("call_id") == call_id]
    node = call_id.rsplit("-", 1)[0]
    if node in cluster.node_names:
        log = cluster.node(node).messages_log
        if log.exists():
            lines += [line for line in log.read_text(errors="replace").splitlines() if call_id in line][-30:]
    return "\n".join(lines) or f"(nothing logged about {call_id})"
