"""Every setting of the daemon, declared once: its env key, type (the annotation), default, allowed range or
choices, a one-line doc, and whether a reload (SIGHUP) may apply it (`restart=True`: only a restart does).
The settings groups are frozen dataclasses; a typo in an attribute is a type error. The runtime's groups are
here (`GROUPS`); a speech provider declares its own group in its module (`providers/openai.py`:
`OpenAISettings`) and the provider registry lists it, so `declared()` is the runtime's groups plus the
registered providers' (read at call time: a provider registered later declares its keys too).
`etc/ai-operator.env.example` documents the same keys and a test keeps the two in step.
"""

from __future__ import annotations

import builtins
import dataclasses
import functools
import typing
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import ai_operator.config.values as v

CODECS = ("ulaw", "alaw", "slin")
EMBEDDING_CHOICES = ("hash", "openai")
LOG_LEVELS = ("debug", "info", "warning", "error")
PREWARM_SCOPES = ("auto", "all", "fixed", "canned", "off")  # TTS_PREWARM
LOG_FORMATS = ("auto", "json", "console")
PORT_RANGE = (1024, 65535)


@dataclass(frozen=True)
class Spec:
    """How one key is read: env name, doc, and what is allowed."""

    key: str
    doc: str
    choices: tuple[str, ...] = ()
    lo: float | None = None
    hi: float | None = None
    secret: bool = False
    check: Callable[[str], None] | None = None  # extra check of the raw text (URLs, names); raises ValueError
    choices_from: Callable[[], tuple[str, ...]] | None = None  # choices known at run time (the provider registry)
    restart: bool = False  # only a restart applies it: a reload names it (reload_needs_restart) and keeps the running value


def provider_choices(kind: str) -> Callable[[], tuple[str, ...]]:
    """What `<KIND>_PROVIDER` (or a route's override) may say: the registered providers of `kind`, auto, none."""

    def choices() -> tuple[str, ...]:
        from ai_operator.providers.registry import (
            choices as registered,  # at parse time: providers import config
        )

        return registered(kind)

    return choices


def setting(key: str, default: Any, doc: str, **spec: Any) -> Any:
    """A dataclass field that is also a setting: `ARI_URL` -> `settings.ari.url`."""
    return field(default=default, metadata={"spec": Spec(key, doc, **spec)})


@dataclass(frozen=True)
class AriSettings:
    url: str = setting("ARI_URL", "http://127.0.0.1:8088/ari", "Asterisk ARI base URL", check=v.check_http_url, restart=True)
    user: str = setting("ARI_USER", "", "ARI user (ari.conf)", restart=True)
    password: str = setting("ARI_PASSWORD", "", "ARI password (ari.conf)", secret=True, restart=True)
    app: str = setting("ARI_APP", "ai-operator", "Stasis application name", check=v.check_identifier, restart=True)


@dataclass(frozen=True)
class RtpSettings:
    host: str = setting("RTP_HOST", "127.0.0.1", "address we receive externalMedia RTP on (reachable by Asterisk)", restart=True)
    port_min: int = setting("RTP_PORT_MIN", 20000, "lowest local RTP port", lo=PORT_RANGE[0], hi=PORT_RANGE[1], restart=True)
    port_max: int = setting("RTP_PORT_MAX", 20999, "highest local RTP port", lo=PORT_RANGE[0], hi=PORT_RANGE[1], restart=True)
    codec: str = setting("RTP_CODEC", "ulaw", "externalMedia codec: ulaw, alaw or slin (16-bit big-endian)",
                         choices=CODECS, restart=True)


