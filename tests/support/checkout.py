"""A clean checkout of this tree for tests that act on a work tree as a person would (the demo from the repo
root, install-system.sh from a clone): this tree's tracked files, as they are now, committed in a new git
repository elsewhere, so the developer's own work tree is neither read for untracked files nor changed."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
GIT = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", "-c", "commit.gpgsign=false"]


def tracked_files(repo: Path = REPO) -> list[str]:
    """The files git tracks in `repo` that exist in its work tree."""
    listed = subprocess.run(["git", "ls-files", "-z"], cwd=repo, check=True, capture_output=True).stdout
    return [name for name in listed.decode().split("\0") if name and (repo / name).is_file()]


def clean_checkout(root: Path) -> Path:
    """`root` made a clean git checkout of this tree (every tracked file committed, nothing else)."""
    for name in tracked_files():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(REPO / name, root / name)
    subprocess.run([*GIT, "init", "-q"], cwd=root, check=True)
    subprocess.run([*GIT, "add", "-A"], cwd=root, check=True)
    subprocess.run([*GIT, "commit", "-q", "-m", "checkout"], cwd=root, check=True)
    assert git_status(root) == ""
    return root


def git_status(root: Path) -> str:
    """`git status --porcelain`: empty when the work tree is exactly the last commit (ignored files aside)."""
    return subprocess.run(["git", "status", "--porcelain"], cwd=root, check=True, capture_output=True,
                          text=True).stdout
