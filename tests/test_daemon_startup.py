"""A daemon whose start fails part-way (the metrics port is taken) raises a clear error and leaves nothing
running: the spool retry task and the playout pacer started before the failure are stopped. A daemon started
while Asterisk is still starting waits for ARI when its settings worked before, and fails fast when not."""

from __future__ import annotations

import asyncio
import socket

import pytest

from ai_operator.config import load_settings
from ai_operator.daemon.app import Daemon
from ai_operator.sim.pbx import SimulatedPbx
from tests.support.ports import closed_tcp_port
from tests.support.storage import fresh_dsn
from tests.support.wait import eventually

BACKGROUND_TASKS = {"playout-pacer", "record-spool-retry"}


async def test_failed_start_releases_what_was_opened(tmp_path) -> None:
    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    settings = load_settings(None, environ={
        "ARI_URL": f"http://127.0.0.1:{closed_tcp_port()}/ari", "ARI_USER": "u", "ARI_PASSWORD": "startup-pw",
        "STATE_DIR": str(tmp_path), "DATABASE_URL": f"postgresql://u@127.0.0.1:{closed_tcp_port()}/none",  # refused: spool
        "METRICS_HOST": "127.0.0.1", "METRICS_PORT": str(port),
    })
    daemon = Daemon(settings, env_path=None)
    try:
        with pytest.raises(OSError, match=f"metrics server cannot bind 127.0.0.1:{port}"):
            await daemon.serve()
    finally:
        taken.close()
    assert daemon.svc is not None  # set-up got as far as the metrics server
    assert not {t.get_name() for t in asyncio.all_tasks() if not t.done()} & BACKGROUND_TASKS


async def test_started_while_asterisk_starts_waits_only_with_settings_that_worked_before(daemon_base, tmp_path) -> None:
    """A daemon started during Asterisk's start-up window (ARI answers 404): with settings that never worked it
    exits 1 at once, naming the cause; once they have worked (an earlier run), it waits for ARI instead."""
    pbx = SimulatedPbx(user="ops", password="known-pw-7")
    url = await pbx.start()
    settings = daemon_base.settings.with_values(ARI_URL=url, ARI_USER="ops", ARI_PASSWORD="known-pw-7",
                                                STATE_DIR=str(tmp_path), DATABASE_URL=fresh_dsn(), METRICS_PORT=0)
    try:
        pbx.starting_status = 404
        assert await Daemon(settings, env_path=None).serve() == 1
        assert pbx.starting_answers == 1
        pbx.starting_status = None
        first = Daemon(settings, env_path=None)  # a normal run: the settings work
        task = asyncio.create_task(first.serve())
        await asyncio.wait_for(first.ready.wait(), 30)
        first.request_stop()
        assert await task == 0
        pbx.starting_status = 404
        second = Daemon(settings, env_path=None)
        task = asyncio.create_task(second.serve())
        await eventually(lambda: pbx.starting_answers >= 3 or task.done(), 30, "retries while Asterisk starts")
        assert not task.done()
        pbx.starting_status = None
        await asyncio.wait_for(second.ready.wait(), 30)
        second.request_stop()
        assert await task == 0
    finally:
        await pbx.stop()
