"""A policy is just a folder: `tests/policies/survey/` (an English yes/no survey, nowhere else in the code) runs
through the console, the daemon with the simulated PBX, doctor and the self-test, reached only through
`POLICY_PATH` and its route keys."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests.support.daemon import Caller, stage_for
from tests.support.envfiles import example_text

REPO = Path(__file__).resolve().parents[2]  # tests/policies/ -> the checkout
POLICY_DIR = REPO / "tests" / "policies"
SURVEY_ROUTE: dict[str, Any] = {
    "POLICY_PATH": str(POLICY_DIR),
    "ROUTE_SURVEY_ENABLED": "true",
    "ROUTE_SURVEY_POLICY": "survey",
    "ROUTE_SURVEY_QUESTIONS": "2",
}


def survey_env(tmp_path: Path) -> Path:
    env = tmp_path / "survey.env"
    env.write_text(example_text(STATE_DIR=str(tmp_path / "state"), **SURVEY_ROUTE))
    env.chmod(0o600)
    return env


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ai_operator", *args], capture_output=True, text=True,
                          cwd=REPO, env=dict(os.environ), timeout=300, check=False)


def test_the_test_policies_have_no_trace_outside_their_folders() -> None:
    """(survey, and dispatch of tests/policies/test_policy_file_options.py; what the runtime assumes of them is checked
    by tests/test_policy_contract.py)"""
    hits = subprocess.run(["grep", "-rIl", "--exclude-dir=.git", "--exclude-dir=.venv", "--exclude-dir=__pycache__",
                           "SurveySession\\|policies.survey\\|ROUTE_SURVEY\\|DispatchSession\\|policies.dispatch\\|"
                           "ROUTE_DISPATCH", "ai_operator", "policies", "etc"],
                          cwd=REPO, capture_output=True, text=True, check=False)
    assert hits.stdout == ""


def test_console_conversation(tmp_path: Path) -> None:
    script = tmp_path / "s.txt"
    script.write_text("um yeah i was\nhmm\nnope not really\n")
    res = cli("call", "--route", "survey", "--env", str(survey_env(tmp_path)), "--script", str(script), "--json")
    assert res.returncode == 0, res.stderr
    turns = [json.loads(line) for line in res.stdout.splitlines()]
    assert [t["caller"] for t in turns] == [None, "um yeah i was", "hmm", "nope not really"]
    assert turns[0]["reply"].startswith("Hello, this is a short survey")
    assert turns[2]["reply"] == "Sorry, please answer yes or no." and turns[2]["step"] == "q2"
    assert turns[-1]["hang_up"] and turns[-1]["answers"] == ["yes", "no"] and turns[-1]["disposition"] == "completed"


def test_a_bad_policy_option_is_refused_at_load(tmp_path: Path) -> None:
    env = tmp_path / "bad.env"
    env.write_text(example_text(**{**SURVEY_ROUTE, "ROUTE_SURVEY_QUESTIONS": "7"}))
    res = cli("dialogue-self-test", "--env", str(env))
    assert res.returncode == 2
    assert "ROUTE_SURVEY_QUESTIONS='7': expected 1 or 2 questions" in res.stderr and "Traceback" not in res.stderr


def test_self_test_and_doctor(tmp_path: Path) -> None:
    env = survey_env(tmp_path)
    res = cli("dialogue-self-test", "--env", str(env), "--json")
    assert res.returncode == 0, res.stdout[-2000:]
    doc = json.loads(res.stdout)
    assert "survey" in {c["policy"] for c in doc["cases"]} and doc["failed"] == 0
    res = cli("doctor", "--env", str(env), "--check-dialogue", "--json")
    checks = {c["name"]: c for c in json.loads(res.stdout)["checks"]}
    assert checks["route survey policy survey"]["status"] == "OK"
    assert checks["survey: survey lines"]["status"] == "OK"
    assert res.returncode == 0, [c for c in checks.values() if c["status"] == "FAIL"]


async def test_a_phone_call_through_the_daemon(daemon_base) -> None:
    async with stage_for(daemon_base, **SURVEY_ROUTE) as stage:
        caller = await Caller.place(stage, "survey")
        await caller.quiet(min_turns=1)
        await caller.say("yes I was", "en")
        await caller.quiet(min_turns=2)
        await caller.say("no", "en")
        record = await caller.record()
    assert record["policy"] == "survey" and record["disposition"] == "completed" and record["ended_by"] == "bot"
    assert [t["caller_text"] for t in record["turns"]] == [None, "yes I was", "no"]
    assert record["turns"][-1]["state"] == "done"
