"""One daemon per STATE_DIR: a second `ai-operator run` on the same STATE_DIR exits 1 with one line naming the
holder's PID while the first keeps its calls and stays healthy; the lock goes with its holder however it dies;
the demo refuses a STATE_DIR a daemon holds."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from ai_operator.sim.pbx import SimulatedPbx
from ai_operator.storage.embedded import EmbeddedServer
from ai_operator.storage.state_lock import StateDirBusy, StateDirLock
from tests.support.wait import eventually

REPO = Path(__file__).resolve().parents[1]
HOLD = "import sys, time; from ai_operator.storage.state_lock import StateDirLock; StateDirLock(sys.argv[1]).acquire(); print('held', flush=True); time.sleep(600)"


def hold_lock(state: Path) -> subprocess.Popen[str]:
    """Another process holding STATE_DIR's lock (returns once it holds it)."""
    proc = subprocess.Popen([sys.executable, "-c", HOLD, str(state)], stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "held"
    return proc


def test_the_lock_is_exclusive_names_its_holder_and_dies_with_it(tmp_path) -> None:
    holder = hold_lock(tmp_path)
    try:
        with pytest.raises(StateDirBusy) as refused:
            StateDirLock(tmp_path).acquire()
        assert refused.value.holder == holder.pid
        assert f"PID {holder.pid}" in str(refused.value)
    finally:
        holder.send_signal(signal.SIGKILL)  # no clean-up of its own: the kernel releases the lock
        holder.wait()
    mine = StateDirLock(tmp_path)
    mine.acquire()
    assert (tmp_path / "lock").read_text().strip() == str(os.getpid())
    assert (tmp_path / "lock").stat().st_mode & 0o777 == 0o600
    mine.release()


def test_the_demo_refuses_a_state_dir_a_daemon_holds(tmp_path) -> None:
    holder = hold_lock(tmp_path)
    try:
        done = subprocess.run(
            [sys.executable, "-m", "ai_operator", "demo", "--env", str(REPO / "etc/ai-operator.env.example"),
             "--state-dir", str(tmp_path)], capture_output=True, text=True, timeout=120, cwd=tmp_path)
    finally:
        holder.kill()
        holder.wait()
    assert done.returncode == 1
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and f"PID {holder.pid}" in lines[0], done.stderr
    assert not (tmp_path / "pgdata").exists()  # nothing of the daemon's state was touched


def env_text(ari_url: str, password: str, state: Path, dsn: str) -> str:
    return "".join(f"{k}={v}\n" for k, v in {
        "ARI_URL": ari_url, "ARI_USER": "ai-operator", "ARI_PASSWORD": password, "ARI_APP": "ai-operator",
        "STATE_DIR": state, "DATABASE_URL": dsn, "METRICS_PORT": 0, "LOG_FORMAT": "json", "STT_PROVIDER": "none",
        "TTS_PROVIDER": "espeak", "LLM_PROVIDER": "none", "OVERLOAD_LAG_MS": 5000, "DRAIN_TIMEOUT_S": 1,
        "ROUTE_TEST_ENABLED": "true", "ROUTE_TEST_POLICY": "operator"}.items())


@pytest.mark.slow
async def test_a_second_daemon_on_the_same_state_dir_exits_and_the_first_keeps_its_calls(tmp_path, daemon_base) -> None:
    dsn = await asyncio.to_thread(EmbeddedServer.in_state_dir(daemon_base.state_dir).start)  # joins the session's
    pbx = SimulatedPbx(user="ai-operator", password="pw-lock-test")
    env = tmp_path / "ai-operator.env"
    env.write_text(env_text(await pbx.start(), "pw-lock-test", tmp_path / "state", dsn))
    clean = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    run = [sys.executable, "-m", "ai_operator", "run", "--env", str(env)]
    first = await asyncio.create_subprocess_exec(*run, env=clean, stderr=asyncio.subprocess.PIPE)
    try:
        await eventually(lambda: pbx.app_registered("ai-operator"), timeout=60, what="first daemon subscribed")
        call = await pbx.place_call("test")
        await call.wait_media(timeout=15)

        second = await asyncio.create_subprocess_exec(*run, env=clean, stderr=asyncio.subprocess.PIPE)
        _, err = await asyncio.wait_for(second.communicate(), timeout=60)
        assert second.returncode == 1
        lines = [json.loads(line) for line in err.decode().splitlines()]
        assert [e["event"] for e in lines] == ["state_dir_in_use"], lines
        assert lines[0]["holder_pid"] == first.pid

        # the first daemon still has its call and takes new ones
        assert call.state == "up" and first.returncode is None
        another = await pbx.place_call("test")
        await another.wait_media(timeout=15)
    finally:
        if first.returncode is None:
            first.send_signal(signal.SIGTERM)
            await asyncio.wait_for(first.wait(), timeout=60)
        await pbx.stop()
    assert first.returncode == 0


async def test_doctor_warns_when_another_client_is_subscribed_to_the_app(tmp_path) -> None:
    from ai_operator.ari.events_ws import AriEventStream
    from ai_operator.config import load_settings
    from ai_operator.doctor.ari_checks import ari_checks

    pbx = SimulatedPbx(user="ai-operator", password="pw-doctor")
    url = await pbx.start()
    other = AriEventStream(url, "ai-operator", "pw-doctor", "ai-operator")  # another client on our app

    async def consume() -> None:
        async for _ in other:
            pass

    task = asyncio.create_task(consume())
    try:
        await eventually(lambda: pbx.app_registered("ai-operator"), timeout=30, what="other client subscribed")
        env = tmp_path / "ai-operator.env"
        env.write_text(env_text(url, "pw-doctor", tmp_path / "state", ""))
        (tmp_path / "state").mkdir()
        settings = load_settings(env, environ={})
        checks = {c.name: c for c in await ari_checks(settings)}
        warned = checks["ARI application"]
        assert warned.status == "WARN" and "another client" in warned.detail

        lock = StateDirLock(tmp_path / "state")  # now this STATE_DIR's daemon runs (this process holds its lock)
        lock.acquire()
        try:
            checks = {c.name: c for c in await ari_checks(settings)}
        finally:
            lock.release()
        assert checks["ARI application"].status == "OK" and f"PID {os.getpid()}" in checks["ARI application"].detail
    finally:
        await other.close()
        task.cancel()
        await pbx.stop()
