"""Which STT, TTS and chat model a route uses, built from the settings (construction only, no I/O).

A route's `STT`, `TTS` and `LLM` options override `STT_PROVIDER`, `TTS_PROVIDER` and `LLM_PROVIDER`; `auto` means
openai when `OPENAI_API_KEY` is set. openai without a key raises `ConfigError` naming the setting.
"""

from __future__ import annotations

from pathlib import Path

from ai_operator.config import ConfigError, Route, Settings
from ai_operator.llm.chat import ChatModel
from ai_operator.speech.cache import CachedTTS
from ai_operator.speech.espeak import EspeakTTS
from ai_operator.speech.openai_tts import OpenAITTS
from ai_operator.speech.stt import OpenAITranscriber, SpeechToText
from ai_operator.speech.tts import TextToSpeech


def _resolve(settings: Settings, route: Route | None, option: str, global_key: str, global_value: str) -> str:
    """The provider for `route` (its option wins over the global key), with `auto` resolved."""
    override = getattr(route, option.lower()) if route is not None else None
    where = f"ROUTE_{route.name.upper()}_{option}" if override and route is not None else global_key
    value = override or global_value
    has_key = bool(settings.speech.openai_api_key)
    if value == "auto":
        return "openai" if has_key else ("espeak" if option == "TTS" else "none")
    if value == "openai" and not has_key:
        raise ConfigError(f"{where}: provider openai needs OPENAI_API_KEY, which is not set")
    return value


def stt_provider(settings: Settings, route: Route | None) -> str:
    return _resolve(settings, route, "STT", "STT_PROVIDER", settings.speech.stt_provider)


def tts_provider(settings: Settings, route: Route | None) -> str:
    return _resolve(settings, route, "TTS", "TTS_PROVIDER", settings.speech.tts_provider)


def llm_provider(settings: Settings, route: Route | None) -> str:
    return _resolve(settings, route, "LLM", "LLM_PROVIDER", settings.speech.llm_provider)


def _base_url(settings: Settings) -> str | None:
    return settings.speech.openai_base_url or None


def build_stt(settings: Settings, route: Route | None) -> SpeechToText | None:
    """The route's speech-to-text, or None when it has none (the policy then works with DTMF/silence only)."""
    if stt_provider(settings, route) == "none":
        return None
    sp = settings.speech
    return OpenAITranscriber(api_key=sp.openai_api_key, base_url=_base_url(settings), model=sp.stt_model,
                             timeout_s=sp.stt_timeout_s)


def build_tts(settings: Settings, route: Route | None, cache_dir: Path) -> CachedTTS:
    """The route's text-to-speech, always behind the line cache in `cache_dir`."""
    inner: TextToSpeech
    sp = settings.speech
    if tts_provider(settings, route) == "openai":
        inner = OpenAITTS(api_key=sp.openai_api_key, base_url=_base_url(settings), model=sp.tts_model,
                          voice=sp.tts_voice)
    else:
        inner = EspeakTTS()
    return CachedTTS(inner, cache_dir, max_disk_bytes=settings.storage.tts_cache_max_mb * 1024 * 1024)


def build_model(settings: Settings, route: Route | None) -> ChatModel | None:
    """The route's chat model, or None (the policy then speaks its fixed fallback lines)."""
    if llm_provider(settings, route) == "none":
        return None
    sp = settings.speech
    return ChatModel(api_key=sp.openai_api_key, base_url=_base_url(settings), model=sp.llm_model,
                     timeout_s=sp.llm_timeout_s)


__all__ = ["build_model", "build_stt", "build_tts", "llm_provider", "stt_provider", "tts_provider"]
