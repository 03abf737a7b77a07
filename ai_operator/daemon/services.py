"""What every call of the daemon shares: ARI client, records, knowledge base, pacer, ports, metrics, adapters.

Speech adapters are built per route (a route may override STT/TTS/LLM) on first use and kept. `settings`
is replaced on SIGHUP; a call keeps the `Route` it started with.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ai_operator.config import Route, Settings
from ai_operator.media.codecs import Codec
from ai_operator.media.playout import Pacer
from ai_operator.media.transport import PortAllocator


@dataclass(frozen=True)
class CallTuning:
    """Timing knobs of a call, read from settings once per call."""

    vad_aggressiveness: int = 2
    vad_start_ms: int = 60
    vad_end_silence_ms: int = 600
    vad_max_utterance_s: float = 20.0
    barge_in_ms: int = 200
    idle_timeout_s: float = 8.0
    watchdog_s: float = 20.0
    grace_s: float = 0.4

    @classmethod
    def from_settings(cls, s: Settings) -> CallTuning:
        return cls(
            vad_aggressiveness=s.VAD_AGGRESSIVENESS,
            vad_start_ms=s.VAD_START_MS,
            vad_end_silence_ms=s.VAD_END_SILENCE_MS,
            vad_max_utterance_s=s.VAD_MAX_UTTERANCE_S,
            barge_in_ms=s.BARGE_IN_MS,
            idle_timeout_s=s.IDLE_TIMEOUT_S,
            watchdog_s=s.HANGUP_WATCHDOG_S,
            grace_s=s.HANGUP_GRACE_MS / 1000.0,
        )


@dataclass
class Services:
    """Shared by all calls. Adapters may be injected (tests, benchmarks) through `stt`, `tts`, `model` overrides."""

    settings: Settings
    ari: Any  # AriRestClient
    records: Any  # RecordStore
    knowledge: Any  # KnowledgeSource | None
    pacer: Pacer
    ports: PortAllocator
    codec: Codec
    metrics: Any  # ops.metrics.Metrics
    state_dir: Path
    stt_override: Any = None
    tts_override: Any = None
    model_override: Any = None
    observer: Any = None  # called as observer(call, caller_text, outcome) after every turn (demo, tests)
    _adapters: dict[str, Any] = field(default_factory=dict)

    def _adapter(self, kind: str, route: Route, override: Any, build: Any) -> Any:
        """The route's adapter of `kind`, built once per (route, overrides) and kept; an injected one wins."""
        if override is not None:
            return override
        key = f"{kind}|{route.name}|{route.option('STT')}|{route.option('TTS')}|{route.option('LLM')}"
        if key not in self._adapters:
            self._adapters[key] = build()
        return self._adapters[key]

    def stt_for(self, route: Route) -> Any:
        from ai_operator.speech.factory import build_stt

        return self._adapter("stt", route, self.stt_override, lambda: build_stt(self.settings, route))

    def tts_for(self, route: Route) -> Any:
        from ai_operator.speech.factory import build_tts

        return self._adapter(
            "tts", route, self.tts_override, lambda: build_tts(self.settings, route, self.state_dir / "tts-cache")
        )

    def model_for(self, route: Route) -> Any:
        from ai_operator.speech.factory import build_model

        return self._adapter("model", route, self.model_override, lambda: build_model(self.settings, route))
