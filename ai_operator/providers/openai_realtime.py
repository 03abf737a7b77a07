"""The OpenAI Realtime transcription provider: the streaming shape of OpenAI speech-to-text (`STT_PROVIDER=
openai_realtime`), over a websocket per utterance (`speech/openai_realtime_stt.py`).

It declares no key of its own: its settings group is the OpenAI one (`OpenAISettings` in `openai.py`: the same
key, base URL, `STT_MODEL` and `STT_TIMEOUT_S` as the batch `openai` provider, one account), and it has the same doctor/start check (an authenticated `GET /models`). It serves STT only; it
is never what `auto` picks while the batch `openai` provider comes first in the registry.
"""

from __future__ import annotations

from ai_operator.config import Settings
from ai_operator.providers.openai import OpenAIConfig, OpenAISettings, check, missing
from ai_operator.providers.registry import ProviderSpec
from ai_operator.speech.openai_realtime_stt import OpenAIRealtimeSTT


def build_stt(settings: Settings) -> OpenAIRealtimeSTT:
    c = OpenAIConfig.of(settings)
    return OpenAIRealtimeSTT(api_key=c.api_key, base_url=c.base_url, model=c.stt_model, timeout_s=c.stt_timeout_s)


PROVIDER = ProviderSpec(
    name="openai_realtime",
    doc="OpenAI Realtime transcription (streaming STT over a websocket; OPENAI_BASE_URL for a compatible server)",
    settings=OpenAISettings,
    stt=build_stt,
    check=check,
    missing=missing,
)
