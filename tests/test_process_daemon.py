"""The real daemon process (`ai-operator run`) against the simulated PBX: systemd readiness over a real
NOTIFY_SOCKET, SIGHUP with a changed route table (and a broken one), SIGTERM mid-call, records, exit code,
and no secret in any log line."""

from __future__ import annotations

import asyncio
import json
import os
import signal
import socket
import sys
from pathlib import Path

import pytest

from ai_operator.config import parse_env_text
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.sim.pbx import SimulatedPbx
from ai_operator.sim.stage import ScriptedTranscripts, espeak_pcm
from ai_operator.storage.database import Database
from ai_operator.storage.records import RecordStore
from tests.support.wait import eventually

pytestmark = pytest.mark.slow
ARI_PASSWORD = "s3cret-ari-pw"
API_KEY = "sk-test-0123456789"


def env_text(ari_url: str, openai_url: str, state: Path, *, test_on: bool, freight_on: bool) -> str:
    repo = Path(__file__).resolve().parents[1]
    return f"""
ARI_URL={ari_url}
ARI_USER=ai-operator
ARI_PASSWORD={ARI_PASSWORD}
ARI_APP=ai-operator
RTP_PORT_MIN=47000
RTP_PORT_MAX=47099
STATE_DIR={state}
OPENAI_API_KEY={API_KEY}
OPENAI_BASE_URL={openai_url}
STT_PROVIDER=openai
TTS_PROVIDER=espeak
LLM_PROVIDER=none
VAD_END_SILENCE_MS=400
DRAIN_TIMEOUT_S=2
METRICS_PORT=0
OVERLOAD_LAG_MS=5000
LOG_FORMAT=json
ROUTE_TEST_ENABLED={"true" if test_on else "false"}
ROUTE_TEST_POLICY=operator
ROUTE_FREIGHT_ENABLED={"true" if freight_on else "false"}
ROUTE_FREIGHT_POLICY=freight
ROUTE_FREIGHT_LOAD={repo / "etc/loads/sample.json"}
"""


class Notify:
    """A real AF_UNIX datagram socket standing in for systemd's NOTIFY_SOCKET."""

    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
        self.sock.bind(str(path))
        self.sock.setblocking(False)
        self.path = path
        self.messages: list[str] = []

    async def wait_for(self, needle: str, timeout: float) -> None:
        """Until a message containing `needle` arrives (messages that came before this call do not count)."""
        loop = asyncio.get_running_loop()
        try:
            async with asyncio.timeout(timeout):
                while True:
                    self.messages.append((await loop.sock_recv(self.sock, 4096)).decode())
                    if needle in self.messages[-1]:
                        return
        except TimeoutError:
            raise AssertionError(f"no {needle!r} on NOTIFY_SOCKET within {timeout:g} s; got {self.messages}") from None


async def test_reload_and_drain_on_the_real_process(tmp_path):
    pbx = SimulatedPbx(user="ai-operator", password=ARI_PASSWORD)
    ari_url = await pbx.start()
    fake = FakeOpenAI(api_key=API_KEY)
    transcripts = ScriptedTranscripts()
    fake.transcripts = transcripts
    openai_url = await fake.start()
    state = tmp_path / "state"
    env = tmp_path / "ai-operator.env"
    env.write_text(env_text(ari_url, openai_url, state, test_on=True, freight_on=False))
    notify = Notify(tmp_path / "notify.sock")
    # As systemd's EnvironmentFile= would: every key of the file also in the daemon's environment, frozen at
    # start. A reload must still see the edited file.
    exported = {e.key: e.value for e in parse_env_text(env.read_text(), str(env))}
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ai_operator", "run", "--env", str(env),
        env={**os.environ, **exported, "NOTIFY_SOCKET": str(notify.path)},
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
    )
    logs: list[bytes] = []

    async def drain_logs() -> None:
        assert proc.stderr is not None
        async for line in proc.stderr:
            logs.append(line)

    reader = asyncio.create_task(drain_logs())
    try:
        await notify.wait_for("READY=1", timeout=60)

        # freight is disabled: back to the dialplan, never answered
        rejected = await pbx.place_call("freight")
        await eventually(lambda: rejected.state == "dialplan", 10, "the disabled route's call continued in the dialplan")

        # a call in progress on the test route
        kept = await pbx.place_call("test")
        await kept.wait_media(timeout=15)
        transcripts.current = "русский"
        kept.say(await espeak_pcm("русский", "ru"))

        # SIGHUP with a changed route table: freight on, test off
        env.write_text(env_text(ari_url, openai_url, state, test_on=False, freight_on=True))
        proc.send_signal(signal.SIGHUP)
        await notify.wait_for("RELOADING=1", timeout=10)
        await notify.wait_for("READY=1", timeout=10)  # sent once the new settings are in force
        new_freight = await pbx.place_call("freight")
        await new_freight.wait_media(timeout=15)
        new_test = await pbx.place_call("test")
        await eventually(lambda: new_test.state == "dialplan", 10, "the test route's call continued after the reload")
        assert kept.state == "up"  # the call in progress kept its route

        # a broken env file is rejected and the old settings stay
        env.write_text("ARI_URL=http://x\nthis is not a setting\n")
        proc.send_signal(signal.SIGHUP)
        await notify.wait_for("RELOADING=1", timeout=10)
        await notify.wait_for("READY=1", timeout=10)  # the reload is over (refused)
        still = await pbx.place_call("freight")
        await still.wait_media(timeout=15)

        # SIGTERM mid-call: drain for DRAIN_TIMEOUT_S, then every call gets its closing line, then exit 0
        frames_before = {c.channel_id: len(c.received) for c in (kept, new_freight, still)}
        proc.send_signal(signal.SIGTERM)
        code = await asyncio.wait_for(proc.wait(), timeout=60)
        assert code == 0
        for call in (kept, new_freight, still):
            assert call.state == "hungup" and call.hung_up_by == "app"
            heard_s = (len(call.received) - frames_before[call.channel_id]) * 0.02
            assert heard_s > 1.0, f"{call.channel_id} heard only {heard_s:.2f}s after SIGTERM"
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await reader
        await fake.stop()
        await pbx.stop()

    lines = [json.loads(raw) for raw in logs if raw.startswith(b"{")]
    assert any(e.get("event") == "reload_rejected" for e in lines)
    # nothing secret in any log line
    blob = b"".join(logs).decode(errors="replace")
    assert ARI_PASSWORD not in blob and API_KEY not in blob
    # every call line says which call and which route
    for e in lines:
        if e.get("event") in ("call_started", "call_ended", "bot_says", "caller_said", "call_media_ready"):
            assert e.get("call_id") and e.get("route"), e

    db = await Database.open(None, state)
    try:
        store = RecordStore(db, state / "spool-check.jsonl")
        for call in (kept, new_freight, still):
            rec = await store.get_call(call.channel_id)
            assert rec is not None and rec["ended_by"] == "bot" and rec["disposition"] == "shutdown", rec
            assert rec["turns"] and rec["ended_at"] is not None
        assert ((await store.get_call(kept.channel_id)) or {}).get("route") == "test"
        assert ((await store.get_call(new_freight.channel_id)) or {}).get("route") == "freight"
        assert await store.get_call(rejected.channel_id) is None
    finally:
        await db.close()
