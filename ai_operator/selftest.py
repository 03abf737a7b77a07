"""`dialogue-self-test`: runs every policy's built-in scripted conversations. No Asterisk, model, database or network.

Which policies: those named by the env file's routes (enabled or not), or every shipped policy when the env
file names none. Exit 0 only when every case passes.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, TextIO

from ai_operator.config import Settings
from ai_operator.dialogue import SelfTestResult
from policies import available_policies, load_policy


@dataclass(frozen=True)
class CaseReport:
    policy: str
    result: SelfTestResult
    ms: float


def policies_under_test(settings: Settings | None) -> list[str]:
    names = sorted({r.policy for r in settings.routes.values() if r.policy}) if settings else []
    shipped = available_policies()
    return [n for n in names if n in shipped] or shipped


def run_self_test(policy_names: list[str]) -> list[CaseReport]:
    """Run every case of every named policy; a case that raises counts as failed with the exception."""
    reports: list[CaseReport] = []
    for name in policy_names:
        for case in load_policy(name).self_test():
            t0 = time.perf_counter()
            try:
                result = case.run()
            except Exception as exc:  # a crashing case is a failing case, with the reason
                result = SelfTestResult(case.name, False, f"raised {type(exc).__name__}: {exc}")
            reports.append(CaseReport(name, result, (time.perf_counter() - t0) * 1000))
    return reports


def print_reports(reports: list[CaseReport], out: TextIO, *, as_json: bool) -> None:
    passed = sum(r.result.passed for r in reports)
    failed = len(reports) - passed
    if as_json:
        doc: dict[str, Any] = {
            "passed": passed,
            "failed": failed,
            "cases": [
                {
                    "policy": r.policy,
                    "name": r.result.name,
                    "passed": r.result.passed,
                    "details": r.result.details,
                    "ms": round(r.ms, 3),
                }
                for r in reports
            ],
        }
        out.write(json.dumps(doc, ensure_ascii=False, indent=2) + "\n")
        return
    for r in reports:
        if not r.result.passed:
            out.write(f"FAIL {r.policy}: {r.result.name}: {r.result.details}\n")
    by_policy: dict[str, list[CaseReport]] = {}
    for r in reports:
        by_policy.setdefault(r.policy, []).append(r)
    for name, rs in by_policy.items():
        ok = sum(x.result.passed for x in rs)
        out.write(f"{name}: {ok}/{len(rs)} cases passed\n")
    out.write(f"{passed} passed, {failed} failed\n")
