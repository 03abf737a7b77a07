"""A speech service that fails is never silence and never "healthy" (issue 24 §2), from the caller's side.

The daemon runs against the simulated PBX with its providers built from the settings (the registry, the breaker),
pointed at the local OpenAI-compatible server, which fails as a real one does: a wrong or revoked key (401), rate
limits (429), server errors (500), a hang, a dropped connection. Asserted: what the caller RECEIVES (voiced audio
after each thing they said, a polite goodbye instead of silence), what the call record says (disposition,
`provider_failures`, `provider_fallbacks`), and what /healthz and /metrics say over HTTP.
"""

from __future__ import annotations

import json
import math
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import aiohttp
import numpy as np
import pytest

from ai_operator.daemon.services import DaemonOverrides
from ai_operator.media.codecs import get_codec
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.sim.stage import ScriptedTranscripts, Stage, simulated_stage
from tests.support.daemon import FAST, Caller, DaemonBase, bot_tts
from tests.support.ports import closed_tcp_port

MODES = ["401", "429", "500", "hang", "drop"]
VOICED_RMS = 300.0  # a 20 ms frame louder than this carries the bot's voice
HEARD_S = 0.5  # the bot said something: at least this much voiced audio
SHORT_TIMEOUTS = {"STT_TIMEOUT_S": 1.0, "TTS_TIMEOUT_S": 1.0, "LLM_TIMEOUT_S": 1.0}


@asynccontextmanager
async def provider_stage(base: DaemonBase, fake: FakeOpenAI, *, remote_voice: bool = False, key: str | None = None,
                         **values: Any) -> AsyncIterator[Stage]:
    """The daemon with OpenAI STT (and, if asked, TTS and model) from the registry, on `fake`."""
    transcripts = ScriptedTranscripts()
    fake.transcripts = transcripts
    # the local voice speaks a bilingual closing line slower than the fast test voice: the watchdog waits for it
    settings = {**FAST, **SHORT_TIMEOUTS, "HANGUP_WATCHDOG_S": 30.0, "OPENAI_API_KEY": key or fake.api_key, "OPENAI_BASE_URL": fake.base_url,
                "STT_PROVIDER": "openai", "TTS_PROVIDER": "openai" if remote_voice else "espeak",
                "LLM_PROVIDER": "none", "METRICS_PORT": closed_tcp_port(),
                "TTS_PREWARM": "canned",  # only the greeting ahead: the lines after it reach the failing provider
                **values}
    overrides = DaemonOverrides() if remote_voice else DaemonOverrides(tts=bot_tts(base.state_dir))
    async with simulated_stage(base.settings, state_dir=base.state_dir, scripted_stt=False, overrides=overrides,
                               **settings) as stage:
        stage.transcripts = transcripts
        yield stage


def voiced_s(caller: Caller, start: float, end: float = math.inf) -> float:
    """Seconds of voiced audio the caller received between `start` and `end` (monotonic)."""
    codec = get_codec(caller.sim.media_format or "ulaw")
    voiced = 0
    for at, packet in caller.sim.received:
        if start <= at < end and codec.accepts(packet.payload_type):
            pcm = codec.decode(packet.payload).astype(np.float64)
            voiced += float(np.sqrt(np.mean(pcm * pcm))) > VOICED_RMS
    return voiced * 0.020


async def http_get(stage: Stage, path: str) -> tuple[int, str]:
    """GET `path` of the daemon's metrics server (same event loop as the daemon: an async client)."""
    async with aiohttp.ClientSession() as session, session.get(
            f"http://127.0.0.1:{stage.settings.ops.metrics_port}{path}", timeout=aiohttp.ClientTimeout(total=10)) as r:
        return r.status, await r.text()


async def get_json(stage: Stage, path: str) -> tuple[int, dict[str, Any]]:
    status, text = await http_get(stage, path)
    return status, json.loads(text)


def transcription_requests(fake: FakeOpenAI) -> int:
    return sum(1 for r in fake.requests if r["path"] == "/v1/audio/transcriptions")


async def stt_down_call(stage: Stage) -> tuple[Caller, dict[str, Any]]:
    """Greeting; the caller speaks three times into a dead STT: "can't hear you" twice, then the goodbye and the
    hang-up."""
    caller = await Caller.place(stage)
    await caller.quiet(min_turns=1)
    assert voiced_s(caller, 0.0) > HEARD_S  # the greeting
    first = await caller.say("Как оплатить интернет?")
    await caller.quiet(min_turns=2)
    second = await caller.say("Алло, вы меня слышите?")
    await caller.quiet(min_turns=3)
    third = await caller.say("Алло!")
    record = await caller.record(timeout=30)
    assert voiced_s(caller, first, second) > HEARD_S  # "Извините, не расслышал. Повторите, пожалуйста."
    assert voiced_s(caller, second, third) > HEARD_S  # the same again
    assert voiced_s(caller, third) > HEARD_S  # the closing line: "сервис временно недоступен ... До свидания."
    assert caller.sim.hung_up_by == "app"  # the bot ended it after its goodbye, not the caller, not a watchdog
    assert record["ended_by"] == "bot" and record["disposition"] == "stt_unavailable"
    assert [t["caller_text"] for t in record["turns"]][:3] == [None, "[not-heard]", "[not-heard]"]
    return caller, record


