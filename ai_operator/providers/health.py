"""Provider health: a circuit breaker per (provider, kind), the start check, and what /healthz, /metrics and the
log say about it.

States of one (provider, kind): `unchecked` (nothing known yet), `up` (its last call worked), `failing`
(failures in a row, fewer than the threshold: still called), `open` (not called until the cool-down is over; a
call costs nothing and fails at once), `half_open` (cool-down over: the next call is the one probe; the others
still fail at once). A wrong key (HTTP 401/403) or an unknown model (404) opens the breaker at its first failure;
anything else after `failures_to_open` failures in a row. Each state change is one log line (`provider_state`),
never one per call. The current call's failures are noted for its record (`CallNotes`, a context variable the
call sets), so the record says why the caller heard a fallback.
"""

from __future__ import annotations

import asyncio
import re
import time
from collections import deque
from collections.abc import Callable, Iterable
from contextvars import ContextVar
from typing import TYPE_CHECKING, Any

from prometheus_client import CollectorRegistry, Counter, Gauge

import ai_operator.providers.registry as registry
from ai_operator.logs import get_logger
from ai_operator.speech.errors import SpeechError

if TYPE_CHECKING:
    from ai_operator.config import Settings

log = get_logger("providers")

STATES = ("unchecked", "up", "failing", "open", "half_open")
HEALTHY_STATES = ("unchecked", "up")
ERROR_WINDOW = 20  # the error rate is over this many last calls
FATAL_STATUS = frozenset({401, 403, 404})  # wrong or revoked key, no access, no such model: open at once
OPEN_AT_ONCE = ("auth", "not_found")
_STATUS_RE = re.compile(r"\bHTTP (\d{3})\b")
NS = "ai_operator"


class ProviderUnavailable(SpeechError):
    """The provider's breaker is open: it was not called."""


def failure_class(reason: str) -> str:
    """auth, not_found, rate_limited, server_error, client_error, timeout, connection or other, from a failure's wording
    (`openai_client.describe_failure` writes `HTTP <status>`, `timeout`, `connection failed`)."""
    status = _STATUS_RE.search(reason)
    if status:
        code = int(status.group(1))
        if code in FATAL_STATUS:
            return "auth" if code in (401, 403) else "not_found"
        return "rate_limited" if code == 429 else ("server_error" if code >= 500 else "client_error")
    if "timeout" in reason or "timed out" in reason:
        return "timeout"
    return "connection" if "connection" in reason else "other"


class ProviderMetrics:
    """`ai_operator_provider_state{provider,kind,state}` (1 for the current state), `..._provider_requests_total
    {provider,kind,outcome}` (ok, failed, skipped: not called, breaker open), `..._provider_failures_total
    {provider,kind,reason}` (the failure class), `..._provider_breaker_opened_total{provider,kind}`."""

    def __init__(self, registry_: CollectorRegistry | None) -> None:
        r = registry_ or CollectorRegistry()
        self.state = Gauge("provider_state", "1 for the provider's current state", ["provider", "kind", "state"],
                           namespace=NS, registry=r)
        self.requests = Counter("provider_requests", "calls of a provider by outcome (skipped: breaker open)",
                                ["provider", "kind", "outcome"], namespace=NS, registry=r)
        self.failures = Counter("provider_failures", "failed provider calls by reason",
                                ["provider", "kind", "reason"], namespace=NS, registry=r)
        self.opened = Counter("provider_breaker_opened", "times a provider's breaker opened", ["provider", "kind"],
                              namespace=NS, registry=r)


class ProviderHealth:
    """The breaker and the watch of one (provider, kind)."""

    def __init__(self, provider: str, kind: str, *, failures_to_open: int, cooldown_s: float,
                 metrics: ProviderMetrics, clock: Callable[[], float] = time.monotonic) -> None:
        self.provider, self.kind = provider, kind
        self.failures_to_open = failures_to_open
        self.cooldown_s = cooldown_s
        self._metrics = metrics
        self._clock = clock
        self.state = "unchecked"
        self.reason: str | None = None
        self.consecutive = 0
        self.opened_at = 0.0
        self._probing = False
        self._recent: deque[bool] = deque(maxlen=ERROR_WINDOW)
        for state in STATES:
            metrics.state.labels(provider, kind, state).set(1 if state == self.state else 0)
        for outcome in ("ok", "failed", "skipped"):
            metrics.requests.labels(provider, kind, outcome)
        metrics.opened.labels(provider, kind)

    @property
    def label(self) -> str:
        return f"{self.provider}/{self.kind}"

    @property
    def error_rate(self) -> float:
        return round(self._recent.count(False) / len(self._recent), 3) if self._recent else 0.0

    def allow(self) -> bool:
        """May it be called now? Counts a refusal as `skipped`; the call after the cool-down is the probe."""
        if self.state == "open" and self._clock() - self.opened_at >= self.cooldown_s:
            self._set("half_open", self.reason)
        if self.state == "half_open" and not self._probing:
            self._probing = True
            return True
        if self.state in ("open", "half_open"):
            self._metrics.requests.labels(self.provider, self.kind, "skipped").inc()
            return False
        return True

    def release(self) -> None:
        """The call ended with no verdict (cancelled: barge-in, hang-up): a probe may run again."""
        self._probing = False

    def success(self) -> None:
        self._probing = False
        self.consecutive = 0
        self._recent.append(True)
        self._metrics.requests.labels(self.provider, self.kind, "ok").inc()
        self._set("up", None)

    def failure(self, reason: str) -> None:
        self._probing = False
        self.consecutive += 1
        self._recent.append(False)
        kind = failure_class(reason)
        self._metrics.requests.labels(self.provider, self.kind, "failed").inc()
        self._metrics.failures.labels(self.provider, self.kind, kind).inc()
        if self.state == "half_open" or kind in OPEN_AT_ONCE or self.consecutive >= self.failures_to_open:
            self.opened_at = self._clock()
            if self.state != "open":
                self._metrics.opened.labels(self.provider, self.kind).inc()
            self._set("open", reason)
        else:
            self._set("failing", reason)

    def _set(self, state: str, reason: str | None) -> None:
        self.reason = reason
        if state == self.state:
            return
        old, self.state = self.state, state
        for s in (old, state):
            self._metrics.state.labels(self.provider, self.kind, s).set(1 if s == state else 0)
        level = "info" if state in HEALTHY_STATES else "warning"
        extra = {"cooldown_s": self.cooldown_s} if state == "open" else {}
        getattr(log, level)("provider_state", provider=self.provider, kind=self.kind, state=state, was=old,
                            reason=reason, consecutive_failures=self.consecutive, **extra)

    def snapshot(self) -> dict[str, Any]:
        out: dict[str, Any] = {"state": self.state, "consecutive_failures": self.consecutive,
                               "error_rate": self.error_rate}
        if self.reason:
            out["reason"] = self.reason
        if self.state == "open":
            out["retry_in_s"] = round(max(0.0, self.opened_at + self.cooldown_s - self._clock()), 1)
        return out


