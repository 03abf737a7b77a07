"""Speech and model providers: one module per provider (`openai.py`, `espeak.py`), the registry they are listed
in (`registry.py`), the factory that builds a route's adapters from it (`factory.py`), and their health: a
breaker per provider (`health.py`) wrapped around every adapter at one point (`guarded.py`)."""

from ai_operator.providers.factory import (
    build_model,
    build_stt,
    build_tts,
    llm_provider,
    resolve,
    stt_provider,
    tts_provider,
    used_providers,
)

__all__ = ["build_model", "build_stt", "build_tts", "llm_provider", "resolve", "stt_provider", "tts_provider",
           "used_providers"]
