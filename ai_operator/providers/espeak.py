"""The local espeak-ng provider: text-to-speech on this host, no account; also every remote voice's fallback.

Its check is that the espeak-ng program is installed (doctor checks the voices per language separately).
"""

from __future__ import annotations

import shutil

from ai_operator.config import Settings
from ai_operator.providers.registry import ProviderSpec
from ai_operator.speech.espeak import ESPEAK_BINARY, EspeakTTS


def build_tts(_settings: Settings) -> EspeakTTS:
    return EspeakTTS()


async def check(_settings: Settings) -> str | None:
    return None if shutil.which(ESPEAK_BINARY) else f"{ESPEAK_BINARY} is not installed"


PROVIDER = ProviderSpec(
    name="espeak",
    doc="espeak-ng on this host (offline voices; the fallback voice of every remote TTS)",
    tts=build_tts,
    check=check,
    local=True,
)