class ProviderBoard:
    """Every provider's health in one daemon: the wrapping point's source, /healthz's and /metrics' view."""

    def __init__(self, *, failures_to_open: int, cooldown_s: float, check_timeout_s: float,
                 metrics_registry: CollectorRegistry | None = None, clock: Callable[[], float] = time.monotonic):
        self.failures_to_open = failures_to_open
        self.cooldown_s = cooldown_s
        self.check_timeout_s = check_timeout_s
        self.metrics = ProviderMetrics(metrics_registry)
        self._clock = clock
        self._health: dict[tuple[str, str], ProviderHealth] = {}

    @classmethod
    def from_settings(cls, settings: Settings, metrics_registry: CollectorRegistry | None = None) -> ProviderBoard:
        sp = settings.speech
        return cls(failures_to_open=sp.provider_failures_to_open, cooldown_s=sp.provider_cooldown_s,
                   check_timeout_s=sp.provider_check_timeout_s, metrics_registry=metrics_registry)

    def health(self, provider: str, kind: str) -> ProviderHealth:
        key = (provider, kind)
        if key not in self._health:
            self._health[key] = ProviderHealth(provider, kind, failures_to_open=self.failures_to_open,
                                               cooldown_s=self.cooldown_s, metrics=self.metrics, clock=self._clock)
        return self._health[key]

    async def check(self, settings: Settings, used: Iterable[tuple[str, str]]) -> None:
        """The start check: one authenticated request per provider in `used` ((provider, kind) pairs), all at
        once, each bounded by `check_timeout_s`; the verdict lands on every kind of that provider."""
        kinds: dict[str, list[str]] = {}
        for provider, kind in used:
            kinds.setdefault(provider, []).append(kind)

        async def one(name: str) -> None:
            spec = registry.get(name)
            if spec.check is None:
                return
            try:
                reason = await asyncio.wait_for(spec.check(settings), self.check_timeout_s)
            except TimeoutError:
                reason = f"start check: timeout after {self.check_timeout_s:g} s"
            except Exception as exc:
                reason = f"start check: {type(exc).__name__}: {str(exc)[:200]}"
            for kind in kinds[name]:
                health = self.health(name, kind)
                health.success() if reason is None else health.failure(reason)

        await asyncio.gather(*(one(name) for name in kinds))

    def report(self) -> dict[str, dict[str, Any]]:
        return {h.label: h.snapshot() for h in self._health.values()}

    def degraded(self) -> list[str]:
        """Reasons for /healthz: one per provider not up."""
        return [f"provider {h.label} {h.state}: {h.reason}" for h in self._health.values()
                if h.state not in HEALTHY_STATES]


class CallNotes:
    """What went wrong with providers during one call (for its record): kind -> last reason; fallbacks used."""

    def __init__(self) -> None:
        self.failures: dict[str, str] = {}
        self.fallbacks: dict[str, str] = {}

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        if self.failures:
            out["provider_failures"] = dict(self.failures)
        if self.fallbacks:
            out["provider_fallbacks"] = dict(self.fallbacks)
        return out


_CALL_NOTES: ContextVar[CallNotes | None] = ContextVar("provider_call_notes", default=None)


def watch_call(notes: CallNotes) -> None:
    """Note provider failures of the current task (a call's) and of the tasks it starts in `notes`."""
    _CALL_NOTES.set(notes)


def note_failure(kind: str, reason: str, fallback: str | None = None) -> None:
    notes = _CALL_NOTES.get()
    if notes is not None:
        notes.failures[kind] = reason
        if fallback:
            notes.fallbacks[kind] = fallback
