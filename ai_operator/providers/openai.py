"""The OpenAI (or any OpenAI-compatible server) provider: speech-to-text, text-to-speech and the chat model.

It owns its settings group (`OpenAISettings`: the account, models, voice and timeouts, with their env keys,
defaults and checks; `OpenAIConfig` is the view its adapters are built from), builds its adapters with the one
client plumbing (`openai_client.make_client`) and its check: an authenticated `GET /models`, bounded by
`CHECK_TIMEOUT_S`, whose failure reason names the endpoint and never the key.
"""

from __future__ import annotations

from dataclasses import dataclass

import ai_operator.config.values as v
from ai_operator.config import Settings
from ai_operator.config.schema import setting
from ai_operator.llm.chat import ChatModel
from ai_operator.openai_client import describe_failure, make_client
from ai_operator.providers.registry import ProviderSpec
from ai_operator.speech.openai_tts import OpenAITTS
from ai_operator.speech.stt import OpenAITranscriber

CHECK_TIMEOUT_S = 5.0


@dataclass(frozen=True)
class OpenAISettings:
    """The OpenAI provider's settings group (`settings.group(OpenAISettings)`); `openai_realtime` reads it too."""

    openai_api_key: str = setting("OPENAI_API_KEY", "", "API key for OpenAI-compatible endpoints; empty = offline",
                                  secret=True)
    openai_base_url: str = setting("OPENAI_BASE_URL", "", "base URL of an OpenAI-compatible server; empty = OpenAI",
                                   check=lambda raw: v.check_http_url(raw, optional=True))
    stt_model: str = setting("STT_MODEL", "whisper-1", "transcription model")
    stt_timeout_s: float = setting("STT_TIMEOUT_S", 8.0, "transcription timeout per attempt", lo=0.1, hi=120)
    tts_model: str = setting("TTS_MODEL", "gpt-4o-mini-tts", "speech model")
    tts_voice: str = setting("TTS_VOICE", "alloy", "speech voice")
    tts_timeout_s: float = setting("TTS_TIMEOUT_S", 10.0, "speech: opening a line and each later read; past it the "
                                   "line is spoken in the local voice", lo=0.1, hi=120)
    llm_model: str = setting("LLM_MODEL", "gpt-4o-mini", "chat model")
    llm_timeout_s: float = setting("LLM_TIMEOUT_S", 6.0, "model timeout per call", lo=0.1, hi=120)


@dataclass(frozen=True)
class OpenAIConfig:
    """What the adapters are built from: the settings group with the base URL made `None` when empty."""

    api_key: str
    base_url: str | None
    stt_model: str
    stt_timeout_s: float
    tts_model: str
    tts_voice: str
    tts_timeout_s: float
    llm_model: str
    llm_timeout_s: float

    @classmethod
    def of(cls, settings: Settings) -> OpenAIConfig:
        sp = settings.group(OpenAISettings)
        return cls(sp.openai_api_key, sp.openai_base_url or None, sp.stt_model, sp.stt_timeout_s, sp.tts_model,
                   sp.tts_voice, sp.tts_timeout_s, sp.llm_model, sp.llm_timeout_s)

    @property
    def where(self) -> str:
        return self.base_url or "api.openai.com"


def build_stt(settings: Settings) -> OpenAITranscriber:
    c = OpenAIConfig.of(settings)
    return OpenAITranscriber(api_key=c.api_key, base_url=c.base_url, model=c.stt_model, timeout_s=c.stt_timeout_s)


def build_tts(settings: Settings) -> OpenAITTS:
    c = OpenAIConfig.of(settings)
    return OpenAITTS(api_key=c.api_key, base_url=c.base_url, model=c.tts_model, voice=c.tts_voice,
                     timeout_s=c.tts_timeout_s)


def build_model(settings: Settings) -> ChatModel:
    c = OpenAIConfig.of(settings)
    return ChatModel(api_key=c.api_key, base_url=c.base_url, model=c.llm_model, timeout_s=c.llm_timeout_s)


def missing(settings: Settings) -> str | None:
    return None if settings.group(OpenAISettings).openai_api_key else "OPENAI_API_KEY"


async def check(settings: Settings) -> str | None:
    """An authenticated request: None when the endpoint accepts the key, else why not (key-free)."""
    c = OpenAIConfig.of(settings)
    client = make_client(api_key=c.api_key, base_url=c.base_url, timeout_s=CHECK_TIMEOUT_S)
    try:
        await client.models.list()
    except Exception as exc:
        return f"{c.where}: {describe_failure(exc, c.api_key)}"
    finally:
        await client.close()
    return None


PROVIDER = ProviderSpec(
    name="openai",
    doc="OpenAI or an OpenAI-compatible server (OPENAI_BASE_URL): transcription, speech, chat",
    settings=OpenAISettings,
    stt=build_stt,
    tts=build_tts,
    llm=build_model,
    check=check,
    missing=missing,
)
