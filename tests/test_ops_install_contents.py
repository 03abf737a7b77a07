"""install-system.sh installs what the package contains and nothing else (issue 24.5). It used to copy the whole
work tree: a demo's embedded database with call records, local env files with passwords, WAVs, reports. From a
git checkout it now copies exactly the tracked files; from a tree that is not a checkout (an unpacked release),
everything but state, env files, WAVs, caches and build output."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.checkout import clean_checkout, git_status, tracked_files

# What a developer's or a demo's work tree holds beside the package: none of it may reach the install.
JUNK = {
    "state/pgdata/PG_VERSION": "16\n",
    "state/demo/1796241287.1.json": '{"caller_number": "+77010000001", "turns": []}\n',
    "state/demo/1796241287.1-bot.wav": "RIFF....",
    "etc/state/pgdata/base/1/1259": "rows",
    "etc/ai-operator.env": "ARI_PASSWORD=the-real-one\n",
    "etc/local.env": "OPENAI_API_KEY=sk-secret\n",
    ".env": "OPENAI_API_KEY=sk-secret\n",
    "notes/todo.txt": "private notes\n",
    "benchmarks/reports/latest.json": "{}\n",
    "policies/operator/__pycache__/x.cpython-311.pyc": "bytecode",
}


def plant_junk(root: Path) -> None:
    for name, text in JUNK.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)


def installed_files(dest: Path) -> set[str]:
    src = dest / "opt/ai-operator/src"
    return {str(p.relative_to(src)) for p in src.rglob("*") if p.is_file()}


def run_install(tree: Path, dest: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(["bash", str(tree / "scripts/install-system.sh"), "--no-venv"], capture_output=True,
                          text=True, env={**os.environ, "DESTDIR": str(dest)}, timeout=120, check=False)


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    return clean_checkout(tmp_path / "clone")


def test_from_a_git_checkout_only_the_tracked_files_are_installed(checkout: Path, tmp_path: Path) -> None:
    plant_junk(checkout)
    assert git_status(checkout)  # the junk is there, untracked (or ignored)
    r = run_install(checkout, tmp_path / "root")
    assert r.returncode == 0, r.stderr
    assert installed_files(tmp_path / "root") == set(tracked_files(checkout))
    assert "tracked files" in r.stdout and "(git ls-files)" in r.stdout
    for name in JUNK:
        assert not (tmp_path / "root/opt/ai-operator/src" / name).exists(), name
    assert (tmp_path / "root/etc/ai-operator/ai-operator.env").read_text() == (
        checkout / "etc/ai-operator.env.example").read_text()  # the example, never a local env file


def test_a_modified_tracked_file_is_installed_as_it_is_and_a_deleted_one_is_skipped(checkout: Path,
                                                                                   tmp_path: Path) -> None:
    readme = checkout / "README.md"
    readme.write_text(readme.read_text() + "\nlocal change\n")
    (checkout / "ARCHITECTURE.md").unlink()
    r = run_install(checkout, tmp_path / "root")
    assert r.returncode == 0, r.stderr
    src = tmp_path / "root/opt/ai-operator/src"
    assert (src / "README.md").read_text().endswith("local change\n")
    assert not (src / "ARCHITECTURE.md").exists()


def test_file_modes_are_kept(checkout: Path, tmp_path: Path) -> None:
    assert run_install(checkout, tmp_path / "root").returncode == 0
    script = tmp_path / "root/opt/ai-operator/src/scripts/install-system.sh"
    assert os.access(script, os.X_OK)


def test_outside_git_state_env_files_and_caches_are_left_out(checkout: Path, tmp_path: Path) -> None:
    shutil.rmtree(checkout / ".git")  # an unpacked release: no git metadata
    plant_junk(checkout)
    r = run_install(checkout, tmp_path / "root")
    assert r.returncode == 0, r.stderr
    assert "not a git checkout" in r.stdout
    installed = installed_files(tmp_path / "root")
    leaked = [name for name in JUNK if name in installed and not name.startswith("notes/")]
    assert leaked == []
    assert {"etc/ai-operator.env.example", "pyproject.toml", "ai_operator/cli.py"} <= installed


def test_a_tree_inside_another_repository_is_not_taken_for_a_checkout(tmp_path: Path) -> None:
    outer = clean_checkout(tmp_path / "outer")
    inner = outer / "vendor" / "ai-operator"
    shutil.copytree(outer, inner, ignore=shutil.ignore_patterns(".git", "vendor"))
    plant_junk(inner)
    r = run_install(inner, tmp_path / "root")
    assert r.returncode == 0, r.stderr
    assert "not a git checkout" in r.stdout
    assert not (tmp_path / "root/opt/ai-operator/src/state").exists()
