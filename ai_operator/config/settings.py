"""One frozen, typed `Settings`, built once from the env file plus the process environment.

Which value wins: a key set in the process environment overrides the file, except for a copy of the file. When
the daemon re-reads the file (SIGHUP), an environment value that equals what the file said at start is only a
copy of it (systemd's `EnvironmentFile=`, a wrapper that exports the file), so the file's new value wins; an
environment value that differs from the file is a deliberate override and still wins. Every value is checked
when the file is read; an error names file:line, the key, the value and what is allowed. A route's policy and
the policy's own options are not: configuration knows no policy (`ai_operator/route_binding.py` checks them
where the runtime is assembled, with the same one-line errors, from `Settings.lines`).
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from ai_operator.config.envfile import EnvEntry, EnvFileError, read_env_file
from ai_operator.config.routes import (
    ROUTE_KEY_RE,
    ROUTE_OPTIONS,
    Route,
    parse_runtime_option,
)
from ai_operator.config.schema import (
    GROUPS,
    AriSettings,
    CallSettings,
    OpsSettings,
    RtpSettings,
    SpeechSettings,
    StorageSettings,
    VadSettings,
    all_groups,
    by_key,
    declared,
    parse_value,
)
from ai_operator.config.values import parse_bool

G = TypeVar("G")
DEFAULT_ENV_PATH = "/etc/ai-operator/ai-operator.env"


class ConfigError(ValueError):
    """Settings that cannot be used; the message names the key (and the file and line when known)."""


@dataclass(frozen=True)
class Settings:
    """All settings, grouped and typed; `routes` by lower-case name."""

    ari: AriSettings = field(default_factory=AriSettings)
    rtp: RtpSettings = field(default_factory=RtpSettings)
    vad: VadSettings = field(default_factory=VadSettings)
    call: CallSettings = field(default_factory=CallSettings)
    speech: SpeechSettings = field(default_factory=SpeechSettings)
    storage: StorageSettings = field(default_factory=StorageSettings)
    ops: OpsSettings = field(default_factory=OpsSettings)
    providers: Mapping[type, Any] = field(default_factory=dict)  # each provider's settings group, by its class
    routes: Mapping[str, Route] = field(default_factory=dict)
    source: str = "<defaults>"
    warnings: tuple[str, ...] = ()
    raw: Mapping[str, str] = field(default_factory=dict)  # the merged raw values the settings were built from
    file_values: Mapping[str, str] = field(default_factory=dict)  # what the env file itself said
    file_at_start: Mapping[str, str] = field(default_factory=dict)  # what it said when the process first read it
    lines: Mapping[str, int] = field(default_factory=dict)  # the env file's line of each key it set

    def group(self, cls: type[G]) -> G:
        """The settings group `cls`: one of the runtime's (`AriSettings`, ...) or a provider's (`OpenAISettings`),
        its defaults when these settings were built without it."""
        for name, core in GROUPS.items():
            if core is cls:
                value: G = getattr(self, name)
                return value
        held = self.providers.get(cls)
        return held if isinstance(held, cls) else cls()

    def value(self, key: str) -> Any:
        """The value of the declared `key`, whichever group declares it (`OPENAI_API_KEY`: the openai provider's),
        for code that must not depend on that group's module; `KeyError` for an undeclared key."""
        d = by_key()[key]
        return getattr(self.group(d.cls), d.attr)

    def with_groups(self, groups: Mapping[type, Any]) -> Settings:
        """A copy with some groups replaced (a reload keeps the running value of a restart-only key)."""
        core = {name: groups[cls] for name, cls in GROUPS.items() if cls in groups}
        held = {cls: value for cls, value in groups.items() if cls not in GROUPS.values()}
        return dataclasses.replace(self, **core, providers={**self.providers, **held})

    def route(self, name: str) -> Route | None:
        return self.routes.get(name.lower())

    @property
    def base_dir(self) -> Path:
        """What a relative path in the env file is relative to: its folder (no file: the current directory)."""
        return _base_dir(self.source)

    def where(self, key: str) -> str:
        """`file:line: ` of `key` for an error or warning line (`file: ` when no line of the file set it)."""
        return _where(self.source, self.lines, key)

    def secrets(self) -> list[str]:
        """Values that must never be shown (passwords, keys, the DSN and its password)."""
        out = [self.raw[d.key] for d in declared() if d.spec.secret and self.raw.get(d.key)]
        dsn = self.storage.database_url
        m = re.match(r"^[a-z]+://[^:/@]+:([^@]+)@", dsn) or re.search(r"(?:^|\s)password=(\S+)", dsn)
        if m:
            out.append(m.group(1))
        return out

    def with_values(self, **raw: Any) -> Settings:
        """A copy with some keys replaced, keys as in the env file (tests, the demo stage). The new values come
        from code or the command line, not the env file: a relative folder among them is relative to the
        current directory (made absolute here, so the env file's folder never applies to it)."""
        given = {k: _raw_text(_absolute_if_path(k, v)) for k, v in raw.items()}
        merged = {**self.raw, **given}
        entries = [EnvEntry(k, val, 0) for k, val in merged.items()]
        return build_settings(entries, {}, self.source)


def _absolute_if_path(key: str, value: Any) -> Any:
    """`value` made absolute against the current directory when `key` is a folder setting and it is relative."""
    d = by_key().get(key)
    if d is None or not str(value).strip():
        return value
    if key == "POLICY_PATH":  # ':'-separated folders
        return ":".join(str(Path.cwd() / part.strip()) if part.strip() else "" for part in str(value).split(":"))
    if d.type is not Path:
        return value
    path = Path(str(value).strip())
    return value if path.is_absolute() else Path.cwd() / path


def _raw_text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _base_dir(source: str) -> Path:
    return Path(source).resolve().parent if Path(source).is_file() else Path.cwd()


def _where(source: str, lines: Mapping[str, int], key: str) -> str:
    return f"{source}:{lines[key]}: " if lines.get(key) else f"{source}: "


def merge_sources(
    entries: list[EnvEntry],
    environ: Mapping[str, str],
    source: str,
    file_at_start: Mapping[str, str] | None = None,
) -> tuple[dict[str, str], dict[str, int], dict[str, str], list[str]]:
    """Raw values of known keys: file entries, then the environment over them (see the module doc for when a
    copy of the file in the environment does not win). Returns (raw, lines, file values, warnings)."""
    raw: dict[str, str] = {}
    lines: dict[str, int] = {}
    warnings: list[str] = []
    known = by_key()
    for e in entries:
        if e.key not in known and not ROUTE_KEY_RE.match(e.key):
            warnings.append(f"{source}:{e.line}: unknown key {e.key} (typo?) - ignored")
            continue
        if e.key in raw and e.line:
            warnings.append(f"{source}:{e.line}: {e.key} set again (first on line {lines[e.key]}); this line wins")
        raw[e.key] = e.value
        lines[e.key] = e.line
    file_values = dict(raw)
    for k, value in environ.items():
        if k not in known and not ROUTE_KEY_RE.match(k):
            continue
        if file_at_start is not None and file_at_start.get(k) == value:
            continue  # a copy of the file as it was at start: the file (as it is now) wins
        raw[k] = value
        lines.pop(k, None)
    return raw, lines, file_values, warnings


def build_settings(
    entries: list[EnvEntry],
    environ: Mapping[str, str] | None = None,
    source: str = "<env>",
    *,
    file_at_start: Mapping[str, str] | None = None,
) -> Settings:
    """Merge file entries with the environment and check every value."""
    env = os.environ if environ is None else environ
    raw, lines, file_values, warnings = merge_sources(entries, env, source, file_at_start)
    base_dir = _base_dir(source)

    groups: dict[str, dict[str, Any]] = {name: {} for name in all_groups()}
    for d in declared():
        if d.key not in raw:
            continue
        try:
            value = parse_value(d, raw[d.key])
        except ValueError as exc:
            raise ConfigError(f"{_where(source, lines, d.key)}{d.key}={_shown(d.key, raw[d.key])}: {exc}") from None
        groups[d.group][d.attr] = value
    for d in declared():  # relative folders (given or default) are relative to the env file's folder
        value = groups[d.group].get(d.attr, d.default)
        if isinstance(value, Path) and not value.is_absolute():
            groups[d.group][d.attr] = base_dir / value
    built = {name: cls(**groups[name]) for name, cls in GROUPS.items()}
    providers = {cls: cls(**groups[name]) for name, cls in all_groups().items() if name not in GROUPS}
    rtp = built["rtp"]
    if rtp.port_min > rtp.port_max:
        raise ConfigError(f"{_where(source, lines, 'RTP_PORT_MIN')}RTP_PORT_MIN/RTP_PORT_MAX: invalid range "
                          f"{rtp.port_min}-{rtp.port_max} (RTP_PORT_MIN must not exceed RTP_PORT_MAX)")
    routes = _build_routes(raw, lines, source, warnings)
    return Settings(**built, providers=providers, routes=routes, source=source, warnings=tuple(warnings), raw=raw, lines=lines,
                    file_values=file_values, file_at_start=file_values if file_at_start is None else file_at_start)


def _shown(key: str, value: str) -> str:
    d = by_key().get(key)
    return "<hidden>" if d is not None and d.spec.secret else repr(value)


def _build_routes(
    raw: Mapping[str, str], lines: Mapping[str, int], source: str, warnings: list[str]
) -> dict[str, Route]:
    """The routes with the runtime's own options parsed; a policy's options are kept as text (route_binding.py)."""
    by_route: dict[str, dict[str, str]] = {}
    for k, value in raw.items():
        m = ROUTE_KEY_RE.match(k)
        if m:
            by_route.setdefault(m.group(1), {})[m.group(2)] = value

    routes: dict[str, Route] = {}
    for name, opts in sorted(by_route.items()):
        def where(opt: str, name: str = name) -> str:
            return _where(source, lines, f"ROUTE_{name}_{opt}")

        try:
            enabled = parse_bool(opts.get("ENABLED", "false"))
        except ValueError as exc:
            raise ConfigError(f"{where('ENABLED')}ROUTE_{name}_ENABLED: {exc}") from None
        policy_name = opts.get("POLICY", "").strip()
        if enabled and not policy_name:
            raise ConfigError(f"{where('ENABLED')}ROUTE_{name}_POLICY: route {name.lower()} is enabled but names no policy")
        parsed: dict[str, Any] = {}
        text: dict[str, str] = {}
        for opt, value in opts.items():
            if opt in ("ENABLED", "POLICY"):
                continue
            if opt not in ROUTE_OPTIONS:
                text[opt] = value  # the policy's (or unknown): route_binding.py
                continue
            try:
                parsed[opt.lower()] = parse_runtime_option(opt, value)
            except ValueError as exc:
                message = f"{where(opt)}ROUTE_{name}_{opt}={value!r}: {exc}"
                if enabled:
                    raise ConfigError(message) from None
                warnings.append(f"{message} (route {name.lower()} is disabled)")
        if enabled and parsed.get("production"):
            warnings.append(f"{where('ENABLED')}production route {name.lower()} is ENABLED")
        routes[name.lower()] = Route(name=name.lower(), enabled=enabled, policy=policy_name, option_text=text, **parsed)
    return routes


def load_settings(
    path: str | Path | None, environ: Mapping[str, str] | None = None, *, file_at_start: Mapping[str, str] | None = None
) -> Settings:
    """Settings from an env file (or from the environment alone when `path` is None)."""
    entries: list[EnvEntry] = []
    source = "<environment>"
    if path is not None:
        entries = read_env_file(path)
        source = str(path)
    return build_settings(entries, environ, source, file_at_start=file_at_start)


def reload_settings(current: Settings, environ: Mapping[str, str] | None = None) -> Settings:
    """Re-read `current`'s env file (SIGHUP): the file wins over environment values that merely copy what the
    file said when the process first read it."""
    return load_settings(current.source, environ, file_at_start=current.file_at_start)


def require(settings: Settings, *keys: str) -> None:
    """Raise `ConfigError` naming the first required key that is empty."""
    for key in keys:
        if not settings.value(key):
            raise ConfigError(f"{key}: required but not set in {settings.source} or the environment")


__all__ = [
    "DEFAULT_ENV_PATH",
    "ROUTE_OPTIONS",
    "ConfigError",
    "EnvFileError",
    "Route",
    "Settings",
    "build_settings",
    "load_settings",
    "reload_settings",
    "require",
]
