"""Builds the speech adapters and the chat model for a route from the settings (pure construction, no I/O).

A route's options `STT`, `TTS` and `LLM` (env: `ROUTE_<NAME>_STT` ...) override the global `STT_PROVIDER`,
`TTS_PROVIDER` and `LLM_PROVIDER`; `auto` means openai when `OPENAI_API_KEY` is set. A provider that cannot be
used (unknown name, or openai without a key) raises `ConfigError` naming the setting.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ai_operator.config.settings import LLM_CHOICES, STT_CHOICES, TTS_CHOICES, ConfigError, Route, Settings
from ai_operator.speech.cache import CachedTTS
from ai_operator.speech.espeak import EspeakTTS
from ai_operator.speech.model import ChatModel
from ai_operator.speech.openai_tts import OpenAITTS
from ai_operator.speech.stt import OpenAITranscriber, SpeechToText
from ai_operator.speech.tts import TextToSpeech


def _resolve(
    settings: Settings, route: Route | None, option: str, global_key: str, choices: tuple[str, ...]
) -> str:
    """The provider name for `route` (its option wins over the global key), with `auto` resolved."""
    raw = route.option(option).strip().lower() if route is not None else ""
    where = f"ROUTE_{route.name.upper()}_{option}" if raw and route is not None else global_key
    value = raw or str(settings.get(global_key)).strip().lower()
    if value not in choices:
        raise ConfigError(f"{where}: expected one of {', '.join(choices)}, got {value!r}")
    key = settings.get("OPENAI_API_KEY")
    if value == "auto":
        fallback = "espeak" if "espeak" in choices else "none"
        return "openai" if key else fallback
    if value == "openai" and not key:
        raise ConfigError(f"{where}: provider openai needs OPENAI_API_KEY, which is not set")
    return value


def _openai_kwargs(settings: Settings) -> dict[str, Any]:
    return {"api_key": settings.get("OPENAI_API_KEY"), "base_url": settings.get("OPENAI_BASE_URL") or None}


def stt_provider(settings: Settings, route: Route | None) -> str:
    return _resolve(settings, route, "STT", "STT_PROVIDER", STT_CHOICES)


def tts_provider(settings: Settings, route: Route | None) -> str:
    return _resolve(settings, route, "TTS", "TTS_PROVIDER", TTS_CHOICES)


def llm_provider(settings: Settings, route: Route | None) -> str:
    return _resolve(settings, route, "LLM", "LLM_PROVIDER", LLM_CHOICES)


def build_stt(settings: Settings, route: Route | None) -> SpeechToText | None:
    """The route's speech-to-text, or None when it has none (the policy then works with DTMF/silence only)."""
    if stt_provider(settings, route) == "none":
        return None
    return OpenAITranscriber(
        **_openai_kwargs(settings),
        model=settings.get("STT_MODEL"),
        timeout_s=float(settings.get("STT_TIMEOUT_S")),
    )


def build_tts(settings: Settings, route: Route | None, cache_dir: Path) -> CachedTTS:
    """The route's text-to-speech, always behind the line cache in `cache_dir`."""
    inner: TextToSpeech
    if tts_provider(settings, route) == "openai":
        inner = OpenAITTS(
            **_openai_kwargs(settings), model=settings.get("TTS_MODEL"), voice=settings.get("TTS_VOICE")
        )
    else:
        inner = EspeakTTS()
    return CachedTTS(inner, cache_dir)


def build_model(settings: Settings, route: Route | None) -> ChatModel | None:
    """The route's chat model, or None (the policy then speaks its fixed fallback lines)."""
    if llm_provider(settings, route) == "none":
        return None
    return ChatModel(
        **_openai_kwargs(settings),
        model=settings.get("LLM_MODEL"),
        timeout_s=float(settings.get("LLM_TIMEOUT_S")),
    )


__all__ = ["build_model", "build_stt", "build_tts", "llm_provider", "stt_provider", "tts_provider"]
