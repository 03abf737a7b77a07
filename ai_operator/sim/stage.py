"""A stage for the real daemon against the simulated PBX, in one process: the demo, the integration tests and
the benchmarks use it. Also the caller side: espeak-ng speech for the simulated caller, and a scripted
transcriber served by the local OpenAI-compatible test server (for machines without a real STT).
"""

from __future__ import annotations

import asyncio
import dataclasses
import secrets
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ai_operator.config import Settings
from ai_operator.daemon.app import Daemon
from ai_operator.daemon.manager import CallManager
from ai_operator.daemon.services import DaemonOverrides, Services
from ai_operator.providers.openai import OpenAISettings
from ai_operator.sim.pbx import SimCall, SimulatedPbx

DAEMON_READY_TIMEOUT_S = 30.0


async def espeak_pcm(text: str, language: str) -> np.ndarray:
    """`text` spoken by espeak-ng, int16 at 8 kHz (the simulated caller's voice)."""
    from ai_operator.speech.espeak import EspeakTTS

    chunks = [c async for c in EspeakTTS().stream(text, language)]
    return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)


WAV_HEADER_BYTES = 44  # speech/wav.py's encode_wav: the canonical RIFF header

class ScriptedTranscripts:
    """What the local test server answers to a transcription request: the line the caller is saying now.

    Honest simulation for machines with no speech recognizer: the caller's audio is real (espeak-ng, over RTP,
    through the real VAD); the text comes from the caller's script. A second fragment of the same line is
    transcribed as empty. Audio that continues the audio of the request before (the daemon transcribed the
    utterance at a pause, `daemon/early_stt.py`, then the caller went on) is that request's line.
    """

    def __init__(self) -> None:
        self.current: str = ""
        self._last: tuple[bytes, str] = (b"", "")

    def __call__(self, wav: bytes, _fields: dict) -> str:
        audio = wav[WAV_HEADER_BYTES:]
        if not self.current and self._last[0] and audio.startswith(self._last[0]):
            return self._last[1]
        text, self.current = self.current, ""
        self._last = (audio, text)
        return text


@dataclass
class Stage:
    pbx: SimulatedPbx
    daemon: Daemon
    settings: Settings
    fake_openai: Any = None
    transcripts: ScriptedTranscripts | None = None

    @property
    def svc(self) -> Services:
        """The running daemon's services (a stage exists only once the daemon is ready)."""
        assert self.daemon.svc is not None
        return self.daemon.svc

    @property
    def manager(self) -> CallManager:
        """The running daemon's call manager."""
        assert self.daemon.manager is not None
        return self.daemon.manager

    def call_of(self, sim: SimCall) -> Any:
        """The daemon's `Call` object for a simulated call (None once it has ended)."""
        return self.manager.calls.get(sim.channel_id)

    async def wait_bot_quiet(self, sim: SimCall, *, min_turns: int = 0, timeout: float = 30.0, quiet_s: float = 0.3) -> None:
        """Until the bot has taken `min_turns` turns and is neither thinking nor speaking."""
        deadline = time.monotonic() + timeout
        quiet_since: float | None = None
        while time.monotonic() < deadline:
            call = self.call_of(sim)
            if call is None:
                return
            if call.turn_log.seq >= min_turns and not call.busy:
                quiet_since = quiet_since or time.monotonic()
                if time.monotonic() - quiet_since >= quiet_s:
                    return
            else:
                quiet_since = None
            await asyncio.sleep(0.05)
        raise TimeoutError(f"bot still busy after {timeout} s")

    async def wait_call_ended(self, sim: SimCall, timeout: float = 30.0) -> None:
        """Until the daemon has torn the call down and written its record."""
        deadline = time.monotonic() + timeout
        while self.call_of(sim) is not None:
            if time.monotonic() > deadline:
                raise TimeoutError(f"call {sim.channel_id} still up after {timeout} s")
            await asyncio.sleep(0.02)

    async def say(self, sim: SimCall, text: str, language: str) -> None:
        """The simulated caller says `text` (espeak-ng audio over RTP); the scripted STT will hear `text`."""
        if self.transcripts is not None:
            self.transcripts.current = text
        sim.say(await espeak_pcm(text, language))
        await sim.wait_said(timeout=60)


@asynccontextmanager
async def simulated_stage(
    settings: Settings,
    *,
    state_dir: Path,
    scripted_stt: bool = True,
    overrides: DaemonOverrides | None = None,
    **values: Any,
) -> AsyncIterator[Stage]:
    """Start the simulated PBX and the daemon against it; stop both on exit. With `scripted_stt` and no STT in
    `overrides`, the daemon hears the caller's script (`Stage.say`) through the local OpenAI-compatible server."""
    password = secrets.token_hex(8)
    pbx = SimulatedPbx(user="ai-operator", password=password)
    url = await pbx.start()
    fake = transcripts = None
    overrides = overrides or DaemonOverrides()
    try:
        if scripted_stt and overrides.stt is None:
            from ai_operator.sim.openai_server import FakeOpenAI
            from ai_operator.speech.stt import OpenAITranscriber

            fake = FakeOpenAI()
            transcripts = ScriptedTranscripts()
            fake.transcripts = transcripts
            base = await fake.start()
            account = settings.group(OpenAISettings)
            timeout_s = float(values.get("STT_TIMEOUT_S", account.stt_timeout_s))
            stt = OpenAITranscriber(api_key=fake.api_key, base_url=base, model=account.stt_model,
                                    timeout_s=timeout_s)
            overrides = dataclasses.replace(overrides, stt=stt)
        staged = settings.with_values(
            ARI_URL=url,
            ARI_USER="ai-operator",
            ARI_PASSWORD=password,
            STATE_DIR=str(state_dir),
            METRICS_PORT=values.pop("METRICS_PORT", 0),
            **values,
        )
        daemon = Daemon(staged, env_path=None, overrides=overrides)
        task = asyncio.create_task(daemon.serve())
        ready = asyncio.create_task(daemon.ready.wait())
        done, _ = await asyncio.wait({task, ready}, timeout=DAEMON_READY_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
        if ready not in done:
            ready.cancel()
            if task in done:
                raise RuntimeError(f"daemon stopped before it was ready (exit {task.result()})")
            raise TimeoutError("daemon not ready in time")
        try:
            yield Stage(pbx, daemon, staged, fake, transcripts)
        finally:
            daemon.request_stop()
            await asyncio.wait_for(task, timeout=60)
    finally:
        if fake is not None:
            await fake.stop()
        await pbx.stop()
