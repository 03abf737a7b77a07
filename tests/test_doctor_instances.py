"""`doctor` on a host with several daemons: the env files beside the checked one must not collide."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from ai_operator.doctor.instance_checks import instance_checks
from tests.support.envfiles import example_text

REPO = Path(__file__).resolve().parents[1]


def write(folder: Path, name: str, **values: str) -> Path:
    values = {"ARI_PASSWORD": "pw-for-instances", "DATABASE_URL": "postgresql://aio@db.example/aio", **values}
    path = folder / name
    path.write_text(example_text(**values))
    path.chmod(0o640)
    return path


def lines(results, status: str) -> list[str]:
    return [r.detail for r in results if r.status == status]


def distinct(folder: Path, i: int, **values: str) -> Path:
    """Instance `i` as install-system.sh --instances writes it, with `values` changed."""
    own = {"ARI_APP": f"ai-operator-{i}", "RTP_PORT_MIN": str(20000 + 1000 * (i - 1)),
           "RTP_PORT_MAX": str(20999 + 1000 * (i - 1)), "METRICS_PORT": str(9463 + i),
           "STATE_DIR": str(folder / "state" / str(i))}
    return write(folder, f"{i}.env", **{**own, **values})


def test_distinct_instances_are_ok(tmp_path):
    one = distinct(tmp_path, 1)
    distinct(tmp_path, 2)
    distinct(tmp_path, 3)
    results = instance_checks(one)
    assert lines(results, "FAIL") == [] and lines(results, "WARN") == []
    assert lines(results, "OK") == [f"3 env files in {tmp_path} (1.env, 2.env, 3.env): each its own ARI_APP, "
                                    "RTP range, METRICS_PORT and STATE_DIR"]


def test_a_single_env_file_is_one_daemon(tmp_path):
    results = instance_checks(write(tmp_path, "ai-operator.env"))
    assert [(r.status, r.detail) for r in results] == [("OK", f"one env file in {tmp_path}: one daemon on this host")]


def test_every_collision_is_one_line_naming_both_files_key_and_value(tmp_path):
    state = str(tmp_path / "state")
    a = write(tmp_path, "a.env", STATE_DIR=state, RTP_PORT_MIN="30000", RTP_PORT_MAX="30999", DATABASE_URL="")
    write(tmp_path, "b.env", STATE_DIR=state, RTP_PORT_MIN="30500", RTP_PORT_MAX="31499", DATABASE_URL="",
          ARI_URL="http://localhost:8088/ari/")  # the same ARI as 127.0.0.1
    fails = lines(instance_checks(a), "FAIL")
    assert len(fails) == 4, fails
    assert all(f.startswith("a.env and b.env ") for f in fails)
    app, rtp, metrics, state_line = fails
    assert "ARI_APP=ai-operator on the same ARI (http://loopback:8088/ari)" in app
    assert "overlap in RTP ports 30500-30999 (RTP_PORT_MIN..RTP_PORT_MAX 30000-30999 and 30500-31499)" in rtp
    assert "METRICS_PORT=9464" in metrics
    assert f"STATE_DIR={Path(state).resolve()}" in state_line and "embedded PostgreSQL" in state_line
    warns = lines(instance_checks(a), "WARN")
    assert warns == ["a.env, b.env leave DATABASE_URL empty: each daemon runs its own embedded PostgreSQL in its "
                     "STATE_DIR (records split over 2 databases, the knowledge base ingested into each); set one "
                     "DATABASE_URL for every daemon of the node"]


def test_pairs_not_involving_the_checked_file_are_checked_too(tmp_path):
    one = distinct(tmp_path, 1)
    distinct(tmp_path, 2)
    distinct(tmp_path, 3, METRICS_PORT="9465")  # as 2.env
    assert lines(instance_checks(one), "FAIL") == [
        "2.env and 3.env both use METRICS_PORT=9465: the second daemon cannot start; give each its own port "
        "(or 0 to disable)"]


def test_addresses_decide_whether_ports_meet(tmp_path):
    one = distinct(tmp_path, 1, RTP_HOST="10.0.0.5", METRICS_HOST="10.0.0.5")
    distinct(tmp_path, 2, RTP_HOST="10.0.0.6", METRICS_HOST="10.0.0.6", RTP_PORT_MIN="20000", RTP_PORT_MAX="20999",
             METRICS_PORT="9464", ARI_URL="http://10.0.0.9:8088/ari", ARI_APP="ai-operator-1")
    assert lines(instance_checks(one), "FAIL") == []  # other addresses, another Asterisk
    distinct(tmp_path, 3, RTP_HOST="0.0.0.0", RTP_PORT_MIN="20900", RTP_PORT_MAX="20999")  # the wildcard meets all
    fails = lines(instance_checks(one), "FAIL")
    assert [f.split(" overlap")[0] for f in fails] == ["1.env and 3.env", "2.env and 3.env"]


def test_a_broken_sibling_is_named_not_fatal(tmp_path):
    one = distinct(tmp_path, 1)
    (tmp_path / "2.env").write_text("VAD_AGGRESSIVENESS=9\n")
    results = instance_checks(one)
    assert [d.split(":")[0] for d in lines(results, "WARN")] == ["cannot compare 2.env with the others"]
    assert "VAD_AGGRESSIVENESS" in lines(results, "WARN")[0]


def test_doctor_prints_the_collisions(tmp_path):
    """From the user's side: `ai-operator doctor --check-system` fails and prints one line per collision."""
    one = distinct(tmp_path, 1)
    distinct(tmp_path, 2, ARI_APP="ai-operator-1")
    proc = subprocess.run([sys.executable, "-m", "ai_operator", "doctor", "--env", str(one), "--check-system",
                           "--json"], capture_output=True, text=True, cwd=REPO, env=dict(os.environ), timeout=120,
                          check=False)
    doc = json.loads(proc.stdout)
    ours = [c for c in doc["checks"] if c["name"] == "instances on this host"]
    assert proc.returncode == 1
    assert [c["status"] for c in ours] == ["FAIL"]
    assert ours[0]["detail"].startswith("1.env and 2.env both use ARI_APP=ai-operator-1 on the same ARI")
