"""Sizing: `MEASURED`, the `MAX_CALLS` default and the env example follow the committed report the README's figures
come from (the knee is recomputed from its budgets here), and doctor's sizing line says the rule and warns past it."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from ai_operator.config.schema import CallSettings
from ai_operator.ops.sizing import MEASURED, Measured, daemons_for, sizing_check
from benchmarks import knee_readme
from benchmarks.readme_table import knee_run

REPO = Path(__file__).resolve().parent.parent
BLOCK_SOURCE = re.compile(r"<!-- bench-table source=(\S+) -->")
KNEE_SOURCE = re.compile(r"<!-- knee source=(\S+) -->")


def _readme_report() -> tuple[str, dict[str, Any]]:
    m = BLOCK_SOURCE.search((REPO / "README.md").read_text(encoding="utf-8"))
    assert m, "README has no generated bench-table block"
    return m.group(1), json.loads((REPO / m.group(1)).read_text(encoding="utf-8"))


def _knee(report: dict[str, Any]) -> tuple[int | None, float]:
    runs = sorted(report["media"], key=lambda r: r["calls"])
    at = knee_run(runs)
    return (at["calls"] if at else None), (at or runs[0])["cpu"]["s_per_call_minute"]


def _searched_knee() -> tuple[str, dict[str, Any]] | None:
    """The README's knee-search report, when it qualifies to size `MAX_CALLS` (else the fixed-size table's sizes)."""
    m = KNEE_SOURCE.search((REPO / "README.md").read_text(encoding="utf-8"))
    if m is None:
        return None
    report = json.loads((REPO / m.group(1)).read_text(encoding="utf-8"))
    return (m.group(1), report) if not knee_readme.qualifies(report) else None


def test_measured_is_the_knee_of_the_report_the_readme_shows():
    searched = _searched_knee()
    if searched is not None:
        source, report = searched
        at = knee_readme.knee_run(report) or {}
        knee, cpu = report["knee"]["summary"]["knee"], at["cpu"]["s_per_call_minute"]
        assert MEASURED.margin_pct == report["knee"]["summary"]["margin_pct"]
        assert MEASURED.recommended == report["knee"]["summary"]["recommended_max_calls"]
    else:
        source, report = _readme_report()
        knee, cpu = _knee(report)
    assert MEASURED.report == source
    assert MEASURED.clean_calls == knee
    assert MEASURED.cpu_s_per_call_minute == pytest.approx(cpu, abs=5e-4)
    assert MEASURED.cpus == report["machine"]["cpus"] and MEASURED.cpu_model == report["machine"]["cpu_model"]


def test_max_calls_default_and_env_example_are_the_knee():
    default = CallSettings().max_calls
    if MEASURED.clean_calls is not None:
        assert default == MEASURED.recommended  # the knee less the report's margin (none for the pinned report)
    example = (REPO / "etc" / "ai-operator.env.example").read_text(encoding="utf-8")
    m = re.search(r"^MAX_CALLS=(\d+)$", example, re.M)
    assert m and int(m.group(1)) == default


@pytest.mark.parametrize(("cpus", "daemons"), [(1, 1), (2, 1), (4, 3), (16, 15)])
def test_one_daemon_per_core_left_after_asterisk(cpus, daemons):
    assert daemons_for(cpus) == daemons


MEASURED_100 = Measured(clean_calls=100, cpu_s_per_call_minute=0.2, report="benchmarks/reports/x.json", cpus=2,
                        cpu_model="Test CPU")


def test_at_or_below_the_knee_the_line_is_ok_and_states_the_rule():
    for max_calls in (1, 99, 100):
        r = sizing_check(max_calls, 4, MEASURED_100)
        assert r.status == "OK", r
        assert f"MAX_CALLS={max_calls}" in r.detail and "3 daemon(s) x 100 = 300 calls" in r.detail
        assert "benchmarks/reports/x.json" in r.detail and "0.33 core" in r.detail


def test_past_the_knee_it_warns_and_says_what_to_set():
    r = sizing_check(101, 2, MEASURED_100)
    assert r.status == "WARN"
    assert "MAX_CALLS=101 is past the measured knee" in r.detail and "set MAX_CALLS<=100" in r.detail


def test_with_no_clean_run_measured_it_warns_and_says_how_to_measure():
    none = Measured(clean_calls=None, cpu_s_per_call_minute=0.3, report="r.json", cpus=2, cpu_model="Test CPU")
    r = sizing_check(50, 2, none)
    assert r.status == "WARN" and "no N ran clean" in r.detail and "make bench" in r.detail


async def test_doctor_system_group_prints_the_sizing_line(tmp_path):
    from ai_operator.doctor.runner import collect

    env = tmp_path / "ai-operator.env"
    env.write_text(f"STATE_DIR={tmp_path}\nMAX_CALLS=10000\n", encoding="utf-8")
    env.chmod(0o640)
    results = await collect(str(env), ["system"])
    sizing = [r for r in results if r.name == "sizing"]
    assert len(sizing) == 1
    if MEASURED.clean_calls is not None:
        assert sizing[0].status == "WARN" and "MAX_CALLS=10000 is past the measured knee" in sizing[0].detail
    else:
        assert sizing[0].status == "WARN" and "no N ran clean" in sizing[0].detail


def _run(calls: int, verdict: str, max_calls: int | None = None, valid: bool = True) -> dict[str, Any]:
    return {"calls": calls, "max_calls": max_calls, "verdict": verdict, "valid": {"ok": valid, "problems": []}}


def test_the_knee_is_the_largest_clean_valid_run_and_never_an_overload_run():
    runs = [_run(200, "PASS"), _run(400, "PASS"), _run(500, "FAIL"), _run(600, "PASS", max_calls=400),
            _run(450, "PASS", valid=False)]
    assert (knee_run(runs) or {}).get("calls") == 400
    assert knee_run([_run(600, "PASS", max_calls=400)]) is None
    assert (knee_run([_run(300, "PASS", max_calls=300)]) or {}).get("calls") == 300  # a cap at N refuses nothing
    assert knee_run([_run(100, "FAIL")]) is None
