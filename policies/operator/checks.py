"""Doctor checks of the operator policy: catalog completeness and the region table. Pure."""

from __future__ import annotations

import re

from ai_operator.dialogue import CheckResult
from policies.operator.catalog import missing_lines
from policies.operator.region_data import REGIONS

EXPECTED_REGIONS = 20
_ISO_KZ = re.compile(r"^KZ-\d{2}$")


def catalog_check() -> CheckResult:
    missing = missing_lines()
    if missing:
        return CheckResult("catalog complete for ru and kk", "FAIL", f"missing lines: {', '.join(missing)}")
    return CheckResult(
        "catalog complete for ru and kk", "OK", "every message has a Russian and a Kazakh line"
    )


def region_check() -> CheckResult:
    codes = [r.code for r in REGIONS]
    bad = [c for c in codes if not _ISO_KZ.match(c)]
    dupes = sorted({c for c in codes if codes.count(c) > 1})
    name = f"{EXPECTED_REGIONS} regions with unique ISO 3166-2:KZ codes"
    if len(codes) != EXPECTED_REGIONS or bad or dupes:
        detail = f"{len(codes)} regions; malformed: {bad or 'none'}; duplicated: {dupes or 'none'}"
        return CheckResult(name, "FAIL", detail)
    return CheckResult(name, "OK", ", ".join(codes))


def doctor_checks() -> list[CheckResult]:
    return [catalog_check(), region_check()]
