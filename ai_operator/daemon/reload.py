"""What a reload (SIGHUP) changes, decided from the running settings and the re-read ones (pure, no I/O).

Every key is reloadable unless the schema declares it `restart=True` (config/schema.py). The settings a reload
leaves the daemon with are the re-read ones with each restart-only key kept at its running value: those keys
are named (`needs_restart`) and nothing of them is applied, so the daemon never runs half of a new ARI, RTP,
metrics or storage set-up. Route keys (`ROUTE_*`) are reloadable. Calls in progress are not touched here at
all: they keep the settings and adapters they started with (daemon/services.py `for_call`).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any

from ai_operator.config import Settings
from ai_operator.config.routes import ROUTE_KEY_RE
from ai_operator.config.schema import Declared, declared

EMBEDDER_KEYS = frozenset({"EMBEDDING_PROVIDER", "EMBEDDING_MODEL", "EMBEDDING_DIM", "OPENAI_API_KEY", "OPENAI_BASE_URL"})


@dataclass(frozen=True)
class ReloadPlan:
    """`settings`: what new calls use from now on; `applied`: keys whose new value they get; `needs_restart`:
    restart-only keys whose new value is not applied (the running value stays)."""

    settings: Settings
    applied: tuple[str, ...]
    needs_restart: tuple[str, ...]

    def touches(self, keys: frozenset[str]) -> bool:
        return any(k in keys for k in self.applied)


def _value(settings: Settings, d: Declared) -> Any:
    return getattr(settings.group(d.cls), d.attr)


def plan_reload(running: Settings, reread: Settings) -> ReloadPlan:
    """The settings to switch to, which keys they change and which changed keys wait for a restart."""
    applied: list[str] = []
    needs_restart: list[str] = []
    pinned: dict[type, dict[str, Any]] = {}
    raw = dict(reread.raw)
    for d in declared():
        old, new = _value(running, d), _value(reread, d)
        if old == new:
            continue
        if d.spec.restart:
            needs_restart.append(d.key)
            pinned.setdefault(d.cls, {})[d.attr] = old
            if d.key in running.raw:
                raw[d.key] = running.raw[d.key]
            else:
                raw.pop(d.key, None)
        else:
            applied.append(d.key)
    route_keys = {k for k in (*running.raw, *reread.raw) if ROUTE_KEY_RE.match(k)}
    applied += sorted(k for k in route_keys if running.raw.get(k) != reread.raw.get(k))
    groups: dict[type, Any] = {cls: dataclasses.replace(reread.group(cls), **attrs) for cls, attrs in pinned.items()}
    settings = dataclasses.replace(reread.with_groups(groups), raw=raw) if groups else reread
    return ReloadPlan(settings, tuple(applied), tuple(needs_restart))


__all__ = ["EMBEDDER_KEYS", "ReloadPlan", "plan_reload"]
