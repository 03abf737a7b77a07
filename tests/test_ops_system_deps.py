"""scripts/system-deps.sh (what `make install` runs): only the packages of missing commands, never an upgrade
of anything installed, the plan printed before anything is done.

A PATH without some commands stands in for a machine that lacks them. The decision is tested twice: against a
stand-in apt-get that answers like apt does when a package would pull upgrades (no machine can be put in that
state on demand, and no test may install anything), and as a dry run against the real apt-get."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
SCRIPT = REPO / "scripts" / "system-deps.sh"
ALL_COMMANDS = ("espeak-ng", "sox", "sipp", "systemd-analyze")
BASH = shutil.which("bash") or "/bin/bash"


def path_without(tmp_path: Path, hidden: set[str], extra: Path | None = None) -> str:
    """A PATH that has every command of this machine's PATH except `hidden` (and `extra`'s first)."""
    farm = tmp_path / "bin"
    farm.mkdir()
    for folder in os.environ.get("PATH", "/usr/bin:/bin").split(os.pathsep):
        if not os.path.isdir(folder):
            continue
        for name in os.listdir(folder):
            link = farm / name
            if name in hidden or link.exists() or link.is_symlink():
                continue
            link.symlink_to(Path(folder) / name)
    return os.pathsep.join([*([str(extra)] if extra else []), str(farm)])


FAKE_APT = r"""#!/bin/sh
# stand-in apt-get: logs its arguments; `install -s PKG` answers like apt's simulation
echo "$*" >> "$APT_LOG"
case "$*" in
  *"install -s"*systemd*)
    echo "Inst libsystemd0 [252.38-1~deb12u1] (252.39-1~deb12u2 Debian:12.15/oldstable [amd64])"
    echo "Inst libsystemd-shared (252.39-1~deb12u2 Debian:12.15/oldstable [amd64])"
    echo "Inst systemd (252.39-1~deb12u2 Debian:12.15/oldstable [amd64])" ;;
  *"install -s"*sip-tester*)
    echo "Inst libgsl27 (2.7.1+dfsg-5 Debian:12.15/oldstable [amd64])"
    echo "Inst sip-tester (1:3.6.1-2.1 Debian:12.15/oldstable [amd64])" ;;
  *"install -s"*espeak-ng*)
    echo "E: Unable to locate package espeak-ng"; exit 100 ;;
  *"install -y"*) echo "INSTALLING $*" ;;
esac
exit 0
"""


def fake_apt(tmp_path: Path) -> tuple[Path, Path]:
    folder = tmp_path / "fake"
    folder.mkdir()
    apt = folder / "apt-get"
    apt.write_text(FAKE_APT)
    apt.chmod(0o755)
    return folder, tmp_path / "apt.log"


def run(path: str, *args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(
        [BASH, str(SCRIPT), *args], capture_output=True, text=True, timeout=120,
        env={"PATH": path, "HOME": os.environ.get("HOME", "/root"), "LANG": "C.UTF-8", **(env or {})},
    )


def test_nothing_missing_touches_nothing(tmp_path):
    folder, log = fake_apt(tmp_path)
    path = path_without(tmp_path, {"apt-get"}, extra=folder)
    for cmd in ALL_COMMANDS:  # this machine may lack some: give each a stand-in so that none is missing
        stand_in = folder / cmd
        if shutil.which(cmd, path=path) is None:
            stand_in.write_text("#!/bin/sh\n")
            stand_in.chmod(0o755)
    res = run(path, env={"APT_LOG": str(log)})
    assert res.returncode == 0, res.stderr
    assert res.stdout == "" and not log.exists()  # not even apt-get update


@pytest.mark.skipif(os.geteuid() != 0, reason="the script calls sudo when not root")
def test_installs_only_missing_packages_never_upgrades_and_says_so_first(tmp_path):
    folder, log = fake_apt(tmp_path)
    path = path_without(tmp_path, {"apt-get", "sipp", "systemd-analyze", "espeak-ng"}, extra=folder)
    res = run(path, env={"APT_LOG": str(log)})
    assert res.returncode == 0, res.stdout + res.stderr
    out = res.stdout
    calls = log.read_text().splitlines()
    assert calls[0] == "update -qq"
    installs = [c for c in calls if c.startswith("install -y")]
    assert installs == ["install -y -qq --no-upgrade --no-install-recommends sip-tester"]
    assert "missing command(s): espeak-ng sipp systemd-analyze" in out
    assert "skipping systemd: installing it would upgrade installed packages " \
           "(libsystemd0 252.38-1~deb12u1->252.39-1~deb12u2)" in out
    assert "apt-get install systemd" in out  # how to accept the upgrade by hand
    assert "skipping espeak-ng: apt-get cannot install it here: E: Unable to locate package espeak-ng" in out
    plan = out.index("will install: sip-tester (new dependencies: libgsl27)")
    assert plan < out.index("INSTALLING")  # said before done
    assert "sox" not in out  # present: never named, never installed


def test_dry_run_changes_nothing(tmp_path):
    folder, log = fake_apt(tmp_path)
    path = path_without(tmp_path, {"apt-get", "sipp"}, extra=folder)
    res = run(path, "--dry-run", env={"APT_LOG": str(log)})
    assert res.returncode == 0
    assert "will install: sip-tester" in res.stdout and "dry run: nothing installed" in res.stdout
    assert [c for c in log.read_text().splitlines() if not c.startswith("install -s")] == []


@pytest.mark.skipif(shutil.which("apt-get") is None, reason="not a Debian-like machine")
def test_dry_run_against_the_real_apt_names_only_the_missing_command_package(tmp_path):
    path = path_without(tmp_path, {"sipp"})
    res = run(path, "--dry-run")
    assert res.returncode == 0, res.stdout + res.stderr
    assert "missing command(s): sipp" in res.stdout
    assert "will install: sip-tester" in res.stdout or "skipping sip-tester:" in res.stdout
    for present in ("espeak-ng", "systemd", "sox"):
        assert f" {present}" not in res.stdout.replace("sip-tester", ""), res.stdout
