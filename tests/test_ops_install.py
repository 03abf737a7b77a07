"""The systemd unit (systemd-analyze verify, required settings) and install-system.sh staged into DESTDIR."""

from __future__ import annotations

import itertools
import os
import shutil
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from ai_operator.config import Settings
from ai_operator.doctor.instance_checks import instance_checks

REPO = Path(__file__).resolve().parent.parent
UNIT = REPO / "systemd" / "ai-operator.service"
DEFAULTS = Settings()  # every setting at its declared default
INSTALL = REPO / "scripts" / "install-system.sh"
ENV_EXAMPLE = REPO / "etc" / "ai-operator.env.example"


def parse_unit(text: str) -> dict[str, dict[str, list[str]]]:
    """Sections -> key -> every value in order (systemd keys may repeat)."""
    sections: dict[str, dict[str, list[str]]] = {}
    current = None
    for raw in text.splitlines():
        line = raw.strip()
        if not line or line.startswith(("#", ";")):
            continue
        if line.startswith("["):
            current = sections.setdefault(line.strip("[]"), {})
            continue
        key, _, value = line.partition("=")
        assert current is not None, f"key outside a section: {line}"
        current.setdefault(key.strip(), []).append(value.strip())
    return sections


def _one(section: dict[str, list[str]], key: str) -> str:
    assert key in section, f"{key} missing"
    return section[key][-1]


def test_unit_settings():
    u = parse_unit(UNIT.read_text())
    svc, unit = u["Service"], u["Unit"]
    assert _one(svc, "Type") == "notify"
    assert _one(svc, "NotifyAccess") == "main"
    assert _one(svc, "WatchdogSec") == "30"
    assert _one(svc, "ExecStart") == (
        "/opt/ai-operator/venv/bin/ai-operator run --env /etc/ai-operator/ai-operator.env"
    )
    assert "EnvironmentFile" not in svc  # the daemon reads --env itself: a reload sees every edit
    assert _one(svc, "ExecReload") == "/bin/kill -HUP $MAINPID"
    assert _one(svc, "Restart") == "on-failure"
    assert int(_one(unit, "StartLimitBurst")) > 0 and int(_one(unit, "StartLimitIntervalSec")) > 0
    drain, watchdog = DEFAULTS.call.drain_timeout_s, DEFAULTS.call.hangup_watchdog_s
    assert int(_one(svc, "TimeoutStopSec")) >= drain + watchdog + 20  # what doctor checks against
    assert _one(svc, "User") == "ai-operator" and _one(svc, "Group") == "ai-operator"
    assert _one(svc, "StateDirectory") == "ai-operator"
    assert _one(svc, "ReadWritePaths") == "/var/lib/ai-operator"
    assert set(_one(svc, "RestrictAddressFamilies").split()) == {"AF_UNIX", "AF_INET", "AF_INET6"}
    assert _one(svc, "CapabilityBoundingSet") == ""
    assert int(_one(svc, "LimitNOFILE")) >= 65536
    for key, value in {
        "NoNewPrivileges": "yes",
        "ProtectSystem": "strict",
        "ProtectHome": "yes",
        "PrivateTmp": "yes",
        "ProtectKernelTunables": "yes",
        "ProtectControlGroups": "yes",
        "RestrictNamespaces": "yes",
        "LockPersonality": "yes",
        "MemoryDenyWriteExecute": "yes",
    }.items():
        assert _one(svc, key) == value, key
    assert _one(u["Install"], "WantedBy") == "multi-user.target"


def _verify(unit_text: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    copy = tmp_path / "ai-operator.service"
    copy.write_text(unit_text)
    return subprocess.run(
        ["systemd-analyze", "verify", str(copy)], capture_output=True, text=True, timeout=30, check=False
    )


def _runnable(text: str) -> str:
    """ExecStart must name an existing executable for verify; point it at this test's Python."""
    return text.replace("/opt/ai-operator/venv/bin/ai-operator", sys.executable)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="apt-get install systemd")
def test_systemd_analyze_verify(tmp_path):
    result = _verify(_runnable(UNIT.read_text()), tmp_path)
    assert result.returncode == 0, result.stderr
    # verify only warns (exit 0) about unknown keys and bad values: any line about our unit is a defect
    ours = [line for line in (result.stdout + result.stderr).splitlines() if "ai-operator.service" in line]
    assert ours == [], "\n".join(ours)


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="apt-get install systemd")
def test_verify_catches_defects(tmp_path):
    """The check above is not vacuous: a typo and a missing binary are reported."""
    typo = _verify(
        _runnable(UNIT.read_text()).replace("ProtectHome=yes", "ProtectHome=yes\nProtectHomee=yes"), tmp_path
    )
    assert "ProtectHomee" in typo.stderr
    missing = _verify(UNIT.read_text(), tmp_path)
    assert missing.returncode != 0 and "/opt/ai-operator/venv/bin/ai-operator" in missing.stderr


