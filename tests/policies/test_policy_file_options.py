"""A policy's file option, from the sysadmin's side, on a policy the runtime has never heard of: `dispatch`
(tests/policies/dispatch, an outbound English call offering a driver today's stops) declares the file option
`stops` (JSON Lines) whose folder is its route key `ROUTE_<NAME>_STOPS_DIR`. `ai-operator dial --arg
stops=FILE` places the call on the simulated PBX; a wrong key, a missing file, a bad JSON line or a file outside
the folder is one line naming it and what is allowed."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from contextlib import redirect_stdout
from pathlib import Path
from typing import Any

from ai_operator.daemon.dial import dial
from tests.support.daemon import Caller, stage_for
from tests.support.envfiles import example_text

REPO = Path(__file__).resolve().parents[2]  # tests/policies/ -> the checkout
TEST_POLICIES = REPO / "tests" / "policies"
STOP = {"driver": "Aidos", "address": "12 Abai Avenue", "time": "9 am"}


def dispatch_route(stops_dir: Path) -> dict[str, Any]:
    return {"POLICY_PATH": str(TEST_POLICIES), "ROUTE_DISPATCH_ENABLED": "true", "ROUTE_DISPATCH_POLICY": "dispatch",
            "ROUTE_DISPATCH_STOPS_DIR": str(stops_dir), "ROUTE_DISPATCH_STOPS": "default.jsonl"}


def stops_folder(tmp_path: Path) -> Path:
    """The route's STOPS_DIR: its default file (driver Aidos) and today's (driver Marat)."""
    folder = tmp_path / "stops"
    folder.mkdir()
    (folder / "default.jsonl").write_text(json.dumps(STOP) + "\n")
    today = [{**STOP, "driver": "Marat"}, {**STOP, "driver": "Marat", "address": "4 Dostyk Street"}]
    (folder / "today.jsonl").write_text("".join(json.dumps(s) + "\n" for s in today))
    return folder


def cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = tmp_path / "ai-operator.env"
    env.write_text(example_text(STATE_DIR=str(tmp_path / "state"), **dispatch_route(tmp_path / "stops")))
    env.chmod(0o600)
    return subprocess.run([sys.executable, "-m", "ai_operator", args[0], "--env", str(env), *args[1:]],
                          capture_output=True, text=True, cwd=tmp_path, env=dict(os.environ), timeout=300, check=False)


def one_line(res: subprocess.CompletedProcess[str]) -> str:
    assert res.returncode == 2, (res.stdout, res.stderr)
    lines = res.stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in res.stderr, lines
    return lines[0]


async def test_dial_with_a_file_option_places_an_outbound_call_of_a_policy_the_runtime_never_heard_of(
    daemon_base, tmp_path: Path
) -> None:
    folder = stops_folder(tmp_path)
    async with stage_for(daemon_base, **dispatch_route(folder)) as stage:
        answered = stage.pbx.expect_originate()
        out = io.StringIO()
        with redirect_stdout(out):
            code = await dial(stage.settings, route_name="dispatch", endpoint="PJSIP/driver@trunk",
                              args=[f"stops={folder / 'today.jsonl'}"], caller_id=None)
        assert code == 0 and "originated" in out.getvalue()
        sim = await answered
        caller = Caller(stage, sim)
        await sim.wait_media(timeout=10)
        await caller.quiet(min_turns=1)
        assert stage.call_of(sim).direction == "outbound"
        await caller.say("uh yeah sure i can take them", "en")
        record = await caller.record()
    assert record["policy"] == "dispatch" and record["direction"] == "outbound"
    first = record["turns"][0]["bot_text"]
    assert "Marat" in first and "2 stops" in first  # today's file from the command line, not the route's default
    assert record["disposition"] == "accepted" and record["ended_by"] == "bot"


def test_a_wrong_key_names_the_key_the_value_and_the_allowed_keys(tmp_path: Path) -> None:
    stops_folder(tmp_path)
    line = one_line(cli(tmp_path, "dial", "--route", "dispatch", "--endpoint", "PJSIP/d", "--arg", "stop=today.jsonl"))
    assert "--arg stop=today.jsonl: policy dispatch of route dispatch has no file option 'stop' (allowed: stops)" in line
    line = one_line(cli(tmp_path, "call", "--route", "dispatch", "--arg", "driver=Marat"))
    assert "--arg driver=Marat: " in line and "no option 'driver' (allowed: stops, STOPS)" in line
    line = one_line(cli(tmp_path, "call", "--route", "dispatch", "--arg", "stops"))
    assert "--arg stops: expected KEY=VALUE" in line


def test_a_missing_file_a_bad_json_line_and_a_file_outside_the_folder_are_one_line(tmp_path: Path) -> None:
    folder = stops_folder(tmp_path)
    line = one_line(cli(tmp_path, "call", "--route", "dispatch", "--arg", "stops=gone.jsonl"))
    assert f"--arg stops=gone.jsonl: {tmp_path / 'gone.jsonl'}: stops file not found" in line
    (folder / "bad.jsonl").write_text(json.dumps(STOP) + '\n{"driver": "Marat" "address": "x"}\n')
    line = one_line(cli(tmp_path, "dial", "--route", "dispatch", "--endpoint", "PJSIP/d", "--arg", "stops=stops/bad.jsonl"))
    assert f"{folder / 'bad.jsonl'}:2: invalid JSON (Expecting ',' delimiter, column 20)" in line
    (folder / "empty-driver.jsonl").write_text(json.dumps({**STOP, "driver": ""}) + "\n")
    line = one_line(cli(tmp_path, "call", "--route", "dispatch", "--arg", "stops=stops/empty-driver.jsonl"))
    assert "empty-driver.jsonl:1: field 'driver' is ''; expected text of 1 to 80 characters" in line
    (tmp_path / "elsewhere.jsonl").write_text(json.dumps(STOP) + "\n")
    line = one_line(cli(tmp_path, "dial", "--route", "dispatch", "--endpoint", "PJSIP/d", "--arg", "stops=elsewhere.jsonl"))
    assert f"the file is outside ROUTE_DISPATCH_STOPS_DIR {folder}; refused" in line


def test_a_console_conversation_takes_the_file_option(tmp_path: Path) -> None:
    stops_folder(tmp_path)
    (tmp_path / "lines.txt").write_text("yeah no i cant today\n")
    res = cli(tmp_path, "call", "--route", "dispatch", "--arg", "stops=stops/today.jsonl", "--script", "lines.txt",
              "--json")
    assert res.returncode == 0, res.stderr
    turns = [json.loads(line) for line in res.stdout.splitlines()]
    assert "Hello Marat" in turns[0]["reply"] and turns[-1]["disposition"] == "declined" and turns[-1]["hang_up"]
