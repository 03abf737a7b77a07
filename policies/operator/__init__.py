"""The `operator` policy: a Russian/Kazakh telecom AI operator (seed 003 with TZ-07..TZ-11).

Greeting -> language (ru/kk) -> region (20 regions, ISO 3166-2:KZ) -> questions answered from the knowledge
base, with a hard code gate: no knowledge-base search before language and region are selected, whatever a
model asks. Modules: states/machine (transition table, history), permissions (tool matrix, guardrail),
catalog (messages), language/regions/region_data/intents (detectors), prompt (model prompt fragments),
answers (spoken answers), session/flow (`OperatorSession`), selftest/checks (self-test and doctor).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ai_operator.dialogue import CheckResult, SelfTestCase
from policies.operator.flow import OperatorSession


def _handoff_available(route: Any, options: Mapping[str, Any]) -> bool:
    if "handoff_available" in options:
        return bool(options["handoff_available"])
    option = getattr(route, "option", None)
    return bool(option("HANDOFF")) if callable(option) else True


class OperatorPolicy:
    """`POLICY` of `policies/operator/` (see `ai_operator.dialogue.PolicyDefinition`)."""

    name = "operator"
    languages: tuple[str, ...] = ("ru", "kk")
    turn_fields: tuple[str, ...] = ("state", "language", "region_code")

    def validate_route(self, route: Any) -> list[str]:
        return []

    def new_session(
        self, call_id: str, route: Any, *, options: Mapping[str, Any] | None = None
    ) -> OperatorSession:
        """A fresh session. Options: `model_available` (default False), `handoff_available` (default: the route
        has a HANDOFF option, or True without a route). Without a knowledge base the runtime answers the search
        effect with None and the session says so."""
        opts = dict(options or {})
        return OperatorSession(
            call_id,
            model_available=bool(opts.get("model_available", False)),
            handoff_available=_handoff_available(route, opts),
        )

    def self_test(self) -> list[SelfTestCase]:
        from policies.operator.selftest import cases

        return cases()

    def doctor_checks(self) -> list[CheckResult]:
        from policies.operator.checks import doctor_checks

        return doctor_checks()


POLICY = OperatorPolicy()