def _run_install(destdir: Path, *args: str, **env: str) -> subprocess.CompletedProcess[str]:
    full_env = {**os.environ, "DESTDIR": str(destdir), **env}
    return subprocess.run(
        ["bash", str(INSTALL), *args], capture_output=True, text=True, env=full_env, timeout=120, check=False
    )


def _mode(p: Path) -> int:
    return stat.S_IMODE(p.stat().st_mode)


def test_install_stages_files_and_never_overwrites_env(tmp_path):
    dest = tmp_path / "root"
    r = _run_install(dest, "--no-venv")
    assert r.returncode == 0, r.stderr
    env = dest / "etc/ai-operator/ai-operator.env"
    assert env.read_text() == ENV_EXAMPLE.read_text()
    assert _mode(env) == 0o640
    assert _mode(dest / "etc/ai-operator") == 0o750
    assert _mode(dest / "var/lib/ai-operator") == 0o750
    unit = dest / "etc/systemd/system/ai-operator.service"
    assert unit.read_text() == UNIT.read_text()  # default paths: the unit is copied unchanged
    assert _mode(unit) == 0o644
    assert (dest / "opt/ai-operator/src/systemd/ai-operator.service").is_file()
    assert not (dest / "opt/ai-operator/src/.venv").exists()
    assert not (dest / "opt/ai-operator/venv").exists()
    assert "Next steps" in r.stdout

    load = dest / "etc/ai-operator/loads/sample.json"
    assert load.read_text() == (ENV_EXAMPLE.parent / "loads/sample.json").read_text()
    assert _mode(load) == 0o640 and _mode(load.parent) == 0o750

    env.write_text("ARI_PASSWORD=admin-edited\n")
    env.chmod(0o600)
    load.write_text('{"edited": true}')
    r = _run_install(dest, "--no-venv")
    assert load.read_text() == '{"edited": true}'
    assert r.returncode == 0, r.stderr
    assert env.read_text() == "ARI_PASSWORD=admin-edited\n"
    assert _mode(env) == 0o600
    assert "kept existing" in r.stdout


def test_install_prefix_rewrites_unit_paths(tmp_path):
    dest = tmp_path / "root"
    r = _run_install(dest, "--no-venv", PREFIX="/srv/aio", SYSCONFDIR="/etc/aio")
    assert r.returncode == 0, r.stderr
    unit = parse_unit((dest / "etc/systemd/system/ai-operator.service").read_text())["Service"]
    assert _one(unit, "ExecStart") == "/srv/aio/venv/bin/ai-operator run --env /etc/aio/ai-operator.env"
    assert "EnvironmentFile" not in unit
    assert (dest / "etc/aio/loads/sample.json").read_text() == (ENV_EXAMPLE.parent / "loads/sample.json").read_text()
    assert (dest / "etc/aio/ai-operator.env").is_file()
    assert (dest / "srv/aio/src/scripts/install-system.sh").is_file()


def test_install_rejects_bad_arguments(tmp_path):
    r = _run_install(tmp_path, "--frobnicate")
    assert r.returncode != 0 and "unknown argument: --frobnicate" in r.stderr
    r = _run_install(tmp_path, "--no-venv", PREFIX="relative/path")
    assert r.returncode != 0 and "PREFIX must be an absolute path" in r.stderr
    assert not any(tmp_path.iterdir())


@pytest.mark.slow
def test_install_builds_the_venv(tmp_path):
    """The real venv path: python -m venv + pip install of this tree (dependencies skipped to stay fast)."""
    dest = tmp_path / "root"
    r = _run_install(dest, "--pip-args", "--no-deps")
    assert r.returncode == 0, r.stderr
    venv = dest / "opt/ai-operator/venv"
    exe = venv / "bin/ai-operator"
    assert exe.is_file() and os.access(exe, os.X_OK)
    version = subprocess.run(
        [str(venv / "bin/python"), "-c", "import importlib.metadata as m; print(m.version('ai-operator'))"],
        capture_output=True,
        text=True,
        check=True,
    ).stdout.strip()
    assert version
    assert f"installed ai-operator {version}" in r.stdout


# ---- several daemons per node: the template unit and the instances' env files -------------------------------------
TEMPLATE_CHANGES = {  # (section, key) -> the template's value; every other setting is the single unit's
    ("Unit", "Description"): "ai-operator %i - AI phone operator for Asterisk (ARI)",
    ("Service", "ExecStart"): "/opt/ai-operator/venv/bin/ai-operator run --env /etc/ai-operator/%i.env",
    ("Service", "StateDirectory"): "ai-operator/%i",
    ("Service", "WorkingDirectory"): "/var/lib/ai-operator/%i",
    ("Service", "ReadWritePaths"): "/var/lib/ai-operator/%i",
}


