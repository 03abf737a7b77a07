"""The main job as a newcomer runs it (issue 24.1): from the root of a clean checkout, through the installed
entry point, `ai-operator demo --env etc/ai-operator.env.example` with no absolute path anywhere. Asserted is
what that person sees: the knowledge-base answer with its citation for the sample payment question (not "no
information"), the WAV and the call record at the paths the demo prints, a work tree left exactly as it was
(`git status --porcelain` empty: the demo's state goes to the per-user cache), and no PostgreSQL left running.
The same for `--route freight`, which must reach an agreement within the load's ceiling.

The checkout is a copy of this tree's tracked files in a fresh git repository, so the test never depends on
(or changes) the state of the developer's own work tree. No fixed port: the demo asks the OS for every port.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import signal
import subprocess
import sys
import wave
from pathlib import Path

import pytest

from ai_operator.config.schema import by_key
from tests.support.checkout import clean_checkout, git_status
from tests.support.wait import eventually_sync

DEMO_TIMEOUT_S = 900  # a failure bound for a loaded machine, not a timing assertion

pytestmark = pytest.mark.slow


def entry_point() -> str:
    """The installed console script: beside this interpreter (the venv), else the one on PATH."""
    beside = Path(sys.executable).with_name("ai-operator")
    found = str(beside) if beside.exists() else shutil.which("ai-operator")
    assert found, "the ai-operator console script is not installed (make install)"
    return found


@pytest.fixture(scope="module")
def checkout(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return clean_checkout(tmp_path_factory.mktemp("newcomer") / "ai-operator")


def newcomer_environment(cache: Path) -> dict[str, str]:
    """The caller's environment without any setting that would override the env file (CI may export some)."""
    env = {k: v for k, v in os.environ.items() if k not in by_key() and not k.startswith("ROUTE_")}
    env["XDG_CACHE_HOME"] = str(cache)
    return env


def postmaster_pids(state: Path) -> list[int]:
    pidfile = state / "pgdata" / "postmaster.pid"
    try:
        return [int(pidfile.read_text().split()[0])]
    except (OSError, ValueError, IndexError):
        return []


def _gone(pid: int) -> bool:
    return not alive(pid)


def alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return not Path(f"/proc/{pid}/stat").read_text().split(") ")[-1].startswith("Z")


def run_demo(checkout: Path, cache: Path, *args: str) -> tuple[int, str]:
    """`ai-operator demo --env etc/ai-operator.env.example ARGS` in the checkout; (exit code, output). Whatever
    happens, no process it started (the demo, its PostgreSQL) outlives the test."""
    command = [entry_point(), "demo", "--env", "etc/ai-operator.env.example", *args]
    proc = subprocess.Popen(command, cwd=checkout, env=newcomer_environment(cache), stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    try:
        out, _ = proc.communicate(timeout=DEMO_TIMEOUT_S)
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        state = cache / "ai-operator-demo"
        leftover = [pid for pid in postmaster_pids(state) if alive(pid)]
        for pid in leftover:  # the demo stops its server on exit; a kill above may have left it
            try:
                eventually_sync(functools.partial(_gone, pid), timeout=30, what=f"postmaster {pid} to stop")
            except AssertionError:
                os.kill(pid, signal.SIGKILL)
                raise
    return proc.returncode, out


def printed_paths(out: str, cwd: Path) -> tuple[Path, Path]:
    """The record copy and the WAV the demo says it wrote (a relative path would be relative to `cwd`)."""
    record = re.search(r"a copy: (\S+\.json)", out)
    wav = re.search(r"bot audio as the caller heard it: (\S+\.wav) \(", out)
    assert record and wav, out
    return cwd / record.group(1), cwd / wav.group(1)


def turn_block(out: str, caller_line: str) -> list[str]:
    """The lines the demo printed for the turn that answers `caller_line` (up to the next caller line)."""
    lines = out.splitlines()
    start = lines.index(f"  caller > {caller_line}")
    block = []
    for line in lines[start + 1:]:
        if line.startswith("  caller > ") or line.startswith("call ended"):
            break
        block.append(line)
    return block


def assert_wav_of_the_call(wav: Path) -> None:
    with wave.open(str(wav)) as w:
        assert w.getframerate() == 8000 and w.getnchannels() == 1
        assert w.getnframes() > 10 * 8000  # the greeting and the answers: many seconds of the bot's voice


def test_make_demo_answers_the_payment_question_from_the_knowledge_base(checkout: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    code, out = run_demo(checkout, cache)
    assert code == 0, out
    block = turn_block(out, "Как оплатить интернет?")
    answer = block[0].removeprefix("  bot    > ")
    assert block[0].startswith("  bot    > ") and "нет информации" not in answer, out
    assert "оплат" in answer.lower(), out
    assert any("answer=kb" in line and "best=ru-payment-methods" in line for line in block), out
    assert any(line.strip().startswith("cited: ru-payment-methods https://") for line in block), out
    assert "ended_by=bot disposition=completed" in out, out

    record_path, wav = printed_paths(out, checkout)
    assert record_path.is_file() and wav.is_file(), out
    assert_wav_of_the_call(wav)
    record = json.loads(record_path.read_text(encoding="utf-8"))
    said = {t["caller_text"]: t["bot_text"] for t in record["turns"]}
    assert said["Как оплатить интернет?"].startswith(answer), record
    assert record["ended_by"] == "bot" and record["disposition"] == "completed"

    # Everything the demo wrote is in the per-user cache; the checkout is exactly as it was.
    assert record_path.resolve().is_relative_to(cache / "ai-operator-demo")
    assert git_status(checkout) == "", git_status(checkout)
    assert not (checkout / "etc" / "state").exists() and not (checkout / "state").exists()


def test_make_demo_freight_reaches_a_deal_within_the_ceiling(checkout: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    code, out = run_demo(checkout, cache, "--route", "freight")
    assert code == 0, out
    ended = re.search(r"ended_by=(\w+) disposition=(\w+)", out)
    assert ended and ended.group(1) == "bot" and ended.group(2).startswith("deal"), out

    record_path, wav = printed_paths(out, checkout)
    assert_wav_of_the_call(wav)
    record = json.loads(record_path.read_text(encoding="utf-8"))
    assert record["disposition"] == ended.group(2)
    ceiling = json.loads((checkout / "etc" / "loads" / "sample.json").read_text(encoding="utf-8"))["ceiling"]
    offers = [int(m) for m in re.findall(r"offered_rate=(\d+)", out)]
    assert offers and max(offers) <= ceiling, out
    assert git_status(checkout) == "", git_status(checkout)
