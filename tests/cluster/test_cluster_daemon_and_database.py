"""A daemon stopped while its node stays up, and the primary database restarted under live calls.

- SIGTERM to one daemon: it drains (its calls go on to their own end), new calls reach its sibling through the
  dialplan split - while it drains (it continues them unanswered) and after it exited (`Stasis()` fails) - and
  every caller hears the bot, never the busy line.
- The primary restarted: every daemon spools what it cannot write and replays it when the database is back;
  every call is recorded exactly once (counted and compared), none lost, none twice.
"""

from __future__ import annotations

import os
import signal
from typing import Any

import psycopg

from tests.cluster.conftest import call_rows, call_story
from tests.support.asterisk import talkspurts
from tests.support.cluster.caller import FrontDoorCaller
from tests.support.cluster.cluster import Cluster
from tests.support.cluster.nodes import app_name
from tests.support.cluster.procs import alive, poll


def served(cluster: Cluster, callers: list[FrontDoorCaller], timeout: float = 180) -> dict[str, dict[str, Any]]:
    """call id -> its ended record, once every caller's call has one; each exactly once."""
    ids = [c.channel_id() for c in callers]

    def ended() -> list[dict[str, Any]] | None:
        rows = call_rows(cluster, ids)
        return rows if len(rows) >= len(ids) and all(r["ended_at"] for r in rows) else None
    rows = poll(ended, timeout, what=f"ended records of {ids}")
    assert sorted(r["call_id"] for r in rows) == sorted(ids), rows  # once each
    return {r["call_id"]: r for r in rows}


def hang_up_heard_bot(cluster: Cluster, callers: list[FrontDoorCaller]) -> None:
    for caller in callers:
        ending = caller.wait_ended(timeout=120)
        assert ending.how == "bye_sent" and ending.exit_code == 0, f"{caller.name}: {ending}: {caller.failure()}"
        assert talkspurts(caller.rtp), f"{caller.name} heard nothing:\n{call_story(cluster, caller.channel_id())}"


def test_stopped_daemon_drains_and_its_sibling_takes_its_share(cluster: Cluster, dial: Any) -> None:
    node = cluster.node_names[0]
    stopped, sibling = app_name(1), app_name(2)
    pid = cluster.daemon_pid(node, 1)
    running = [dial(hangup_after_s=12.0) for _ in range(4)]  # round-robin twice over: one per daemon
    for caller in running:
        caller.locate(timeout=60)

    def started_on(caller: Any) -> int | None:
        """Which of the node's daemons logged the call's start (None: neither yet; a call is up on Asterisk
        before its daemon has written that line)."""
        return next((i for i in (1, 2) if cluster.events(node, i, "call_started", call_id=caller.channel_id())), None)

    on_node = [c for c in running if c.node() == node]
    for caller in on_node:
        poll(lambda c=caller: started_on(c) is not None, 60, what=f"{caller.name} started by a daemon of {node}")
    on_stopped = [c for c in on_node if started_on(c) == 1]
    assert on_stopped, [(c.locate(), started_on(c)) for c in running]
    try:
        os.kill(pid, signal.SIGTERM)
        poll(lambda: cluster.events(node, 1, "draining"), 60, what=f"{node} {stopped} draining")
        while_draining = [dial(hangup_after_s=6.0) for _ in range(4)]
        for caller in while_draining:
            caller.locate(timeout=60)
        poll(lambda: not alive(pid), 120, what=f"{node} {stopped} exits after its calls")
        assert [ev["exit_code"] for ev in cluster.events(node, 1, "stopped")][-1:] == [0]
        after_exit = [dial(hangup_after_s=6.0) for _ in range(4)]
        for caller in after_exit:
            caller.locate(timeout=60)
        hang_up_heard_bot(cluster, running + while_draining + after_exit)
        records = served(cluster, running + while_draining + after_exit)
        for caller in on_stopped:  # drained: ended by the caller, not cut
            assert records[caller.channel_id()]["ended_by"] == "caller", records[caller.channel_id()]
        new_on_node = [c for c in while_draining + after_exit if c.node() == node]
        assert new_on_node, "no new call reached the node"
        assert {records[c.channel_id()]["summary"]["served_by"]["app"] for c in new_on_node} == {sibling}
    finally:
        if not alive(pid):
            cluster.start_daemon(node, 1)


def test_primary_restart_spools_and_replays_every_record_once(cluster: Cluster, dial: Any) -> None:
    primary = cluster.db("primary")
    before = [dial(hangup_after_s=10.0) for _ in range(4)]
    for caller in before:
        caller.locate(timeout=60)
    down_before = {d: len(cluster.events(*d, "database_down")) for d in cluster.daemons()}
    flushed_before = {d: len(cluster.events(*d, "spool_flushed", left=0)) for d in cluster.daemons()}
    primary.stop()
    try:
        for d in cluster.daemons():
            poll(lambda d=d: len(cluster.events(*d, "database_down")) > down_before[d], 60,
                 what=f"{d} sees the database down")
        during = [dial(hangup_after_s=5.0) for _ in range(4)]  # calls go on while the database is away
        for caller in during:
            caller.locate(timeout=60)
        hang_up_heard_bot(cluster, before + during)
        assert not call_rows_or_none(cluster, before + during)  # nothing could be written meanwhile
    finally:
        primary.start()
    records = served(cluster, before + during)
    assert all(r["ended_by"] == "caller" and r["answered_at"] for r in records.values()), records
    for d in cluster.daemons():  # every daemon took calls in the outage, spooled them and replayed its spool
        poll(lambda d=d: [ev for ev in cluster.events(*d, "spool_flushed", left=0)[flushed_before[d]:]
                          if ev["written"] > 0], 60, what=f"{d} replayed its spool")


def call_rows_or_none(cluster: Cluster, callers: list[FrontDoorCaller]) -> list[dict[str, Any]] | None:
    """The callers' rows, or None while the primary is down (the query cannot connect)."""
    try:
        return call_rows(cluster, [c.channel_id() for c in callers])
    except psycopg.OperationalError:
        return None
