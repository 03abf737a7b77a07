"""The provider registry: which speech and model providers exist, and what each one owns.

A provider is one module (`ai_operator/providers/openai.py`, `espeak.py`, ...) exposing `PROVIDER`, a
`ProviderSpec`: its name, its settings group (a frozen dataclass of `config.schema.setting` fields, declared in
the provider's module and read with `settings.group(TheGroup)`), a builder per kind it serves (`stt`,
`tts`, `llm`), its doctor/start check (an authenticated request: `None` when fine, else the reason) and the hook
that maps a policy's language code to the provider's. The factory (`factory.py`), doctor, the start check and
the env-example test are all built from this table; adding a provider is its module plus one line in
`BUILTIN_MODULES` (or one `register(PROVIDER)` call, as the tests do). Pure: no I/O here.
"""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from ai_operator.config import Settings

KINDS = ("stt", "tts", "llm")
NONE = "none"  # the kind is off (no STT: DTMF only; no model: the policy's own lines)
AUTO = "auto"  # the first registered provider of the kind that can run with these settings
BUILTIN_MODULES = (  # one line per provider, in `auto` preference order
    "ai_operator.providers.openai",
    "ai_operator.providers.espeak",
    "ai_operator.providers.openai_realtime",
)

Builder = Callable[["Settings"], Any]
Check = Callable[["Settings"], Awaitable[str | None]]


def same_code(language: str) -> str:
    return language


@dataclass(frozen=True)
class ProviderSpec:
    """One provider: what it serves and how it is built, checked and configured."""

    name: str
    doc: str
    settings: type | None = None  # its settings group: the keys it reads (several providers may share one group)
    stt: Builder | None = None  # -> a `SpeechToText` (segmented) or a `StreamingSpeechToText`
    tts: Builder | None = None  # -> a `TextToSpeech`
    llm: Builder | None = None  # -> a chat model (`conversation.ChatModelLike`)
    check: Check | None = None  # start and doctor check: None = fine, else why not
    missing: Callable[[Settings], str | None] | None = None  # what these settings lack for it ("OPENAI_API_KEY")
    language: Callable[[str], str] = same_code  # the policy's language code -> the provider's
    local: bool = False  # runs on this host (a fallback voice), no account, nothing to watch

    def builder(self, kind: str) -> Builder | None:
        builder: Builder | None = getattr(self, kind)
        return builder

    @property
    def settings_keys(self) -> tuple[str, ...]:
        """The env keys of its settings group."""
        if self.settings is None:
            return ()
        return tuple(f.metadata["spec"].key for f in dataclasses.fields(self.settings))

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(k for k in KINDS if self.builder(k) is not None)


_REGISTRY: dict[str, ProviderSpec] = {}
_loaded = False


def _load_builtins() -> None:
    global _loaded
    if _loaded:
        return
    _loaded = True
    for module in BUILTIN_MODULES:
        spec: ProviderSpec = importlib.import_module(module).PROVIDER
        _REGISTRY.setdefault(spec.name, spec)


def register(spec: ProviderSpec) -> ProviderSpec:
    """Add (or replace) a provider; returns it. Names are lower-case identifiers, never `auto` or `none`."""
    if not spec.name.isidentifier() or spec.name != spec.name.lower() or spec.name in (AUTO, NONE):
        raise ValueError(f"provider name {spec.name!r}: a lower-case identifier other than auto/none")
    _load_builtins()
    _REGISTRY[spec.name] = spec
    return spec


def unregister(name: str) -> None:
    _REGISTRY.pop(name, None)


def providers() -> tuple[ProviderSpec, ...]:
    _load_builtins()
    return tuple(_REGISTRY.values())


def get(name: str) -> ProviderSpec:
    _load_builtins()
    return _REGISTRY[name]


def settings_groups() -> dict[str, type]:
    """The registered providers' settings groups, each once, named after the first provider declaring it."""
    out: dict[str, type] = {}
    for p in providers():
        if p.settings is not None and p.settings not in out.values():
            out[p.name] = p.settings
    return out


def names(kind: str) -> tuple[str, ...]:
    """The providers serving `kind`, in preference order."""
    return tuple(p.name for p in providers() if p.builder(kind) is not None)


def choices(kind: str) -> tuple[str, ...]:
    """What a `*_PROVIDER` key (or a route's override) may say for `kind`."""
    return (AUTO, *names(kind)) + (() if kind == "tts" else (NONE,))


__all__ = ["AUTO", "BUILTIN_MODULES", "KINDS", "NONE", "ProviderSpec", "choices", "get", "names", "providers",
           "register", "settings_groups", "unregister"]
