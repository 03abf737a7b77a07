"""The factory picks STT, TTS and model per route from a real env file, and names bad settings."""

from __future__ import annotations

import shutil
from pathlib import Path

import numpy as np
import pytest

from ai_operator.config.settings import ConfigError, load_settings
from ai_operator.llm.chat import ChatModel
from ai_operator.providers import build_model, build_stt, build_tts
from ai_operator.providers.guarded import FallbackLineTTS
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.speech.cache import CachedTTS
from ai_operator.speech.espeak import EspeakTTS
from ai_operator.speech.openai_tts import OpenAITTS
from ai_operator.speech.stt import OpenAITranscriber
from ai_operator.speech.tts import synthesize

KEY = "sk-factory-key-987654"


def settings_from(tmp_path: Path, text: str):
    path = tmp_path / "ai-operator.env"
    path.write_text(text, encoding="utf-8")
    return load_settings(path, environ={})


def test_no_key_means_offline_defaults(tmp_path: Path) -> None:
    s = settings_from(tmp_path, "ROUTE_TEST_ENABLED=false\n")
    route = s.route("test")
    assert build_stt(s, route) is None
    assert build_model(s, route) is None
    tts = build_tts(s, route, tmp_path / "cache")
    assert isinstance(tts, CachedTTS) and isinstance(tts.inner, EspeakTTS)
    assert build_stt(s, None) is None  # no route (console) uses the globals


def test_key_makes_auto_openai_with_settings_and_route_overrides(tmp_path: Path) -> None:
    s = settings_from(
        tmp_path,
        f"OPENAI_API_KEY={KEY}\nOPENAI_BASE_URL=http://127.0.0.1:1/v1\nSTT_MODEL=whisper-x\nSTT_TIMEOUT_S=2.5\n"
        "TTS_VOICE=nova\nLLM_MODEL=gpt-x\nLLM_TIMEOUT_S=1.5\n"
        "ROUTE_MAIN_ENABLED=false\n"
        "ROUTE_CHEAP_ENABLED=false\nROUTE_CHEAP_STT=none\nROUTE_CHEAP_TTS=espeak\nROUTE_CHEAP_LLM=none\n",
    )
    main = s.route("main")
    stt = build_stt(s, main)
    assert isinstance(stt, OpenAITranscriber) and stt.model == "whisper-x" and stt.timeout_s == 2.5
    tts = build_tts(s, main, tmp_path)
    assert isinstance(tts, FallbackLineTTS) and isinstance(tts.primary.inner, OpenAITTS)
    assert tts.primary.inner.voice == "nova" and isinstance(tts.fallback.inner, EspeakTTS)  # the local voice behind
    model = build_model(s, main)
    assert isinstance(model, ChatModel) and model.model == "gpt-x" and model.timeout_s == 1.5
    cheap = s.route("cheap")
    assert build_stt(s, cheap) is None
    assert build_model(s, cheap) is None
    assert isinstance(build_tts(s, cheap, tmp_path).inner, EspeakTTS)


def test_route_can_turn_openai_on_when_global_is_off(tmp_path: Path) -> None:
    s = settings_from(
        tmp_path,
        f"OPENAI_API_KEY={KEY}\nSTT_PROVIDER=none\nLLM_PROVIDER=none\nTTS_PROVIDER=espeak\n"
        "ROUTE_VIP_ENABLED=false\nROUTE_VIP_STT=openai\nROUTE_VIP_LLM=openai\nROUTE_VIP_TTS=openai\n",
    )
    assert build_stt(s, s.route("vip")) is not None
    assert build_model(s, s.route("vip")) is not None
    vip_tts = build_tts(s, s.route("vip"), tmp_path)
    assert isinstance(vip_tts, FallbackLineTTS) and isinstance(vip_tts.primary.inner, OpenAITTS)
    assert build_stt(s, None) is None


def test_bad_provider_settings_are_named(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="ROUTE_X_STT='whisperx': expected one of auto, openai, openai_realtime, none, got 'whisperx'"):
        settings_from(tmp_path, "ROUTE_X_ENABLED=true\nROUTE_X_POLICY=operator\nROUTE_X_STT=whisperx\n")
    s = settings_from(tmp_path, "ROUTE_Y_ENABLED=false\nROUTE_Y_LLM=openai\n")
    with pytest.raises(ConfigError, match="ROUTE_Y_LLM: provider openai needs OPENAI_API_KEY"):
        build_model(s, s.route("y"))


async def test_built_adapters_work_against_the_local_server(tmp_path: Path) -> None:
    async with FakeOpenAI(api_key=KEY) as server:
        s = settings_from(tmp_path, f"OPENAI_API_KEY={KEY}\nOPENAI_BASE_URL={server.base_url}\n")
        server.transcripts = ["алло"]
        server.chat_script = [{"content": "Здравствуйте"}]
        server.speech_audio = lambda text: (np.ones(2400) * 1000).astype(np.int16)
        stt = build_stt(s, None)
        assert stt is not None and await stt.transcribe(np.ones(800, dtype=np.int16), "ru") == "алло"
        model = build_model(s, None)
        assert (
            model is not None
            and await model.complete("sys", [{"role": "user", "content": "hi"}]) == "Здравствуйте"
        )
        audio = await synthesize(build_tts(s, None, tmp_path / "c"), "привет", "ru")
        assert abs(audio.size - 800) <= 4
        assert [r["path"] for r in server.requests] == [
            "/v1/audio/transcriptions",
            "/v1/chat/completions",
            "/v1/audio/speech",
        ]


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
async def test_default_tts_speaks_offline(tmp_path: Path) -> None:
    s = settings_from(tmp_path, "")
    audio = await synthesize(build_tts(s, None, tmp_path), "Сәлеметсіз бе", "kk")
    assert audio.size > 4000
