"""Shared set-up of the daemon end-to-end tests: one embedded PostgreSQL (with the sample KB ingested) for the
whole session, a stage (simulated PBX + real daemon) per test, and caller-side instruments (when the caller's
speech frames went out, when the call ended, what the daemon sent) read off the simulated PBX.

Calls run in real time, so the timings are short and the bot speaks with espeak-ng at a fast rate (still real
espeak-ng audio through the real RTP path).
"""

from __future__ import annotations

import asyncio
import dataclasses
import io
import tempfile
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from ai_operator.config import Settings, load_settings
from ai_operator.daemon.services import DaemonOverrides
from ai_operator.media.codecs import FRAME_SAMPLES
from ai_operator.sim.pbx import SimCall
from ai_operator.sim.stage import Stage, simulated_stage
from ai_operator.speech.cache import CachedTTS
from ai_operator.speech.espeak import EspeakTTS
from ai_operator.speech.tts import LineTTS

REPO = Path(__file__).resolve().parents[2]
ENV_EXAMPLE = REPO / "etc" / "ai-operator.env.example"
SAMPLE_KB = REPO / "etc" / "kb" / "sample.jsonl"
FRAME_S = 0.020
BOT_WPM = 300  # espeak-ng rate of the bot: fast, to keep real-time calls short
CALLER_WPM = 220  # espeak-ng rate of the simulated caller
SPEECH_LEVEL = 500  # |sample| above this counts as the start of the caller's voice (leading silence trimmed)
FAST = {  # timings that keep real-time calls short
    "VAD_END_SILENCE_MS": 300,
    "IDLE_TIMEOUT_S": 30.0,
    "HANGUP_WATCHDOG_S": 8.0,
    "HANGUP_GRACE_MS": 400,
    "STT_TIMEOUT_S": 3.0,
    "MAX_CALLS": 200,
    "OVERLOAD_LAG_MS": 5000,  # a busy test machine is not an overloaded daemon (tests/test_ops_overload.py)
}


@dataclass
class DaemonBase:
    settings: Settings
    state_dir: Path


def start_daemon_base() -> tuple[DaemonBase, Any]:
    """A state dir whose embedded PostgreSQL is started (and held) here, with `etc/kb/sample.jsonl` ingested.
    Returns the base and the server to release; `tests/conftest.py` keeps one per test session."""
    from ai_operator.kb.commands import kb_ingest
    from ai_operator.storage.embedded import EmbeddedServer

    # Not under pytest's basetemp: other pytest runs on the machine rotate those folders away.
    state = Path(tempfile.mkdtemp(prefix="ai-operator-daemon-tests-"))
    server = EmbeddedServer.in_state_dir(state)
    server.start()  # held: each stage's Database joins it instead of starting its own
    settings = load_settings(ENV_EXAMPLE, environ={}).with_values(STATE_DIR=str(state), DATABASE_URL="")
    out = io.StringIO()
    code = asyncio.run(kb_ingest(settings, SAMPLE_KB, prune=False, reembed=False, out=out))
    assert code == 0, out.getvalue()
    return DaemonBase(settings, state), server


def bot_tts(state_dir: Path) -> CachedTTS:
    return CachedTTS(EspeakTTS(rate_wpm=BOT_WPM), state_dir / "tts-fast")


@asynccontextmanager
async def stage_for(base: DaemonBase, *, overrides: DaemonOverrides | None = None, **values: Any) -> AsyncIterator[Stage]:
    """The simulated PBX and the real daemon on the shared database, with short timings (and the fast bot
    voice unless `overrides` bring a TTS)."""
    ov = overrides or DaemonOverrides()
    if ov.tts is None:
        ov = dataclasses.replace(ov, tts=bot_tts(base.state_dir))
    async with simulated_stage(base.settings, state_dir=base.state_dir, overrides=ov, **{**FAST, **values}) as stage:
        yield stage