async def test_a_wrong_key_is_degraded_at_start_and_the_caller_hears_fallbacks_not_silence(daemon_base) -> None:
    # a cool-down longer than the call: no probe during it (the probe is tests/test_provider_health.py's)
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, remote_voice=True, key="sk-wrong-000000000",
                                                    LLM_PROVIDER="openai", PROVIDER_COOLDOWN_S=600) as stage:
        status, health = await get_json(stage, "/healthz")
        assert status == 200 and health["status"] == "degraded"  # still answering calls: not dead
        assert {h["state"] for h in health["providers"].values()} == {"open"}
        assert set(health["providers"]) == {"openai/stt", "openai/tts", "openai/llm"}
        assert all("HTTP 401" in r and "Incorrect API key" in r for r in health["reasons"])
        assert 'ai_operator_provider_state{kind="stt",provider="openai",state="open"} 1.0' in (await http_get(stage, "/metrics"))[1]
        _, record = await stt_down_call(stage)
        assert transcription_requests(fake) == 0  # the breaker was open: the caller never waited for it
        failures = record["summary"]["provider_failures"]
        assert "breaker open" in failures["stt"] and "HTTP 401" in failures["stt"]
        assert record["summary"]["provider_fallbacks"] == {"tts": "espeak"}  # every line in the local voice


@pytest.mark.parametrize("mode", MODES)
async def test_stt_failing_mid_call_goes_not_heard_then_goodbye(daemon_base, mode: str) -> None:
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake) as stage:
        assert (await get_json(stage, "/healthz"))[1]["status"] == "ok"
        fake.faults.set(mode, "transcriptions")
        _, record = await stt_down_call(stage)
        expected = {"401": "HTTP 401", "429": "HTTP 429", "500": "HTTP 500", "hang": "timeout",
                    "drop": "connection failed"}[mode]
        assert expected in record["summary"]["provider_failures"]["stt"]
        status, health = await get_json(stage, "/healthz")
        assert status == 200 and health["status"] == "degraded"
        stt = health["providers"]["openai/stt"]
        assert stt["state"] == "open" and expected in stt["reason"]  # a 401 at once, the others at the third
        assert stt["consecutive_failures"] == (1 if mode == "401" else 3)


@pytest.mark.parametrize("mode", MODES)
async def test_tts_failing_mid_call_speaks_in_the_local_voice(daemon_base, mode: str) -> None:
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, remote_voice=True) as stage:
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        assert voiced_s(caller, 0.0) > HEARD_S  # the greeting: the remote voice, prewarmed into the cache
        fake.faults.set(mode, "speech")
        said = await caller.say("По-русски, пожалуйста.")
        await caller.quiet(min_turns=2)
        assert voiced_s(caller, said) > HEARD_S  # the region question, in espeak-ng's voice
        await caller.sim.hangup()
        record = await caller.record()
        status, health = await get_json(stage, "/healthz")
    assert record["turns"][1]["caller_text"] == "По-русски, пожалуйста." and record["turns"][1]["bot_text"]
    assert record["summary"]["provider_fallbacks"] == {"tts": "espeak"}
    assert "tts provider openai" in record["summary"]["provider_failures"]["tts"]
    assert status == 200 and health["status"] == "degraded" and "openai/tts" in health["providers"]


@pytest.mark.parametrize("mode", MODES)
async def test_model_failing_gives_the_policy_fallback_answer(daemon_base, mode: str) -> None:
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, LLM_PROVIDER="openai") as stage:
        fake.faults.set(mode, "chat")
        caller = await Caller.place(stage)
        caller.sim.send_dtmf("1")
        await caller.quiet(min_turns=2)
        await caller.say("Я живу в Караганде.")
        await caller.quiet(min_turns=3)
        asked = await caller.say("Как оплатить интернет?")
        await caller.quiet(min_turns=4)
        assert voiced_s(caller, asked) > HEARD_S  # the knowledge-base answer, without the model
        await caller.sim.hangup()
        record = await caller.record()
        status, health = await get_json(stage, "/healthz")
    answer = record["turns"][-1]
    assert answer["caller_text"] == "Как оплатить интернет?" and answer["fields"]["answer"] == "kb"
    assert "model" in record["summary"]["provider_failures"]
    assert status == 200 and health["status"] == "degraded" and "openai/llm" in health["providers"]
