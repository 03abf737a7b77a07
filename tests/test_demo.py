"""`ai-operator demo` survives a database fault (issue 11.4): the PostgreSQL under it is killed with SIGKILL in
the middle of the call; the call still runs to its goodbye, the knowledge-base question is told "can't look
that up now", and the demo still writes the WAV of what the caller heard and the record it has (what the
spool holds: the turns taken since the kill and the end of the call), and says where they are."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import wave
from pathlib import Path

import pytest

from ai_operator.config import load_settings
from ai_operator.sim.demo import run_demo
from policies.operator.catalog import say
from tests.support.storage import fresh_dsn, shared_server

ENV_EXAMPLE = Path(__file__).resolve().parents[1] / "etc" / "ai-operator.env.example"


class KillAfterRegion(io.StringIO):
    """The demo's output; once the caller has named a region, the database server is killed."""

    def __init__(self, kill) -> None:
        super().__init__()
        self.kill = kill
        self.killed = False

    def write(self, text: str) -> int:
        n = super().write(text)
        if not self.killed and "caller > Я живу в Караганде." in self.getvalue():
            self.killed = True
            self.kill()
        return n


@pytest.mark.slow
async def test_demo_survives_the_database_being_killed_mid_call(tmp_path: Path) -> None:
    server = shared_server()
    settings = load_settings(ENV_EXAMPLE, environ={}).with_values(DATABASE_URL=fresh_dsn(), KB_SEARCH_TIMEOUT_S=1.0)
    pid = server.postmaster_pid()
    assert pid is not None
    out = KillAfterRegion(lambda: os.kill(pid, signal.SIGKILL))
    try:
        code = await run_demo(settings, route_name="test", state_dir=str(tmp_path), out=out)
    finally:
        await asyncio.to_thread(server.restart)
    text = out.getvalue()
    assert out.killed, text
    assert say("kb_unavailable", "ru") in text
    wavs = list((tmp_path / "demo").glob("*-bot.wav"))
    assert len(wavs) == 1
    with wave.open(str(wavs[0])) as w:
        assert w.getframerate() == 8000 and w.getnframes() > 8000  # seconds of the bot's voice
    records = [p for p in (tmp_path / "demo").glob("*.json")]
    assert len(records) == 1
    record = json.loads(records[0].read_text(encoding="utf-8"))
    assert record["ended_by"] == "bot" and record["disposition"] == "completed"
    said = {t["caller_text"]: t["bot_text"] for t in record["turns"]}  # the turns taken after the kill
    assert said["Как оплатить интернет?"] == say("kb_unavailable", "ru")
    assert "Спасибо, до свидания." in said
    assert "spool" in text and str(wavs[0]) in text
    assert code == 0