@dataclass(frozen=True)
class VadSettings:
    aggressiveness: int = setting("VAD_AGGRESSIVENESS", 2, "webrtcvad aggressiveness 0..3", lo=0, hi=3)
    start_ms: int = setting("VAD_START_MS", 60, "speech needed to start an utterance", lo=20, hi=1000)
    end_silence_ms: int = setting("VAD_END_SILENCE_MS", 600, "silence that ends an utterance", lo=100, hi=5000)
    early_stt_ms: int = setting("VAD_EARLY_STT_MS", 240, "silence after which the utterance so far is transcribed "
                                "ahead of its end (reused when the caller says nothing more); 0 = off", lo=0, hi=5000)
    early_turn: bool = setting("VAD_EARLY_TURN", True, "end the turn at that pause when the policy says the "
                               "transcript is complete (withdrawn if the caller goes on before the reply is heard)")
    early_reply_ms: int = setting("VAD_EARLY_REPLY_MS", 320, "silence after the caller's last speech before the "
                                  "reply to an early-ended turn may start (it is prepared at once): a caller who "
                                  "pauses shorter and goes on is withdrawn from; 0 = as soon as it is ready",
                                  lo=0, hi=5000)
    speculate: bool = setting("VAD_SPECULATE", True, "at that pause, also decide a turn the policy calls neither "
                              "complete nor dangling (a question, a handoff, a goodbye): its search, model and TTS "
                              "run during the end silence, its first frame waits for it (withdrawn if the caller "
                              "goes on)")
    early_partial: bool = setting("VAD_EARLY_PARTIAL", True, "with a streaming STT, decide a turn ended at that "
                                  "pause on the streaming transcript at once, its reply held until the final "
                                  "transcript says the same (else withdrawn and decided on the final)")
    prefetch_ms: int = setting("VAD_PREFETCH_MS", 120, "with a streaming STT and a model, at this much silence "
                               "(shorter than VAD_EARLY_STT_MS) the model request a question would make is sent "
                               "ahead on the streaming transcript and used if the turn makes the same; 0 = off",
                               lo=0, hi=5000)
    max_utterance_s: float = setting("VAD_MAX_UTTERANCE_S", 20.0, "longest utterance before it is cut", lo=1, hi=120)
    barge_in_ms: int = setting("BARGE_IN_MS", 200, "caller speech over the bot that interrupts it", lo=40, hi=3000)


@dataclass(frozen=True)
class CallSettings:
    max_calls: int = setting("MAX_CALLS", 120, "concurrent calls; more go back to the dialplan", lo=1, hi=10000)
    idle_timeout_s: float = setting("IDLE_TIMEOUT_S", 8.0, "caller silence before the policy re-prompts", lo=1, hi=600)
    max_call_s: float = setting("MAX_CALL_S", 600.0, "longest call; then the policy's closing line ends it",
                                lo=10, hi=86400)
    max_misunderstood_turns: int = setting(
        "MAX_MISUNDERSTOOD_TURNS", 3, "misunderstood turns in a row before the policy hands off or says goodbye",
        lo=1, hi=50)
    hangup_watchdog_s: float = setting("HANGUP_WATCHDOG_S", 20.0, "CallEnd watchdog", lo=1, hi=300)
    hangup_grace_ms: int = setting("HANGUP_GRACE_MS", 400, "playout grace after the goodbye before hanging up",
                                   lo=0, hi=5000)
    drain_timeout_s: float = setting("DRAIN_TIMEOUT_S", 30.0, "on SIGTERM, time calls in progress may take to finish",
                                     lo=0, hi=3600)


@dataclass(frozen=True)
class SpeechSettings:
    stt_provider: str = setting("STT_PROVIDER", "auto", "speech-to-text: openai (batch), openai_realtime "
                                "(streaming), none, auto (openai when a key is set)",
                                choices_from=provider_choices("stt"))
    tts_provider: str = setting("TTS_PROVIDER", "auto", "text-to-speech: espeak, openai, auto (openai when a key is set)",
                                choices_from=provider_choices("tts"))
    llm_provider: str = setting("LLM_PROVIDER", "auto", "model: openai, none, auto (openai when a key is set)",
                                choices_from=provider_choices("llm"))
    provider_failures_to_open: int = setting("PROVIDER_FAILURES_TO_OPEN", 3,
                                             "failed calls in a row that open a provider's breaker (a 401/403/404 "
                                             "opens it at once)", lo=1, hi=100)
    provider_cooldown_s: float = setting("PROVIDER_COOLDOWN_S", 30.0,
                                         "an open breaker's cool-down: the provider is not called, then one probe",
                                         lo=0.1, hi=3600)
    provider_check_timeout_s: float = setting("PROVIDER_CHECK_TIMEOUT_S", 5.0,
                                              "bound of the start check (one authenticated request per provider)",
                                              lo=0.1, hi=60)
    embedding_provider: str = setting("EMBEDDING_PROVIDER", "hash", "knowledge-base embeddings: hash (offline) or openai",
                                      choices=EMBEDDING_CHOICES)
    embedding_model: str = setting("EMBEDDING_MODEL", "text-embedding-3-small", "embedding model (openai)")
    embedding_dim: int = setting("EMBEDDING_DIM", 256, "embedding dimension", lo=8, hi=4096)