def test_install_derives_the_template_from_the_unit(tmp_path):
    dest = tmp_path / "root"
    r = _run_install(dest, "--no-venv")
    assert r.returncode == 0, r.stderr
    template = parse_unit((dest / "etc/systemd/system/ai-operator@.service").read_text())
    single = parse_unit(UNIT.read_text())
    assert template.keys() == single.keys()
    for section, keys in single.items():
        assert template[section].keys() == keys.keys(), section
        for key, values in keys.items():
            expected = [TEMPLATE_CHANGES[(section, key)]] if (section, key) in TEMPLATE_CHANGES else values
            assert template[section][key] == expected, f"[{section}] {key}"


def test_template_follows_prefix_and_state_dir(tmp_path):
    dest = tmp_path / "root"
    r = _run_install(dest, "--no-venv", PREFIX="/srv/aio", SYSCONFDIR="/etc/aio", STATEDIR="/srv/state")
    assert r.returncode == 0, r.stderr
    svc = parse_unit((dest / "etc/systemd/system/ai-operator@.service").read_text())["Service"]
    assert _one(svc, "ExecStart") == "/srv/aio/venv/bin/ai-operator run --env /etc/aio/%i.env"
    assert _one(svc, "ReadWritePaths") == "/srv/state/%i" and _one(svc, "WorkingDirectory") == "/srv/state/%i"


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="apt-get install systemd")
def test_systemd_analyze_verify_template_instance(tmp_path):
    """`ai-operator@2.service` (verify finds the template beside it), with ExecStart made runnable as above."""
    dest = tmp_path / "root"
    assert _run_install(dest, "--no-venv").returncode == 0
    units = tmp_path / "units"
    units.mkdir()
    text = (dest / "etc/systemd/system/ai-operator@.service").read_text()
    (units / "ai-operator@.service").write_text(_runnable(text))
    result = subprocess.run(["systemd-analyze", "verify", str(units / "ai-operator@2.service")],
                            capture_output=True, text=True, timeout=30, check=False)
    assert result.returncode == 0, result.stderr
    ours = [line for line in (result.stdout + result.stderr).splitlines() if "ai-operator@" in line]
    assert ours == [], "\n".join(ours)
    # not vacuous: the instance is really loaded from the template (a typo in it is reported for the instance)
    (units / "ai-operator@.service").write_text(_runnable(text).replace("ProtectHome=yes", "ProtectHomee=yes"))
    typo = subprocess.run(["systemd-analyze", "verify", str(units / "ai-operator@2.service")],
                          capture_output=True, text=True, timeout=30, check=False)
    assert "ProtectHomee" in typo.stderr


def test_install_instances_writes_one_env_file_each(tmp_path):
    from ai_operator.config import load_settings

    dest = tmp_path / "root"
    r = _run_install(dest, "--no-venv", "--instances", "3")
    assert r.returncode == 0, r.stderr
    conf = dest / "etc/ai-operator"
    assert not (conf / "ai-operator.env").exists()  # this host runs instances, not the single unit
    seen = []
    for i in (1, 2, 3):
        env = conf / f"{i}.env"
        assert _mode(env) == 0o640
        s = load_settings(env, environ={})
        seen.append(s)
        assert s.ari.app == f"ai-operator-{i}"
        assert s.storage.state_dir == Path(f"/var/lib/ai-operator/{i}")
        assert (dest / f"var/lib/ai-operator/{i}").is_dir()
    ranges = sorted((s.rtp.port_min, s.rtp.port_max) for s in seen)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(ranges)), ranges
    assert len({s.ops.metrics_port for s in seen}) == 3
    assert "systemctl enable --now ai-operator@1 ai-operator@2 ai-operator@3" in r.stdout
    checks = instance_checks(conf / "1.env")  # what doctor says of them: distinct, one database still to set
    assert [c.status for c in checks] == ["WARN", "OK"], checks
    assert "1.env, 2.env, 3.env leave DATABASE_URL empty" in checks[0].detail

    (conf / "2.env").write_text("ARI_APP=edited\n")
    r = _run_install(dest, "--no-venv", "--instances", "3")
    assert r.returncode == 0, r.stderr
    assert (conf / "2.env").read_text() == "ARI_APP=edited\n"
    assert "kept existing /etc/ai-operator/2.env" in r.stdout
    assert "ai-operator.env (the single daemon's) is still there" not in r.stdout


def test_instances_beside_a_single_daemon_say_what_to_retire(tmp_path):
    dest = tmp_path / "root"
    assert _run_install(dest, "--no-venv").returncode == 0  # a host that ran one daemon
    r = _run_install(dest, "--no-venv", "--instances", "2")
    assert r.returncode == 0, r.stderr
    assert "/etc/ai-operator/ai-operator.env (the single daemon's) is still there" in r.stdout
    assert "systemctl disable --now ai-operator " in r.stdout


def test_install_rejects_bad_instance_counts(tmp_path):
    for bad in ("x", "-1", "17"):
        r = _run_install(tmp_path / bad, "--no-venv", "--instances", bad)
        assert r.returncode != 0 and "--instances must be a whole number from 1 to 16" in r.stderr, bad
