"""Forty calls through the cluster's front door: both nodes take a share, every daemon takes calls, each call is
recorded exactly once in the one database with the node and daemon that served it; the migrations ran once
although four daemons started at once on the empty database; `cluster.sh status` and `doctor` see it."""

from __future__ import annotations

import collections
import subprocess
import sys
from typing import Any

import psycopg

from tests.cluster.conftest import REPO, call_rows, call_story
from tests.support.asterisk import talkspurts
from tests.support.cluster.caller import FrontDoorCaller
from tests.support.cluster.cluster import Cluster
from tests.support.cluster.nodes import app_name
from tests.support.cluster.procs import poll

CALLS = 40
WAVE = 10  # callers at once: four daemons' worth of calls on a shared two-core machine
HOLD_S = 8.0


def place_wave(cluster: Cluster, dial: Any, n: int) -> list[FrontDoorCaller]:
    callers = [dial(hangup_after_s=HOLD_S) for _ in range(n)]
    for caller in callers:
        caller.locate(timeout=60)
    for caller in callers:
        ending = caller.wait_ended(timeout=120)
        assert ending.how == "bye_sent" and ending.exit_code == 0, f"{caller.name}: {ending}: {caller.failure()}"
        # the bot's greeting, not silence (a call no daemon took would hear nothing or the busy line)
        assert talkspurts(caller.rtp), (f"{caller.name} on {caller.locate()} heard nothing voiced "
                                        f"({len(caller.rtp.packets())} packets):\n{call_story(cluster, caller.channel_id())}")
    return callers


def test_forty_calls_spread_over_nodes_and_daemons_each_recorded_once(cluster: Cluster, dial: Any) -> None:
    callers: list[FrontDoorCaller] = []
    for _ in range(CALLS // WAVE):
        callers += place_wave(cluster, dial, WAVE)
    ids = [c.channel_id() for c in callers]
    assert len(set(ids)) == CALLS

    def all_ended() -> list[dict[str, Any]] | None:
        rows = call_rows(cluster, ids)
        return rows if len(rows) >= CALLS and all(r["ended_at"] is not None for r in rows) else None
    rows = poll(all_ended, 120, what="every call's ended record")
    assert sorted(r["call_id"] for r in rows) == sorted(ids)  # once each, no duplicates, none missing
    node_of = {c.channel_id(): c.node() for c in callers}
    entity = {name: cluster.node(name).entity_id for name in cluster.node_names}
    served = collections.Counter()
    for row in rows:
        by = row["summary"]["served_by"]
        assert by["asterisk_id"] == entity[node_of[row["call_id"]]], row  # recorded with the node that had it
        assert row["ended_by"] == "caller", row
        served[(node_of[row["call_id"]], by["app"])] += 1
    per_node = collections.Counter(node for node, _ in served.elements())
    assert set(served) == {(n, app_name(i)) for n in cluster.node_names for i in (1, 2)}, served
    assert min(per_node.values()) >= CALLS // 4, per_node  # round-robin: each node about half
    print(f"forty calls: per node {dict(per_node)}, per daemon {dict(served)}")


def test_migrations_ran_once_though_every_daemon_started_at_once(cluster: Cluster) -> None:
    with psycopg.connect(cluster.db().dsn, autocommit=True, connect_timeout=5) as conn:
        versions = [r[0] for r in conn.execute("SELECT version FROM schema_migrations").fetchall()]
    applied = [ev["version"] for node, i in cluster.daemons() for ev in cluster.events(node, i, "migration_applied")]
    assert versions and sorted(applied) == sorted(versions), (versions, applied)  # each applied by one daemon


def test_status_lists_every_part_running(cluster: Cluster) -> None:
    done = subprocess.run([str(REPO / "scripts" / "cluster.sh"), "status", "--dir", str(cluster.base)],
                          capture_output=True, text=True, timeout=60, check=False,
                          env={"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "PYTHON": sys.executable})
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    assert len(lines) == 1 + 2 * 3 + 1 + 2 and all(" running " in line for line in lines), done.stdout
    assert f"{cluster.front_door[0]}:{cluster.front_door[1]}" in lines[0]


def test_doctor_on_a_node_lists_its_daemons_and_finds_no_collision(cluster: Cluster) -> None:
    node = cluster.node_names[0]
    env = cluster.daemon_env_file(node, 1)
    done = subprocess.run([sys.executable, "-m", "ai_operator", "doctor", "--env", str(env)], capture_output=True,
                          text=True, timeout=180, check=False)
    lines = (done.stdout + done.stderr).splitlines()
    instances = [line for line in lines if "instances on this host" in line]
    assert len(instances) == 1 and instances[0].startswith("[OK  ]"), "\n".join(lines)
    assert "2 env files" in instances[0] and "1.env, 2.env" in instances[0], instances
    app = [line for line in lines if "Stasis app 'ai-operator-1'" in line]  # its own daemon holds the app
    assert len(app) == 1 and app[0].startswith("[OK  ]") and "subscribed; the daemon of" in app[0], "\n".join(lines)
