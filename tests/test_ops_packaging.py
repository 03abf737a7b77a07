"""What `make install` puts on a machine is pinned and bounded: every dependency in pyproject.toml has an upper
bound on its major version, constraints.txt pins all of them (and their dependencies) to versions inside those
bounds, the Makefile and install-system.sh install through it, and the running environment matches it. And the
tests need nothing outside the repository (no `../shared`)."""

from __future__ import annotations

import re
import shutil
import subprocess
import tomllib
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from packaging.version import Version

REPO = Path(__file__).resolve().parents[1]
PYPROJECT = tomllib.loads((REPO / "pyproject.toml").read_text())
REQUIREMENTS = [
    Requirement(r) for r in [*PYPROJECT["project"]["dependencies"], *PYPROJECT["project"]["optional-dependencies"]["dev"]]
]


def pins() -> dict[str, Version]:
    out: dict[str, Version] = {}
    for n, line in enumerate((REPO / "constraints.txt").read_text().splitlines(), start=1):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"([A-Za-z0-9_.-]+)==([^\s;]+)", line)
        assert m, f"constraints.txt:{n}: not NAME==VERSION: {line!r}"
        out[canonicalize_name(m.group(1))] = Version(m.group(2))
    return out


@pytest.mark.parametrize("req", REQUIREMENTS, ids=str)
def test_every_dependency_has_an_upper_bound_and_a_pin_inside_its_range(req):
    assert any(s.operator in ("<", "<=", "~=", "==") for s in req.specifier), f"{req}: no upper bound"
    pinned = pins().get(canonicalize_name(req.name))
    assert pinned is not None, f"{req.name} is not pinned in constraints.txt (run make lock)"
    assert req.specifier.contains(pinned, prereleases=True), f"constraints.txt pins {req.name}=={pinned}, outside {req}"


def test_mypy_is_a_dev_dependency():
    assert "mypy" in {canonicalize_name(r.name) for r in REQUIREMENTS}


def test_the_running_environment_is_the_pinned_one():
    pinned = pins()
    wrong = []
    for req in REQUIREMENTS:
        try:
            have = Version(version(req.name))
        except PackageNotFoundError:
            wrong.append(f"{req.name} not installed")
            continue
        if have != pinned[canonicalize_name(req.name)]:
            wrong.append(f"{req.name} {have} != {pinned[canonicalize_name(req.name)]}")
    assert not wrong, f"installed without constraints.txt? {wrong}"


@pytest.mark.skipif(shutil.which("make") is None, reason="make not installed")
def test_make_installs_through_the_constraints_and_upgrades_nothing():
    res = subprocess.run(["make", "-n", "-B", ".venv/bin/ai-operator", "system-deps"], cwd=REPO,
                         capture_output=True, text=True, timeout=60, check=True)
    cmds = res.stdout.splitlines()
    pip_installs = [c for c in cmds if "pip install" in c]
    assert pip_installs and all("-c constraints.txt" in c for c in pip_installs), pip_installs
    assert not [c for c in cmds if "--upgrade" in c or "apt-get" in c], cmds
    assert any(c.strip().endswith("scripts/system-deps.sh") for c in cmds)
    script = (REPO / "scripts" / "install-system.sh").read_text()
    assert '-c "$ROOT_PREFIX/src/constraints.txt"' in script


def test_nothing_reads_outside_the_repository():
    offenders = []
    for folder in ("ai_operator", "policies", "tests", "benchmarks"):
        for path in (REPO / folder).rglob("*.py"):
            if path == Path(__file__).resolve():
                continue
            text = path.read_text(encoding="utf-8")
            if re.search(r"\.\./shared|/work/shared|parents\[[2-9]\]\s*/\s*[\"']shared", text):
                offenders.append(str(path.relative_to(REPO)))
    makefile = (REPO / "Makefile").read_text()
    if "shared" in makefile:
        offenders.append("Makefile")
    assert not offenders, offenders
