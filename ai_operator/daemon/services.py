"""What every call of the daemon shares: ARI client, records, knowledge base, pacer, ports, metrics, adapters.

Speech adapters are built per route (a route may override STT/TTS/LLM) on first use and kept. A reload
(SIGHUP) builds every enabled route's adapters from the new settings first (`prepare`: a provider that cannot be
built refuses the reload whole), then switches `settings` and the adapters at once (`switch`). A call works on
its own copy (`for_call`): it keeps the settings, route and adapters it started with, whatever reloads follow.
What a test, the demo or a benchmark injects into the daemon instead of what the settings would build is a
`DaemonOverrides`.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from ai_operator.clock import Clock, SystemClock
from ai_operator.config import Route, Settings
from ai_operator.media.codecs import Codec
from ai_operator.media.pacer import Pacer
from ai_operator.media.transport import PortAllocator, RtpReceiver, RtpStats
from ai_operator.ops.overload import LoadState

if TYPE_CHECKING:
    from ai_operator.ari.rest import AriRestClient
    from ai_operator.conversation import ChatModelLike, KnowledgeSource
    from ai_operator.daemon.call import Call
    from ai_operator.ops.metrics import Metrics
    from ai_operator.providers.health import ProviderBoard
    from ai_operator.speech.stt import SpeechToText
    from ai_operator.speech.tts import LineTTS
    from ai_operator.storage.records import RecordStore
    from ai_operator.turn_driver import Turn

T = TypeVar("T")
TurnObserver = Callable[["Call", "Turn"], None]  # called as observer(call, turn) after every turn


@dataclass(frozen=True)
class DaemonOverrides:
    """What the daemon uses instead of what its settings would build (tests, the demo, benchmarks).
    Every field left None is built from the settings as in production."""

    stt: SpeechToText | None = None  # every route's speech recognition (e.g. a scripted transcriber)
    tts: LineTTS | None = None  # every route's voice (e.g. a fast espeak-ng)
    model: ChatModelLike | None = None  # every route's chat model (e.g. a scripted or a faulty one)
    observer: TurnObserver | None = None  # sees every call's every turn (the demo prints them)
    metrics: Metrics | None = None  # the metrics registry (default: a new one per daemon)
    clock: Clock | None = None  # the daemon's clock: its pacer's and every call's (default: the system clock)


@dataclass
class Services:
    """Shared by all calls. Adapters may be injected (tests, benchmarks) through the `*_override` fields."""

    settings: Settings
    ari: AriRestClient
    records: RecordStore
    knowledge: KnowledgeSource | None
    pacer: Pacer
    ports: PortAllocator
    codec: Codec
    metrics: Metrics
    load: LoadState = field(default_factory=LoadState)  # is the daemon keeping up? (ops/overload.py)
    receiver: RtpReceiver | None = None  # reads every call's RTP once per pacer tick (None: each socket when readable)
    rtp_totals: RtpStats = field(default_factory=RtpStats)  # every call's RTP counters summed (for /metrics)
    clock: Clock = field(default_factory=SystemClock)  # monotonic and wall time, for the pacer and every call
    stt_override: SpeechToText | None = None
    tts_override: LineTTS | None = None
    model_override: ChatModelLike | None = None
    providers: ProviderBoard | None = None  # every built adapter is called through its provider's breaker
    observer: TurnObserver | None = None  # called as observer(call, turn) after every turn (demo, tests)
    _adapters: dict[str, Any] = field(default_factory=dict)

    def for_call(self) -> Services:
        """A copy for one call: this generation's settings and adapters, untouched by a later `switch`."""
        return dataclasses.replace(self)

    def prepare(self, settings: Settings) -> dict[str, Any]:
        """Every enabled route's adapters built from `settings` (raises `ConfigError`, e.g. openai without a key)."""
        staged = dataclasses.replace(self, settings=settings, _adapters={})
        for route in settings.routes.values():
            if route.enabled:
                staged.stt_for(route)
                staged.tts_for(route)
                staged.model_for(route)
        return staged._adapters

    def switch(self, settings: Settings, adapters: dict[str, Any]) -> None:
        """New calls use `settings` and `adapters` (from `prepare`) from now on."""
        self.settings = settings
        self._adapters = adapters

    def _adapter(self, kind: str, route: Route, override: T | None, build: Callable[[], T | None]) -> T | None:
        """The route's adapter of `kind`, built once per (route, overrides) and kept; an injected one wins."""
        if override is not None:
            return override
        key = f"{kind}|{route.name}|{route.stt}|{route.tts}|{route.llm}"
        if key not in self._adapters:
            self._adapters[key] = build()
        adapter: T | None = self._adapters[key]
        return adapter

    def stt_for(self, route: Route) -> SpeechToText | None:
        from ai_operator.providers import build_stt

        return self._adapter("stt", route, self.stt_override, lambda: build_stt(self.settings, route, self.providers))

    def tts_for(self, route: Route) -> LineTTS:
        from ai_operator.providers import build_tts

        cache_dir = self.settings.storage.state_dir / "tts-cache"
        tts = self._adapter("tts", route, self.tts_override, lambda: build_tts(self.settings, route, cache_dir,
                                                                                        self.providers))
        assert tts is not None  # build_tts always builds one
        return tts

    def warm(self, route: Route) -> None:
        """The caller started speaking: the route's remote adapters with no connection kept make one now
        (`providers/warm.py`)."""
        from ai_operator.providers.warm import warm_adapters

        warm_adapters(self.stt_for(route), self.tts_for(route), self.model_for(route))

    def model_for(self, route: Route) -> ChatModelLike | None:
        from ai_operator.providers import build_model

        return self._adapter("model", route, self.model_override, lambda: build_model(self.settings, route, self.providers))
