"""The real-Asterisk tests are never skipped silently: without the Asterisk build they fail and say how to build
it; only `AI_OPERATOR_SKIP_ASTERISK=1`, set by a person on purpose, skips them."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_asterisk_tests(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    environ = {k: v for k, v in os.environ.items() if k != "AI_OPERATOR_SKIP_ASTERISK"}
    environ.update(AI_OPERATOR_ASTERISK_PREFIX=str(tmp_path / "no-asterisk-here"), **env)
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-rfEs", "-m", "asterisk",
                           "tests/asterisk/test_operator_calls.py", "-k", "russian"],
                          cwd=REPO, env=environ, capture_output=True, text=True, timeout=300, check=False)


def test_without_asterisk_the_real_asterisk_tests_fail_and_say_how_to_build_it(tmp_path: Path) -> None:
    done = run_asterisk_tests(tmp_path)
    assert done.returncode != 0, done.stdout
    assert "make asterisk" in done.stdout and "AI_OPERATOR_SKIP_ASTERISK=1" in done.stdout, done.stdout
    assert " skipped" not in done.stdout


def test_a_person_may_skip_them_on_purpose(tmp_path: Path) -> None:
    done = run_asterisk_tests(tmp_path, AI_OPERATOR_SKIP_ASTERISK="1")
    assert done.returncode == 0, done.stdout
    assert "1 skipped" in done.stdout, done.stdout
