"""The real-Asterisk tests are never skipped silently: without the Asterisk build they fail and say how to build
it. They are skipped, with the reason printed, only when a person sets `AI_OPERATOR_SKIP_ASTERISK=1` on purpose or
when a clone has nothing beside it (no build, no vendored sources); CI's `AI_OPERATOR_REQUIRE_ASTERISK=1` turns
that last case into a failure."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run_asterisk_tests(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    gate = ("AI_OPERATOR_SKIP_ASTERISK", "AI_OPERATOR_REQUIRE_ASTERISK", "AI_OPERATOR_ASTERISK_SOURCES")
    environ = {k: v for k, v in os.environ.items() if k not in gate}
    sources = tmp_path / "sources"
    sources.mkdir()
    (sources / "asterisk-22.10.1.tar.xz").write_bytes(b"")  # sources beside the clone: a missing build is a mistake
    environ.update({"AI_OPERATOR_ASTERISK_PREFIX": str(tmp_path / "no-asterisk-here"),
                    "AI_OPERATOR_ASTERISK_SOURCES": str(sources)} | env)
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


def test_a_clone_with_nothing_beside_it_skips_them_and_says_why(tmp_path: Path) -> None:
    done = run_asterisk_tests(tmp_path, AI_OPERATOR_ASTERISK_SOURCES=str(tmp_path / "no-sources-here"))
    assert done.returncode == 0, done.stdout
    assert "1 skipped" in done.stdout, done.stdout
    assert "no-sources-here" in done.stdout and "AI_OPERATOR_REQUIRE_ASTERISK=1" in done.stdout, done.stdout


def test_ci_requires_them_even_with_nothing_beside_the_clone(tmp_path: Path) -> None:
    done = run_asterisk_tests(tmp_path, AI_OPERATOR_ASTERISK_SOURCES=str(tmp_path / "no-sources-here"),
                              AI_OPERATOR_REQUIRE_ASTERISK="1")
    assert done.returncode != 0, done.stdout
    assert "make asterisk" in done.stdout, done.stdout
    assert " skipped" not in done.stdout
