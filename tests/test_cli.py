"""The command line as a user runs it: `call` (operator in Russian and Kazakh, freight with the turn boundary),
`dialogue-self-test`, `doctor --check-dialogue`, configuration errors."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support.envfiles import example_text

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "etc" / "ai-operator.env.example"


def cli(*args: str, stdin: str | None = None, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "LOG_FORMAT": "json", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "ai_operator", *args],
        input=stdin, capture_output=True, text=True, timeout=120, env=full_env, cwd=REPO,
    )


def turns(tmp_path: Path, route: str, lines: list[str], *extra: str) -> list[dict]:
    script = tmp_path / "script.txt"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    res = cli("call", "--route", route, "--env", str(EXAMPLE), "--script", str(script), "--json", "--no-knowledge", *extra)
    assert res.returncode == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]


def test_operator_russian_conversation_up_to_a_question(tmp_path):
    out = turns(tmp_path, "test", ["На русском, пожалуйста", "Мы в Усть-Каменогорске", "Сколько стоит интернет?"])
    greeting = out[0]
    assert greeting["caller"] is None and "русский или қазақша" in greeting["reply"]
    for key in ("caller", "reply", "state", "language", "region_code", "tool_calls", "hang_up"):
        assert key in greeting
    assert [t["state"] for t in out] == ["LANGUAGE_SELECTION", "REGION_SELECTION", "READY_TO_HELP", "READY_TO_HELP"]
    assert out[2]["region_code"] == "KZ-63" and out[2]["language"] == "ru"
    question = out[3]
    assert {"name": "search_knowledge_base", "allowed": True} .items() <= question["tool_calls"][0].items()
    assert "база знаний" in question["reply"] and "оператор" in question["reply"]  # not faked: says no KB


def test_operator_kazakh_conversation_with_almaty_clarification(tmp_path):
    out = turns(tmp_path, "test", ["қазақша", "Алматы", "облыс", "Интернет қанша тұрады?"])
    assert out[1]["language"] == "kk"
    assert out[2]["region_code"] == "" and "Алматы" in out[2]["reply"]  # asked: city or region?
    assert out[3]["region_code"] == "KZ-19" and out[3]["state"] == "READY_TO_HELP"
    assert out[4]["tool_calls"][0]["name"] == "search_knowledge_base"


def test_search_is_denied_before_region_in_the_console(tmp_path):
    out = turns(tmp_path, "test", ["[dtmf 1]", "найди в базе знаний тарифы"])
    assert out[1]["language"] == "ru"
    assert out[2]["state"] == "REGION_SELECTION"
    assert not any(c["name"] == "search_knowledge_base" and c["allowed"] for c in out[2]["tool_calls"])


def test_freight_console_turn_boundary_on_a_virtual_clock(tmp_path):
    out = turns(tmp_path, "freight", ["हां जी, मैं ही बोल रहा हूं", "तो मेरा rate लगभग", "+0.8 तेईस हज़ार के आस पास"])
    for key in ("caller", "reply", "phase", "heard_rate", "offered_rate", "hang_up", "disposition"):
        assert key in out[0]
    last = out[-1]
    assert last["caller"] == "तो मेरा rate लगभग तेईस हज़ार के आस पास"  # merged, one turn
    assert last["heard_rate"] == 23000 and last["phase"] == "PROBING"
    assert len(out) == 3


def test_freight_fragment_without_continuation_is_decided_as_it_stands(tmp_path):
    out = turns(tmp_path, "freight", ["हां जी", "तो मेरा rate लगभग", "+5 तेईस हज़ार"])
    assert [t["caller"] for t in out[1:]] == ["हां जी", "तो मेरा rate लगभग", "तेईस हज़ार"]


def test_freight_load_override_and_bad_load_names_the_field(tmp_path):
    load = json.loads((REPO / "etc/loads/sample.json").read_text())
    load["anchor"] = load["ceiling"]
    bad = tmp_path / "bad.json"
    bad.write_text(json.dumps(load))
    script = tmp_path / "s.txt"
    script.write_text("हां जी\n")
    res = cli("call", "--route", "freight", "--env", str(EXAMPLE), "--script", str(script), "--arg", f"load={bad}")
    assert res.returncode == 2
    assert "anchor" in res.stderr and "Traceback" not in res.stderr
    # the old spelling still works, saying what replaces it
    old = cli("call", "--route", "freight", "--env", str(EXAMPLE), "--script", str(script), "--load", str(bad))
    assert old.returncode == 2 and "--load FILE is deprecated; use --arg load=FILE" in old.stderr
    assert f"--arg load={bad}: {bad}: field 'anchor'" in old.stderr


def test_self_test_json_passes_on_the_example(tmp_path):
    res = cli("dialogue-self-test", "--env", str(EXAMPLE), "--json")
    assert res.returncode == 0, res.stdout[-2000:]
    doc = json.loads(res.stdout)
    assert doc["failed"] == 0 and doc["passed"] >= 100
    names = {c["policy"] for c in doc["cases"]}
    assert names == {"operator", "freight"}
    assert all({"name", "passed", "details"} <= c.keys() for c in doc["cases"])


def test_doctor_check_dialogue_passes_on_the_example():
    res = cli("doctor", "--env", str(EXAMPLE), "--check-dialogue")
    assert res.returncode == 0, res.stdout
    lines = res.stdout.splitlines()
    assert any(line.startswith("[OK  ] dialogue self-test") for line in lines)
    assert any("production route disabled" in line for line in lines)
    assert any("20 regions" in line for line in lines)


def test_doctor_fails_on_an_enabled_route_with_a_bad_load(tmp_path):
    env = tmp_path / "a.env"
    env.write_text(example_text(ROUTE_FREIGHT_LOAD="missing.json"))
    res = cli("doctor", "--env", str(env), "--check-dialogue", "--json")
    assert res.returncode == 1
    doc = json.loads(res.stdout)
    failed = [c for c in doc["checks"] if c["status"] == "FAIL"]
    assert failed and any("ROUTE_FREIGHT_LOAD='missing.json'" in c["detail"] and "not found" in c["detail"]
                          for c in failed)


@pytest.mark.parametrize(
    ("text", "expect"),
    [
        ("ARI_URL=http://x\nthis line is broken\n", ":2: expected KEY=VALUE"),
        ("ROUTE_TEST_ENABLED=true\nROUTE_TEST_POLICY=nosuch\n", "ROUTE_TEST_POLICY"),
    ],
)
def test_configuration_errors_exit_2_naming_line_or_key(tmp_path, text, expect):
    env = tmp_path / "bad.env"
    env.write_text(text)
    res = cli("dialogue-self-test", "--env", str(env))
    assert res.returncode == 2
    assert expect in res.stderr and "Traceback" not in res.stderr


def test_unknown_key_is_a_warning_on_stderr(tmp_path):
    env = tmp_path / "typo.env"
    env.write_text(example_text() + "\nMAX_CALS=5\n")
    res = cli("dialogue-self-test", "--env", str(env))
    assert res.returncode == 0
    assert "MAX_CALS" in res.stderr
