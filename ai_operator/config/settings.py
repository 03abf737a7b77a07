"""Typed settings built from the env file plus the process environment (which overrides the file).

Every known key is declared once in `KEYS` with its type, default and a one-line doc; `etc/ai-operator.env.example`
documents the same keys and a test keeps the two in step. Routes are named: `ROUTE_<NAME>_ENABLED`,
`ROUTE_<NAME>_POLICY` and per-route options `ROUTE_<NAME>_<OPTION>` (see `ROUTE_OPTIONS`).
"""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ai_operator.config.envfile import EnvEntry, EnvFileError, read_env_file

DEFAULT_ENV_PATH = "/etc/ai-operator/ai-operator.env"


class ConfigError(ValueError):
    """Settings that cannot be used; the message names the key (and the file and line when known)."""


@dataclass(frozen=True)
class Key:
    """One known setting."""

    name: str
    kind: str  # "str" | "int" | "float" | "bool" | "secret"
    default: str
    doc: str


KEYS: tuple[Key, ...] = (
    Key("ARI_URL", "str", "http://127.0.0.1:8088/ari", "Asterisk ARI base URL"),
    Key("ARI_USER", "str", "", "ARI user (ari.conf)"),
    Key("ARI_PASSWORD", "secret", "", "ARI password (ari.conf)"),
    Key("ARI_APP", "str", "ai-operator", "Stasis application name"),
    Key("RTP_HOST", "str", "127.0.0.1", "address we receive externalMedia RTP on (reachable by Asterisk)"),
    Key("RTP_PORT_MIN", "int", "20000", "lowest local RTP port"),
    Key("RTP_PORT_MAX", "int", "20999", "highest local RTP port"),
    Key("RTP_CODEC", "str", "ulaw", "externalMedia codec: ulaw, alaw or slin (16-bit big-endian)"),
    Key("MAX_CALLS", "int", "200", "concurrent calls; more go back to the dialplan"),
    Key("STATE_DIR", "str", "/var/lib/ai-operator", "state: embedded database, spool, TTS cache, recordings"),
    Key("DATABASE_URL", "secret", "", "PostgreSQL DSN; empty = private embedded PostgreSQL (pgserver) in STATE_DIR"),
    Key("OPENAI_API_KEY", "secret", "", "API key for OpenAI-compatible endpoints; empty = offline defaults"),
    Key("OPENAI_BASE_URL", "str", "", "base URL of an OpenAI-compatible server; empty = api.openai.com"),
    Key("STT_PROVIDER", "str", "auto", "speech-to-text: openai, none, auto (openai when a key is set)"),
    Key("STT_MODEL", "str", "whisper-1", "transcription model"),
    Key("STT_TIMEOUT_S", "float", "8", "transcription timeout per attempt"),
    Key("TTS_PROVIDER", "str", "auto", "text-to-speech: espeak, openai, auto (openai when a key is set)"),
    Key("TTS_MODEL", "str", "gpt-4o-mini-tts", "speech model"),
    Key("TTS_VOICE", "str", "alloy", "speech voice"),
    Key("LLM_PROVIDER", "str", "auto", "model: openai, none, auto (openai when a key is set)"),
    Key("LLM_MODEL", "str", "gpt-4o-mini", "chat model"),
    Key("LLM_TIMEOUT_S", "float", "6", "model timeout per call"),
    Key("EMBEDDING_PROVIDER", "str", "hash", "knowledge-base embeddings: hash (offline) or openai"),
    Key("EMBEDDING_MODEL", "str", "text-embedding-3-small", "embedding model for EMBEDDING_PROVIDER=openai"),
    Key("EMBEDDING_DIM", "int", "256", "embedding dimension"),
    Key("VAD_AGGRESSIVENESS", "int", "2", "webrtcvad aggressiveness 0..3"),
    Key("VAD_START_MS", "int", "60", "speech needed to start an utterance"),
    Key("VAD_END_SILENCE_MS", "int", "600", "silence that ends an utterance"),
    Key("VAD_MAX_UTTERANCE_S", "float", "20", "longest utterance before it is cut"),
    Key("BARGE_IN_MS", "int", "200", "caller speech over the bot that interrupts it"),
    Key("IDLE_TIMEOUT_S", "float", "8", "caller silence before the policy re-prompts"),
    Key("HANGUP_WATCHDOG_S", "float", "20", "CallEnd watchdog"),
    Key("HANGUP_GRACE_MS", "int", "400", "playout grace after the goodbye before hanging up"),
    Key("DRAIN_TIMEOUT_S", "float", "30", "on SIGTERM, time calls in progress may take to finish"),
    Key("METRICS_HOST", "str", "127.0.0.1", "Prometheus /metrics and /healthz bind address"),
    Key("METRICS_PORT", "int", "9464", "metrics port; 0 disables"),
    Key("LOG_LEVEL", "str", "info", "debug, info, warning, error"),
    Key("LOG_FORMAT", "str", "auto", "json, console or auto (console on a terminal)"),
)
KEYS_BY_NAME: dict[str, Key] = {k.name: k for k in KEYS}

