"""One Asterisk node killed mid-run (SIGKILL, no goodbye): the front door takes it out within its probing
interval and new calls go to the other node (a call that reaches the dead node first is retried on the other
one), the dead node's calls end cleanly on the daemons' side (`ended_by=system`, `channel_lost`, found when the
node is back), the surviving node's calls carry on and leave nothing behind, and the node is put back once it
answers again. The failover times are printed (run with -s)."""

from __future__ import annotations

import time
from typing import Any

from tests.cluster.conftest import call_rows, call_story
from tests.support.asterisk import talkspurts
from tests.support.cluster.caller import FrontDoorCaller
from tests.support.cluster.cluster import Cluster
from tests.support.cluster.procs import poll

IN_PROGRESS = 6
HOLD_S = 30.0  # the calls in progress when the node dies: long enough to still be up when it does
NEW_CALLS = 4


def heard_bot(cluster: Cluster, caller: FrontDoorCaller) -> None:
    ending = caller.wait_ended(timeout=120)
    assert ending.how == "bye_sent" and ending.exit_code == 0, f"{caller.name}: {ending}: {caller.failure()}"
    assert talkspurts(caller.rtp), f"{caller.name} heard nothing:\n{call_story(cluster, caller.channel_id())}"


def test_killed_node_is_taken_out_its_calls_end_cleanly_and_it_comes_back(cluster: Cluster, dial: Any) -> None:
    dead, alive = cluster.node_names[0], cluster.node_names[1]
    dead_uri, alive_uri = cluster.node(dead).sip_uri, cluster.node(alive).sip_uri
    running = [dial(hangup_after_s=HOLD_S) for _ in range(IN_PROGRESS)]
    for caller in running:
        caller.locate(timeout=60)
        poll(lambda c=caller: talkspurts(c.rtp), 60, what=f"{caller.name} hears the bot")
    on_dead = [c for c in running if c.node() == dead]
    on_alive = [c for c in running if c.node() == alive]
    assert on_dead and on_alive, [c.locate() for c in running]

    killed = time.monotonic()
    cluster.kill_node(dead)
    for caller in on_dead:  # their phones hear silence and give up; their RTP stops
        caller.close()
    # before the front door noticed: round-robin sends one of two calls to the dead node, which does not answer;
    # after the transaction timer the front door retries it on the other node
    early = [dial(hangup_after_s=8.0) for _ in range(2)]
    early_nodes = [c.node(timeout=60) for c in early]
    early_answered_s = time.monotonic() - killed
    cluster.wait_dispatcher({dead_uri: False, alive_uri: True}, timeout=60)
    taken_out_s = time.monotonic() - killed
    assert early_nodes == [alive, alive]
    for caller in early:
        heard_bot(cluster, caller)

    after = [dial(hangup_after_s=6.0) for _ in range(NEW_CALLS)]
    assert [c.node(timeout=60) for c in after] == [alive] * NEW_CALLS
    for caller in after:
        heard_bot(cluster, caller)

    restarted = time.monotonic()
    cluster.start_node(dead)
    cluster.wait_dispatcher({dead_uri: True, alive_uri: True}, timeout=60)
    back_s = time.monotonic() - restarted
    # the dead node's calls: ended by the system, channel lost (its daemons reconcile once they reconnect)
    lost_ids = [c.channel_id() for c in on_dead]

    def lost_recorded() -> list[dict[str, Any]] | None:
        rows = call_rows(cluster, lost_ids)
        return rows if len(rows) == len(lost_ids) and all(r["ended_at"] for r in rows) else None
    rows = poll(lost_recorded, 180, what=f"ended records of the dead node's calls {lost_ids}")
    assert {(r["ended_by"], r["disposition"]) for r in rows} == {("system", "channel_lost")}, rows

    for caller in on_alive:  # the survivors' calls went on to their own end
        heard_bot(cluster, caller)
    poll(lambda: not cluster.node(alive).channels(), 60, what=f"no channel left on {alive}")
    # back in the rotation: new calls reach both nodes again
    again = [dial(hangup_after_s=6.0) for _ in range(NEW_CALLS)]
    assert {c.node(timeout=60) for c in again} == {dead, alive}
    for caller in again:
        heard_bot(cluster, caller)
    print(f"node failover: the two calls placed right after the kill up on {alive} {early_answered_s:.1f} s after it; "
          f"{dead} out of the dispatcher after {taken_out_s:.1f} s; back {back_s:.1f} s after its restart began")
