"""Which STT, TTS and chat model a route uses, built from the settings through the registry (no I/O).

A route's `STT`, `TTS` and `LLM` options override `STT_PROVIDER`, `TTS_PROVIDER` and `LLM_PROVIDER`; `auto` is the
first registered provider of the kind whose settings are complete (openai when `OPENAI_API_KEY` is set), else
none (TTS: espeak). A provider named explicitly without its settings raises `ConfigError` naming the setting.
With a `ProviderBoard`, every adapter is wrapped once, here, in its provider's breaker (`guarded.py`); a remote
voice gets the local espeak-ng voice as its fallback. A streaming STT serves the segmented turn path through
`SegmentedOverStreaming`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import ai_operator.providers.registry as registry
from ai_operator.config import ConfigError, Route, Settings
from ai_operator.providers.guarded import FallbackLineTTS, GuardedModel, GuardedSTT, GuardedTTS
from ai_operator.providers.health import ProviderBoard
from ai_operator.speech.cache import CachedTTS
from ai_operator.speech.streaming_stt import SegmentedOverStreaming, StreamingSpeechToText
from ai_operator.speech.stt import SpeechToText
from ai_operator.speech.tts import LineTTS

FALLBACK_VOICE = "espeak"  # the local voice every remote TTS falls back to
_OPTION = {"stt": "STT", "tts": "TTS", "llm": "LLM"}


def resolve(settings: Settings, route: Route | None, kind: str) -> str:
    """The provider name of `kind` for `route` (its option wins over the global key), `auto` resolved."""
    option = _OPTION[kind]
    override = getattr(route, kind) if route is not None else None
    where = f"ROUTE_{route.name.upper()}_{option}" if override and route is not None else f"{option}_PROVIDER"
    value: str = override or getattr(settings.speech, f"{kind}_provider")
    if value == registry.NONE:
        return value
    if value == registry.AUTO:
        for spec in registry.providers():
            if spec.builder(kind) is not None and (spec.missing is None or spec.missing(settings) is None):
                return spec.name
        return FALLBACK_VOICE if kind == "tts" else registry.NONE
    spec = registry.get(value)
    lacking = spec.missing(settings) if spec.missing is not None else None
    if lacking:
        raise ConfigError(f"{where}: provider {value} needs {lacking}, which is not set")
    return value


def stt_provider(settings: Settings, route: Route | None) -> str:
    return resolve(settings, route, "stt")


def tts_provider(settings: Settings, route: Route | None) -> str:
    return resolve(settings, route, "tts")


def llm_provider(settings: Settings, route: Route | None) -> str:
    return resolve(settings, route, "llm")


def used_providers(settings: Settings) -> set[tuple[str, str]]:
    """(provider, kind) of every enabled route: what the start check asks."""
    used: set[tuple[str, str]] = set()
    for route in settings.routes.values():
        if route.enabled:
            for kind in registry.KINDS:
                name = resolve(settings, route, kind)
                if name != registry.NONE:
                    used.add((name, kind))
    return used


def _build(settings: Settings, name: str, kind: str) -> Any:
    builder = registry.get(name).builder(kind)
    if builder is None:
        raise ConfigError(f"{_OPTION[kind]}_PROVIDER: provider {name} has no {kind}")
    return builder(settings)


def build_stt(settings: Settings, route: Route | None, board: ProviderBoard | None = None) -> SpeechToText | None:
    """The route's speech-to-text, or None when it has none (the policy then works with DTMF/silence only)."""
    name = stt_provider(settings, route)
    if name == registry.NONE:
        return None
    stt = _build(settings, name, "stt")
    if isinstance(stt, StreamingSpeechToText) and not isinstance(stt, SpeechToText):
        stt = SegmentedOverStreaming(stt)
    if board is None:
        return stt
    return GuardedSTT(stt, board.health(name, "stt"), registry.get(name).language)


def build_tts(settings: Settings, route: Route | None, cache_dir: Path, board: ProviderBoard | None = None) -> LineTTS:
    """The route's text-to-speech, always behind the line cache in `cache_dir`; a remote voice with the local
    voice as its fallback."""
    name = tts_provider(settings, route)
    spec = registry.get(name)
    bound = settings.storage.tts_cache_max_mb * 1024 * 1024
    inner = _build(settings, name, "tts")
    if board is not None and not spec.local:
        inner = GuardedTTS(inner, board.health(name, "tts"), spec.language)
    primary = CachedTTS(inner, cache_dir, max_disk_bytes=bound)
    if spec.local:
        return primary
    fallback = CachedTTS(_build(settings, FALLBACK_VOICE, "tts"), cache_dir, max_disk_bytes=bound)
    return FallbackLineTTS(primary, fallback)


def build_model(settings: Settings, route: Route | None, board: ProviderBoard | None = None) -> Any:
    """The route's chat model, or None (the policy then speaks its fixed fallback lines)."""
    name = llm_provider(settings, route)
    if name == registry.NONE:
        return None
    model = _build(settings, name, "llm")
    return model if board is None else GuardedModel(model, board.health(name, "llm"))