ROUTE_RE = re.compile(r"^ROUTE_([A-Z0-9]+)_([A-Z_]+)$")
ROUTE_OPTIONS: dict[str, str] = {
    "ENABLED": "true/false: the bot answers this route",
    "POLICY": "dialogue policy name (a folder of policies/)",
    "LOAD": "freight: default load JSON file",
    "HANDOFF": "where a human handoff goes: context,extension[,priority] or an endpoint like PJSIP/100",
    "STT": "per-route speech-to-text provider override",
    "TTS": "per-route text-to-speech provider override",
    "LLM": "per-route model provider override",
    "HOLD_S": "turn-boundary hold for dangling utterances (seconds)",
}
STT_CHOICES = ("auto", "openai", "none")  # auto = openai when OPENAI_API_KEY is set
TTS_CHOICES = ("auto", "openai", "espeak")
LLM_CHOICES = ("auto", "openai", "none")
EMBEDDING_CHOICES = ("hash", "openai")
PATH_OPTIONS = ("LOAD",)  # relative paths are resolved against the env file's folder
PRODUCTION_ROUTES = ("KAZAKHTELECOM",)

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def parse_bool(value: str, key: str) -> bool:
    """Parse a boolean setting; anything unexpected names the key."""
    v = value.strip().lower()
    if v in _TRUE:
        return True
    if v in _FALSE:
        return False
    raise ConfigError(f"{key}: expected true or false, got {value!r}")


@dataclass(frozen=True)
class Route:
    """A named route: `Stasis(<app>,<name>)` in the dialplan reaches it."""

    name: str  # lower-case, as in the Stasis argument
    enabled: bool
    policy: str
    options: Mapping[str, str] = field(default_factory=dict)

    def option(self, key: str, default: str = "") -> str:
        return self.options.get(key.upper(), default)


@dataclass(frozen=True)
class Settings:
    """All settings, typed. `values` holds every known key (defaults filled in); `routes` by lower-case name."""

    values: Mapping[str, Any]
    routes: Mapping[str, Route]
    source: str
    warnings: tuple[str, ...] = ()
    lines: Mapping[str, int] = field(default_factory=dict)

    def __getattr__(self, name: str) -> Any:
        key = name.upper()
        values = object.__getattribute__(self, "values")
        if key in values:
            return values[key]
        raise AttributeError(name)

    def get(self, key: str) -> Any:
        return self.values[key]

    def route(self, name: str) -> Route | None:
        return self.routes.get(name.lower())

    def secrets(self) -> list[str]:
        """Values that must never be shown (passwords, keys, DSN)."""
        out = [str(self.values[k.name]) for k in KEYS if k.kind == "secret" and self.values.get(k.name)]
        dsn = str(self.values.get("DATABASE_URL") or "")
        m = re.match(r"^[a-z]+://[^:/@]+:([^@]+)@", dsn)
        if m:
            out.append(m.group(1))
        return out


def _convert(key: Key, raw: str, where: str) -> Any:
    try:
        if key.kind == "int":
            return int(raw)
        if key.kind == "float":
            return float(raw)
        if key.kind == "bool":
            return parse_bool(raw, key.name)
    except ValueError:
        raise ConfigError(f"{where}{key.name}: expected {key.kind}, got {raw!r}") from None
    return raw


