"""Doctor checks that need no network: routes, policies, catalogs, regions, the dialogue self-test."""

from __future__ import annotations

from ai_operator.config import Settings
from ai_operator.dialogue import CheckResult
from ai_operator.selftest import policies_under_test, run_self_test
from policies import PolicyNotFound, load_policy


def route_checks(settings: Settings) -> list[CheckResult]:
    """Routes are sane: at least one enabled, production routes disabled unless explicitly enabled."""
    out: list[CheckResult] = []
    enabled = [r.name for r in settings.routes.values() if r.enabled]
    if not settings.routes:
        out.append(CheckResult("routes", "FAIL", "no ROUTE_<NAME>_* keys: define at least ROUTE_TEST_ENABLED/POLICY"))
    elif not enabled:
        out.append(CheckResult("routes", "WARN", "no route is enabled: every call goes back to the dialplan"))
    else:
        out.append(CheckResult("routes", "OK", f"enabled: {', '.join(enabled)}"))
    for route in (r for r in settings.routes.values() if r.production):
        if route.enabled:
            out.append(
                CheckResult(
                    f"route {route.name}",
                    "WARN",
                    f"production route is ENABLED (ROUTE_{route.name.upper()}_ENABLED=true): real callers reach the bot",
                )
            )
        else:
            out.append(CheckResult(f"route {route.name}", "OK", "production route disabled"))
    return out


def policy_checks(settings: Settings) -> list[CheckResult]:
    """Each enabled route's policy loads and accepts the route's options; the policies' own checks."""
    out: list[CheckResult] = []
    seen: set[str] = set()
    for route in settings.routes.values():
        if not route.enabled:
            continue
        try:
            policy = load_policy(route.policy)
        except PolicyNotFound as exc:
            out.append(CheckResult(f"route {route.name} policy", "FAIL", str(exc)))
            continue
        # the route's options were parsed (and e.g. a freight load read and checked) when its routes were bound
        options = ", ".join(sorted(route.options or route.option_text)) or "none"
        out.append(CheckResult(f"route {route.name} policy {route.policy}", "OK", f"loads; route options valid ({options})"))
        if route.handoff is not None:
            kind = "endpoint" if route.handoff.endpoint else "dialplan"
            out.append(CheckResult(f"route {route.name} handoff", "OK", f"{kind} {route.handoff}"))
        else:
            out.append(CheckResult(f"route {route.name} handoff", "WARN",
                                   f"ROUTE_{route.name.upper()}_HANDOFF is not set: a caller who asks for a person "
                                   "hears that nobody can be reached"))
        if route.policy not in seen:
            seen.add(route.policy)
            out.extend(
                CheckResult(f"{route.policy}: {c.name}", c.status, c.detail) for c in policy.doctor_checks()
            )
    return out


def self_test_check(settings: Settings) -> CheckResult:
    names = policies_under_test(settings)
    reports = run_self_test(names)
    failed = [r for r in reports if not r.result.passed]
    if failed:
        first = failed[0]
        return CheckResult(
            "dialogue self-test",
            "FAIL",
            f"{len(failed)}/{len(reports)} cases failed; first: {first.policy}: {first.result.name}: {first.result.details}"
            " (run `ai-operator dialogue-self-test --json` for all)",
        )
    return CheckResult("dialogue self-test", "OK", f"{len(reports)} cases passed ({', '.join(names)})")


def dialogue_checks(settings: Settings) -> list[CheckResult]:
    return [*route_checks(settings), *policy_checks(settings), self_test_check(settings)]
