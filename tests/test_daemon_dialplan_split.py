"""Several daemons on one Asterisk behind a dialplan split: each its own ARI app and STATE_DIR, one database.

The dialplan runs `Stasis(ai-operator-1,test)`, then `Stasis(ai-operator-2,test)` when the first sends the call
back (`continue` to the next priority), as README "Scaling out" shows. A daemon that refuses a call (over
MAX_CALLS, overloaded, draining) must send it back BEFORE answering it, so the next daemon can take it; an app no
daemon subscribes to fails at once and the dialplan goes on.
"""

from __future__ import annotations

import asyncio
import secrets
import tempfile
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ai_operator.daemon.app import Daemon
from ai_operator.daemon.services import DaemonOverrides
from ai_operator.sim.instant import InstantSTT
from ai_operator.sim.pbx import SimulatedPbx
from ai_operator.storage.embedded import EmbeddedServer
from tests.support.daemon import FAST, DaemonBase, bot_tts
from tests.support.wait import eventually

REJECTED = "ai_operator_calls_rejected_total"
READY_TIMEOUT_S = 30.0


@asynccontextmanager
async def daemon_on(url: str, password: str, base: DaemonBase, dsn: str, app: str, **values: object
                    ) -> AsyncIterator[Daemon]:
    """A daemon of this node: its own ARI app and STATE_DIR, the node's one DATABASE_URL."""
    with tempfile.TemporaryDirectory(prefix=f"{app}-") as state:
        settings = base.settings.with_values(
            ARI_URL=url, ARI_USER="ai-operator", ARI_PASSWORD=password, ARI_APP=app, STATE_DIR=state,
            DATABASE_URL=dsn, METRICS_PORT=0, **{**FAST, **values})
        daemon = Daemon(settings, env_path=None, overrides=DaemonOverrides(tts=bot_tts(base.state_dir), stt=InstantSTT([])))
        task = asyncio.create_task(daemon.serve())
        await asyncio.wait({task, asyncio.ensure_future(daemon.ready.wait())}, timeout=READY_TIMEOUT_S,
                           return_when=asyncio.FIRST_COMPLETED)
        assert daemon.ready.is_set(), f"daemon {app} not ready"
        try:
            yield daemon
        finally:
            daemon.request_stop()
            await asyncio.wait_for(task, timeout=60)


@asynccontextmanager
async def node(base: DaemonBase, *limits: int) -> AsyncIterator[tuple[SimulatedPbx, list[Daemon]]]:
    """The simulated PBX and one daemon per entry of `limits` (its MAX_CALLS), apps ai-operator-1, -2, ..."""
    server = EmbeddedServer.in_state_dir(base.state_dir)
    dsn = await asyncio.to_thread(server.start)  # joins the session's server: the node's shared database
    password = secrets.token_hex(8)
    pbx = SimulatedPbx(user="ai-operator", password=password)
    url = await pbx.start()
    try:
        async with (daemon_on(url, password, base, dsn, "ai-operator-1", MAX_CALLS=limits[0]) as one,
                    daemon_on(url, password, base, dsn, "ai-operator-2", MAX_CALLS=limits[1]) as two):
            yield pbx, [one, two]
    finally:
        await pbx.stop()
        await asyncio.to_thread(server.release)


def requests_for(pbx: SimulatedPbx, channel_id: str) -> list[tuple[str, str]]:
    return [r[:2] for r in pbx.requests if channel_id in r[1]]


async def test_a_refused_call_falls_over_to_the_next_daemon_unanswered(daemon_base) -> None:
    async with node(daemon_base, 1, 1) as (pbx, (one, two)):
        split = ("ai-operator-1", "ai-operator-2")
        first = await pbx.place_call("test", app=split[0], then=split[1:])
        await first.wait_media(timeout=10)
        assert first.apps == ["ai-operator-1"] and one.manager is not None and first.channel_id in one.manager.calls

        second = await pbx.place_call("test", app=split[0], then=split[1:])  # ai-operator-1 is full
        await second.wait_media(timeout=10)
        assert second.apps == ["ai-operator-1", "ai-operator-2"]
        assert two.manager is not None and second.channel_id in two.manager.calls
        cid = second.channel_id
        # ai-operator-1 sent it back untouched (no answer before the continue); ai-operator-2 answered it
        assert requests_for(pbx, cid)[:2] == [("POST", f"/channels/{cid}/continue"), ("POST", f"/channels/{cid}/answer")]
        assert metric_of(one, "over_capacity") == 1 and metric_of(two, "over_capacity") == 0

        third = await pbx.place_call("test", app=split[0], then=split[1:])  # both full: the dialplan goes on
        await third.wait_hangup(timeout=10)
        assert third.apps == ["ai-operator-1", "ai-operator-2"] and third.state == "dialplan"
        assert third.continued == {"context": None, "extension": None, "priority": None, "label": None}
        assert not third._answered.is_set()
        assert metric_of(one, "over_capacity") == 2 and metric_of(two, "over_capacity") == 1

        managers = one.manager, two.manager
        calls = managers[0].calls[first.channel_id], managers[1].calls[cid]
        endpoints = [call.media.endpoint for call in calls]  # a loaded machine could hang up before any RTP
        await eventually(lambda: all(e is not None and e.stats.received > 0 for e in endpoints),
                         what="the caller's RTP at both daemons")
        for sim in (first, second):
            await sim.hangup()
        await eventually(lambda: not managers[0].calls and not managers[1].calls, timeout=20)
        # two daemons in one process: each counts its own call's RTP, on its own /metrics
        for daemon, call in zip((one, two), calls, strict=True):
            assert call.media.endpoint is not None and daemon.svc is not None and daemon.metrics is not None
            own = call.media.endpoint.stats.received
            assert own > 0 and daemon.svc.rtp_totals.received == own
            assert daemon.metrics.registry.get_sample_value("ai_operator_rtp_packets_total", {"direction": "in"}) == own


async def test_a_draining_daemon_and_a_missing_app_are_passed_over(daemon_base) -> None:
    async with node(daemon_base, 5, 5) as (pbx, (one, two)):
        manager_one, manager_two = one.manager, two.manager
        assert manager_one is not None and manager_two is not None
        split = ("ai-operator-1", "ai-operator-9", "ai-operator-2")  # ai-operator-9: a daemon that is down
        kept = await pbx.place_call("test", app=split[0], then=split[1:])
        await kept.wait_media(timeout=10)
        assert kept.apps == ["ai-operator-1"] and kept.channel_id in manager_one.calls

        manager_one.draining = True  # as after SIGTERM: calls in progress go on, new ones go back to the dialplan
        late = await pbx.place_call("test", app=split[0], then=split[1:])
        await late.wait_media(timeout=10)
        # Stasis(ai-operator-9) failed at once (no websocket subscribes to it): the dialplan went on
        assert late.apps == ["ai-operator-1", "ai-operator-2"] and late.channel_id in manager_two.calls
        assert metric_of(one, "draining") == 1
        assert kept.state == "up" and kept.channel_id in manager_one.calls  # the call in progress is untouched
        manager_one.draining = False
        for sim in (kept, late):
            await sim.hangup()
        await eventually(lambda: not manager_one.calls and not manager_two.calls, timeout=20)


def metric_of(daemon: Daemon, reason: str) -> float:
    assert daemon.svc is not None
    return float(daemon.svc.metrics.registry.get_sample_value(REJECTED, {"reason": reason}) or 0.0)
