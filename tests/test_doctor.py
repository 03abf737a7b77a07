"""`doctor --json` runs every group of checks against a live simulated PBX and the embedded database."""

from __future__ import annotations

import asyncio
import json
import os
import sys
from pathlib import Path

import pytest

from ai_operator.sim.pbx import SimulatedPbx
from tests.support.envfiles import example_text
from tests.support.ports import closed_tcp_port, free_udp_range

pytestmark = pytest.mark.slow
REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "etc" / "ai-operator.env.example"
PASSWORD = "doctor-pw-123"


async def doctor(env: Path, *flags: str) -> tuple[int, dict]:
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ai_operator", "doctor", "--env", str(env), "--json", *flags,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE, cwd=REPO, env=dict(os.environ),
    )
    out, _err = await asyncio.wait_for(proc.communicate(), timeout=120)
    assert proc.returncode is not None
    return proc.returncode, json.loads(out)


def write_env(tmp_path: Path, ari_url: str, password: str) -> Path:
    start = free_udp_range(100)  # a free range: asked of the OS
    text = example_text(ARI_URL=ari_url, ARI_PASSWORD=password, STATE_DIR=str(tmp_path / "state"),
                        RTP_PORT_MIN=str(start), RTP_PORT_MAX=str(start + 99))
    env = tmp_path / "ai-operator.env"
    env.write_text(text)
    env.chmod(0o640)
    return env


async def test_doctor_json_reports_every_group(tmp_path):
    pbx = SimulatedPbx(user="ai-operator", password=PASSWORD)
    url = await pbx.start()
    try:
        env = write_env(tmp_path, url, PASSWORD)
        code, doc = await doctor(env)
    finally:
        await pbx.stop()
    checks = {c["name"]: c for c in doc["checks"]}
    assert code == 0, [c for c in doc["checks"] if c["status"] == "FAIL"]
    assert doc["ok"] is True
    for name in ("env file", "routes", "dialogue self-test", "ARI reachable", "ARI credentials", "ARI externalMedia",
                 "espeak-ng voices", "ARI password", "env file permissions"):
        assert checks[name]["status"] == "OK", checks[name]
    assert checks["ARI application"]["status"] == "WARN"  # no daemon connected: said, not failed
    for name in ("database reachable", "vector extension", "migrations", "tables", "kb embedding dimension",
                 "env file permissions", "state dir", "rtp port range"):
        assert checks[name]["status"] in ("OK", "WARN"), checks[name]
    assert checks["vector extension"]["status"] == "OK"
    assert PASSWORD not in json.dumps(doc)


async def test_doctor_wrong_ari_password_fails_with_what_to_do(tmp_path):
    pbx = SimulatedPbx(user="ai-operator", password=PASSWORD)
    url = await pbx.start()
    try:
        env = write_env(tmp_path, url, "wrong-password-9")
        code, doc = await doctor(env, "--check-ari")
    finally:
        await pbx.stop()
    assert code == 1
    (fail,) = [c for c in doc["checks"] if c["status"] == "FAIL"]
    assert fail["name"] == "ARI credentials" and "ari.conf" in fail["detail"]
    assert "wrong-password-9" not in json.dumps(doc)


async def test_doctor_unreachable_ari_world_readable_env_and_placeholder_password(tmp_path):
    env = write_env(tmp_path, f"http://127.0.0.1:{closed_tcp_port()}/ari", "change-me")
    env.chmod(0o644)
    code, doc = await doctor(env, "--check-ari", "--check-system")
    assert code == 1
    by_name = {c["name"]: c for c in doc["checks"]}
    assert by_name["ARI reachable"]["status"] == "FAIL"
    perms = by_name["env file permissions"]
    assert perms["status"] == "FAIL" and "chmod 0640" in perms["detail"] and "chown root:ai-operator" in perms["detail"]
    assert by_name["ARI password"]["status"] == "FAIL" and "placeholder" in by_name["ARI password"]["detail"]
