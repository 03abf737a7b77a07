"""The real daemon process on its own embedded PostgreSQL: the postmaster is killed, and SIGTERM arrives while the
supervisor is restarting it. The daemon exits 0 and leaves no postmaster behind (none for the next run to
adopt), and its STATE_DIR lock with it."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import sys

import pytest

from ai_operator.sim.pbx import SimulatedPbx
from ai_operator.storage.state_lock import StateDirLock
from tests.support.wait import eventually
from tests.test_state_dir_lock import env_text
from tests.test_storage_supervisor import gone_or_left

pytestmark = pytest.mark.slow


async def test_sigterm_during_a_database_restart_leaves_no_postmaster(tmp_path) -> None:
    pbx = SimulatedPbx(user="ai-operator", password="pw-shutdown")
    state = tmp_path / "state"
    env = tmp_path / "ai-operator.env"
    env.write_text(env_text(await pbx.start(), "pw-shutdown", state, ""))
    clean = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "ai_operator", "run", "--env", str(env),
                                                env=clean, stderr=asyncio.subprocess.PIPE)
    events: list[str] = []

    async def read_log() -> None:
        assert proc.stderr is not None
        async for raw in proc.stderr:
            if raw.startswith(b"{"):
                events.append(json.loads(raw).get("event", ""))

    reader = asyncio.create_task(read_log())
    pgdata = state / "pgdata"
    try:
        await eventually(lambda: pbx.app_registered("ai-operator"), timeout=120, what="daemon ready")
        # a loaded machine may take longer than the first attempt allows: the daemon then retries in the background
        await eventually(lambda: {"database_opened", "database_connected"} & set(events), timeout=120,
                         what="the embedded database open")
        first = int((pgdata / "postmaster.pid").read_text().split()[0])
        os.kill(first, signal.SIGKILL)
        await eventually(lambda: "database_restart" in events, timeout=60, what="the supervisor restarting it")
        proc.send_signal(signal.SIGTERM)  # the restart (pg_ctl start, crash recovery) is under way
        assert await asyncio.wait_for(proc.wait(), timeout=120) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await reader
        await pbx.stop()
        # pg_ctl stop returns once postmaster.pid is gone, a moment before the process itself: an orphan stays
        left = await gone_or_left(pgdata)
    assert left == [], f"postmaster left after the daemon exited: {left}; log events: {events[-8:]}"
    lock = StateDirLock(state)
    lock.acquire()  # the next run gets in
    lock.release()