def build_settings(entries: list[EnvEntry], environ: Mapping[str, str] | None = None, source: str = "<env>") -> Settings:
    """Merge file entries with the environment (environment wins) and validate."""
    from policies import policy_exists  # late import: policies depend on ai_operator

    raw: dict[str, str] = {}
    lines: dict[str, int] = {}
    warnings: list[str] = []
    for e in entries:
        if e.key not in KEYS_BY_NAME and not ROUTE_RE.match(e.key):
            warnings.append(f"{source}:{e.line}: unknown key {e.key} (typo?) - ignored")
            continue
        raw[e.key] = e.value
        lines[e.key] = e.line
    for k, v in (environ if environ is not None else os.environ).items():
        if k in KEYS_BY_NAME or ROUTE_RE.match(k):
            raw[k] = v
            lines.pop(k, None)

    def where(k: str) -> str:
        return f"{source}:{lines[k]}: " if k in lines else ""

    values: dict[str, Any] = {}
    for key in KEYS:
        values[key.name] = _convert(key, raw.get(key.name, key.default), where(key.name))

    route_raw: dict[str, dict[str, str]] = {}
    for k, v in raw.items():
        m = ROUTE_RE.match(k)
        if not m:
            continue
        name, opt = m.groups()
        if opt not in ROUTE_OPTIONS:
            warnings.append(f"{where(k) or source + ': '}unknown route option {k} (known: {', '.join(ROUTE_OPTIONS)})")
            continue
        route_raw.setdefault(name, {})[opt] = v

    routes: dict[str, Route] = {}
    for name, opts in sorted(route_raw.items()):
        enabled = parse_bool(opts.get("ENABLED", "false"), f"{where(f'ROUTE_{name}_ENABLED')}ROUTE_{name}_ENABLED")
        policy = opts.get("POLICY", "").strip()
        if enabled and not policy:
            raise ConfigError(
                f"{where(f'ROUTE_{name}_ENABLED')}ROUTE_{name}_POLICY: route {name.lower()} is enabled but names no policy"
            )
        if enabled and not policy_exists(policy):
            raise ConfigError(
                f"{where(f'ROUTE_{name}_POLICY')}ROUTE_{name}_POLICY: route {name.lower()} is enabled with policy "
                f"{policy!r}, which does not exist"
            )
        options = {k: v for k, v in opts.items() if k not in ("ENABLED", "POLICY")}
        for opt in PATH_OPTIONS:
            if options.get(opt) and not Path(options[opt]).is_absolute() and Path(source).is_file():
                options[opt] = str(Path(source).resolve().parent / options[opt])
        routes[name.lower()] = Route(name=name.lower(), enabled=enabled, policy=policy, options=options)

    codec = values["RTP_CODEC"]
    if codec not in ("ulaw", "alaw", "slin"):
        raise ConfigError(f"{where('RTP_CODEC')}RTP_CODEC: expected ulaw, alaw or slin, got {codec!r}")
    if not 0 < values["RTP_PORT_MIN"] <= values["RTP_PORT_MAX"] < 65536:
        raise ConfigError(
            f"{where('RTP_PORT_MIN')}RTP_PORT_MIN/RTP_PORT_MAX: invalid range "
            f"{values['RTP_PORT_MIN']}-{values['RTP_PORT_MAX']}"
        )
    if values["MAX_CALLS"] < 1:
        raise ConfigError(f"{where('MAX_CALLS')}MAX_CALLS: must be at least 1")
    for pkey, allowed in (
        ("STT_PROVIDER", STT_CHOICES),
        ("TTS_PROVIDER", TTS_CHOICES),
        ("LLM_PROVIDER", LLM_CHOICES),
        ("EMBEDDING_PROVIDER", EMBEDDING_CHOICES),
    ):
        if values[pkey] not in allowed:
            raise ConfigError(f"{where(pkey)}{pkey}: expected one of {', '.join(allowed)}, got {values[pkey]!r}")
    return Settings(values=values, routes=routes, source=source, warnings=tuple(warnings), lines=lines)


def load_settings(path: str | Path | None, environ: Mapping[str, str] | None = None) -> Settings:
    """Load settings from an env file (or from the environment alone when `path` is None)."""
    entries: list[EnvEntry] = []
    source = "<environment>"
    if path is not None:
        entries = read_env_file(path)
        source = str(path)
    return build_settings(entries, environ, source)


def require(settings: Settings, *keys: str) -> None:
    """Raise `ConfigError` naming the first required key that is empty."""
    for k in keys:
        if not settings.values.get(k):
            raise ConfigError(f"{k}: required but not set in {settings.source} or the environment")


__all__ = [
    "DEFAULT_ENV_PATH",
    "KEYS",
    "ROUTE_OPTIONS",
    "ConfigError",
    "EnvFileError",
    "Route",
    "Settings",
    "build_settings",
    "load_settings",
    "require",
]