@dataclass(frozen=True)
class StorageSettings:
    state_dir: Path = setting("STATE_DIR", Path("/var/lib/ai-operator"),
                              "state: embedded database, spool, TTS cache (relative: to the env file's folder)", restart=True)
    database_url: str = setting("DATABASE_URL", "", "PostgreSQL DSN; empty = private embedded PostgreSQL in STATE_DIR",
                                secret=True, check=v.check_dsn, restart=True)
    kb_database_url: str = setting("KB_DATABASE_URL", "", "PostgreSQL DSN of a read replica for knowledge-base "
                                   "search; empty = DATABASE_URL. Unfit (down, not streaming, behind): the primary",
                                   secret=True, check=v.check_dsn, restart=True)
    policy_path: str = setting("POLICY_PATH", "", "extra folders holding policy folders, ':'-separated (empty: none)")
    kb_search_timeout_s: float = setting("KB_SEARCH_TIMEOUT_S", 1.5,
                                         "budget of a knowledge-base search on a call; past it the policy's "
                                         "'cannot look that up' line", lo=0.1, hi=30)
    tts_cache_max_mb: int = setting("TTS_CACHE_MAX_MB", 200, "on-disk TTS cache bound (LRU; prewarmed lines pinned)",
                                    lo=1, hi=100000)
    tts_prewarm: str = setting("TTS_PREWARM", "auto", "lines synthesised ahead into the TTS cache: all (canned, "
                               "fixed replies, knowledge-base answers), fixed (no KB answers), canned (greeting and "
                               "closing lines), off; auto: all for a remote voice, canned for a local one",
                               choices=PREWARM_SCOPES)


@dataclass(frozen=True)
class OpsSettings:
    metrics_host: str = setting("METRICS_HOST", "127.0.0.1", "Prometheus /metrics and /healthz bind address", restart=True)
    metrics_port: int = setting("METRICS_PORT", 9464, "metrics port; 0 disables", lo=0, hi=65535, restart=True)
    overload_lag_ms: float = setting("OVERLOAD_LAG_MS", 60.0,
                                     "event-loop lateness that counts as behind: new calls are refused", lo=10, hi=10000)
    log_level: str = setting("LOG_LEVEL", "info", "debug, info, warning, error", choices=LOG_LEVELS)
    log_format: str = setting("LOG_FORMAT", "auto", "json, console or auto (console on a terminal)", choices=LOG_FORMATS, restart=True)
    log_transcripts: bool = setting("LOG_TRANSCRIPTS", False,
                                    "log what callers said at info (personal data; default: debug only)")


GROUPS: dict[str, type] = {
    "ari": AriSettings,
    "rtp": RtpSettings,
    "vad": VadSettings,
    "call": CallSettings,
    "speech": SpeechSettings,
    "storage": StorageSettings,
    "ops": OpsSettings,
}


@dataclass(frozen=True)
class Declared:
    """One declared key: its group, attribute, Python type, default and spec."""

    group: str
    attr: str
    type: type
    default: Any
    spec: Spec
    cls: builtins.type = object  # the group's dataclass (`Settings.group(cls)` holds its value)

    @property
    def key(self) -> str:
        return self.spec.key


def all_groups() -> dict[str, type]:
    """The runtime's groups, then each registered provider's settings group (named after its provider)."""
    from ai_operator.providers.registry import settings_groups  # at call time: providers import config

    return {**GROUPS, **settings_groups()}


@functools.lru_cache(maxsize=16)
def _declared(groups: tuple[tuple[str, type], ...]) -> tuple[Declared, ...]:
    out = []
    for group, cls in groups:
        hints = typing.get_type_hints(cls)
        out += [Declared(group, f.name, hints[f.name], f.default, f.metadata["spec"], cls) for f in dataclasses.fields(cls)]
    return tuple(out)


@functools.lru_cache(maxsize=16)
def _by_key(declared: tuple[Declared, ...]) -> dict[str, Declared]:
    return {d.key: d for d in declared}


def declared() -> tuple[Declared, ...]:
    """Every declared setting, in declaration order: the runtime's groups, then the registered providers'."""
    return _declared(tuple(all_groups().items()))


def by_key() -> dict[str, Declared]:
    """`declared()` by env key (do not change the dict: it is shared)."""
    return _by_key(declared())


def parse_value(d: Declared, raw: str) -> Any:
    """The typed value of `raw` for `d`; raises ValueError saying what is allowed."""
    spec = d.spec
    if "\x00" in raw:
        raise ValueError("contains a NUL byte")
    if spec.check is not None:
        spec.check(raw)
    if d.type is bool:
        return v.parse_bool(raw)
    if d.type is int:
        return v.parse_int(raw, spec.lo, spec.hi)
    if d.type is float:
        return v.parse_float(raw, spec.lo, spec.hi)
    choices = spec.choices or (spec.choices_from() if spec.choices_from is not None else ())
    if choices:
        return v.parse_choice(raw, choices)
    if d.type is Path:
        return Path(raw.strip())
    return raw


def default_text(d: Declared) -> str:
    """The default as it would be written in the env file."""
    if isinstance(d.default, bool):
        return "true" if d.default else "false"
    if isinstance(d.default, float):
        return f"{d.default:g}"
    return str(d.default)