# ---- caller-side instruments -----------------------------------------------------------------------------
class Caller:
    """Wraps a SimCall: timestamps of the caller's speech frames and of the call's end, as the PBX saw them."""

    last_voiced_index = 0  # set by tests that time the caller against a bot line

    def __init__(self, stage: Stage, sim: SimCall) -> None:
        self.stage = stage
        self.sim = sim
        self.speech_frames: list[float] = []  # monotonic send time of every queued caller frame
        self.ended_at: float | None = None
        orig_next, orig_end = sim.next_frame, sim.mark_ended

        def next_frame() -> np.ndarray | None:
            frame = orig_next()
            if frame is not None:
                self.speech_frames.append(time.monotonic())
            return frame

        def mark_ended(state: str, by: str | None = None) -> None:
            if self.ended_at is None:
                self.ended_at = time.monotonic()
            orig_end(state, by)

        sim.next_frame = next_frame  # type: ignore[method-assign]
        sim.mark_ended = mark_ended  # type: ignore[method-assign]

    @classmethod
    async def place(cls, stage: Stage, route: str = "test") -> Caller:
        sim = await stage.pbx.place_call(route, caller_number="+77010000001")
        caller = cls(stage, sim)
        await sim.wait_media(timeout=10)
        return caller

    async def say(self, text: str, language: str = "ru") -> float:
        """Speak `text` (leading silence trimmed); returns when its first frame was sent (monotonic)."""
        pcm = trim_leading_silence(await caller_pcm(text, language))
        n = len(self.speech_frames)
        if self.stage.transcripts is not None:
            self.stage.transcripts.current = text
        self.sim.say(pcm)
        await self.sim.wait_said(timeout=60)
        return self.speech_frames[n]

    async def turn(self, text: str, language: str = "ru") -> float:
        """Say `text` and wait until the bot's reply to it has played; returns when its first frame was sent."""
        turns = self.turns()
        started = await self.say(text, language)
        await self.quiet(min_turns=turns + 1)
        return started

    def frames_between(self, start: float, end: float = float("inf")) -> list[float]:
        return [t for t, _ in self.sim.received if start <= t < end]

    async def quiet(self, min_turns: int = 0, timeout: float = 30.0) -> None:
        await self.stage.wait_bot_quiet(self.sim, min_turns=min_turns, timeout=timeout, quiet_s=0.3)

    def turns(self) -> int:
        call = self.stage.call_of(self.sim)
        return call.turn_log.seq if call is not None else -1

    async def record(self, timeout: float = 20.0) -> dict[str, Any]:
        """The call's record once it has ended and its turns are written."""
        await self.stage.wait_call_ended(self.sim, timeout=timeout)
        record = await self.stage.svc.records.get_call(self.sim.channel_id)
        assert record is not None, f"no record for {self.sim.channel_id}"
        return record


async def caller_pcm(text: str, language: str) -> np.ndarray:
    """The simulated caller's voice: espeak-ng at CALLER_WPM, int16 8 kHz."""
    chunks = [c async for c in EspeakTTS(rate_wpm=CALLER_WPM).stream(text, language)]
    return np.concatenate(chunks) if chunks else np.zeros(0, dtype=np.int16)


def trim_leading_silence(pcm: np.ndarray) -> np.ndarray:
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > SPEECH_LEVEL)
    return pcm[loud[0] :] if loud.size else pcm


async def bot_line_audio(tts: LineTTS, text: str, language: str, policy: str = "operator") -> np.ndarray:
    """The audio of a bot line as the bot plays it: the same cached TTS, voiced as the policy says, with the
    silence around the line trimmed as the speaker does."""
    from ai_operator.media.trim import SilenceTrimmer
    from policies import load_policy

    trimmer = SilenceTrimmer()
    parts: list[np.ndarray] = []
    for part, voice in load_policy(policy).voice_segments(text, language):
        async for chunk in tts.stream(part, voice, cache=True):
            parts.append(trimmer.push(chunk))
    parts.append(trimmer.end())
    return np.concatenate(parts)


async def synthesized_frames(tts: LineTTS, text: str, language: str, policy: str = "operator") -> int:
    """How many 20 ms frames the bot plays for `text`."""
    return -(-len(await bot_line_audio(tts, text, language, policy)) // FRAME_SAMPLES)


def runs(times: list[float], gap_s: float = 0.1) -> list[list[float]]:
    """Received frame times split into talkspurts wherever the gap exceeds `gap_s`."""
    out: list[list[float]] = []
    for t in times:
        if out and t - out[-1][-1] <= gap_s:
            out[-1].append(t)
        else:
            out.append([t])
    return out


def hangup_requests(stage: Stage, channel_id: str) -> list[Any]:
    return [r for r in stage.pbx.requests if r[0] == "DELETE" and r[1] == f"/channels/{channel_id}"]


def metric(stage: Stage, name: str, labels: dict[str, str]) -> float:
    value = stage.svc.metrics.registry.get_sample_value(name, labels)
    return float(value or 0.0)
