"""`FreightPolicy`: the freight policy's `PolicyDefinition` (route validation, session factory, checks).

Owns how a route and the call options become a session: the load comes from `options["load"]` (a path or a
`Load`, e.g. `ai-operator call --route freight --load FILE`) or else the route's LOAD option; `hold_s` from
`options["hold_s"]`, the route's HOLD_S, or 1.5 s; `model_available` from the options.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ai_operator.dialogue import CheckResult, SelfTestCase
from policies.freight.load import Load, LoadError, load_from_file
from policies.freight.session import DEFAULT_HOLD_S, FreightSession

MAX_HOLD_S = 10.0


def _route_key(route: Any, option: str) -> str:
    name = str(getattr(route, "name", "") or "route").upper()
    return f"ROUTE_{name}_{option}"


def parse_hold_s(raw: Any, where: str) -> float:
    """A hold time in seconds, 0..10; raises `ValueError` naming `where`."""
    try:
        value = float(raw)
    except (TypeError, ValueError):
        raise ValueError(f"{where}: expected seconds (a number), got {raw!r}") from None
    if not 0 <= value <= MAX_HOLD_S:
        raise ValueError(f"{where}: must be between 0 and {MAX_HOLD_S:g} seconds, got {raw!r}")
    return value


class FreightPolicy:
    """Hindi freight-rate negotiation (seed 000): Ori calls a truck vendor about one load."""

    name = "freight"
    languages: tuple[str, ...] = ("hi",)
    turn_fields: tuple[str, ...] = ("phase", "heard_rate", "offered_rate", "disposition")

    def validate_route(self, route: Any) -> list[str]:
        errors: list[str] = []
        option = getattr(route, "option", None)
        path = option("LOAD") if callable(option) else ""
        if not path:
            errors.append(f"{_route_key(route, 'LOAD')}: the freight policy needs a load file (JSON)")
        else:
            try:
                load_from_file(path)
            except LoadError as exc:
                errors.append(f"{_route_key(route, 'LOAD')}: {exc}")
        hold = option("HOLD_S") if callable(option) else ""
        if hold:
            try:
                parse_hold_s(hold, _route_key(route, "HOLD_S"))
            except ValueError as exc:
                errors.append(str(exc))
        return errors

    def new_session(
        self, call_id: str, route: Any, *, options: Mapping[str, Any] | None = None
    ) -> FreightSession:
        """A fresh session; raises `LoadError` (naming the field) when the load is missing or bad."""
        opts = dict(options or {})
        option = getattr(route, "option", None)
        load = opts.get("load")
        if isinstance(load, Load):
            pass
        elif isinstance(load, str | Path) and str(load):
            load = load_from_file(load)
        elif callable(option) and option("LOAD"):
            load = load_from_file(option("LOAD"))
        else:
            raise LoadError("", "load", "no load file: pass --load FILE or set ROUTE_<NAME>_LOAD")
        if opts.get("hold_s") is not None:
            hold_s = parse_hold_s(opts["hold_s"], "hold_s")
        elif callable(option) and option("HOLD_S"):
            hold_s = parse_hold_s(option("HOLD_S"), _route_key(route, "HOLD_S"))
        else:
            hold_s = DEFAULT_HOLD_S
        return FreightSession(call_id, load, model_available=bool(opts.get("model_available")), hold_s=hold_s)

    def self_test(self) -> list[SelfTestCase]:
        from policies.freight.selftest import self_test_cases

        return self_test_cases()

    def doctor_checks(self) -> list[CheckResult]:
        from policies.freight.selftest import doctor_checks

        return doctor_checks()
