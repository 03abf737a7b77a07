"""`ai-operator doctor --check-ari` against a real Asterisk 22 run from the project's samples, as a person runs it.

With the sample configuration and the daemon connected, every check is OK. Each way of getting the ARI side
wrong gets the line that says what is wrong and what to do: a wrong password, an app that is not registered,
an ARI nobody listens on, and an address where Asterisk answers but ARI is not.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.asterisk import Stack
from tests.support.ports import closed_tcp_port

pytestmark = pytest.mark.asterisk

DOCTOR_TIMEOUT_S = 120.0


def env_with(stack: Stack, tmp_path: Path, **values: str) -> Path:
    """A copy of the daemon's env file with `values` replacing their keys (mode 0600, as the original)."""
    text = stack.env_file.read_text()
    for key, value in values.items():
        text, n = re.subn(rf"^{key}=.*$", f"{key}={value}", text, flags=re.M)
        assert n == 1, f"{key} not in the daemon's env file"
    path = tmp_path / "doctor.env"
    path.write_text(text)
    path.chmod(0o600)
    return path


def doctor(env_file: Path, *, as_json: bool = True) -> tuple[int, Any]:
    """`ai-operator doctor --env FILE --check-ari [--json]`: exit code and the report (parsed JSON, or text)."""
    argv = [sys.executable, "-m", "ai_operator", "doctor", "--env", str(env_file), "--check-ari"]
    done = subprocess.run([*argv, "--json"] if as_json else argv, capture_output=True, text=True,
                          timeout=DOCTOR_TIMEOUT_S, check=False)
    return done.returncode, json.loads(done.stdout) if as_json else done.stdout + done.stderr


def by_name(report: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {c["name"]: c for c in report["checks"]}


def test_every_ari_check_is_ok_on_the_sample_configuration(stack: Stack) -> None:
    code, report = doctor(stack.env_file)
    checks = by_name(report)
    assert code == 0 and report["ok"], report
    assert [c for c in report["checks"] if c["status"] != "OK"] == [], report
    assert set(checks) == {"env file", "ARI reachable", "ARI credentials", "ARI externalMedia", "ARI application"}
    assert re.search(r", Asterisk 22\.\d+\.\d+", checks["ARI reachable"]["detail"]), checks["ARI reachable"]
    # subscribed by the daemon that holds this env file's STATE_DIR
    assert re.fullmatch(r"Stasis app 'ai-operator' subscribed; the daemon of \S+ runs \(PID \d+\); \d+ channels",
                        checks["ARI application"]["detail"]), checks["ARI application"]
    # ... and the same as a person reads it
    code, text = doctor(stack.env_file, as_json=False)
    assert code == 0 and "5 checks: 5 OK, 0 WARN, 0 FAIL" in text, text


def test_a_wrong_ari_password_fails_naming_the_user_and_ari_conf(stack: Stack, tmp_path: Path) -> None:
    wrong = "not-the-ari-password-0123"
    code, report = doctor(env_with(stack, tmp_path, ARI_PASSWORD=wrong))
    assert code == 1 and not report["ok"]
    assert report["checks"][1:] == [{
        "name": "ARI credentials", "status": "FAIL",
        "detail": f"{stack.pbx.ari_url} refused ARI_USER=ai-operator: check ari.conf",
    }], report
    assert wrong not in json.dumps(report)


def test_an_app_nobody_registered_says_the_daemon_is_not_connected(stack: Stack, tmp_path: Path) -> None:
    # Not a FAIL: README's order is doctor first, then start the daemon, which registers the app.
    code, report = doctor(env_with(stack, tmp_path, ARI_APP="ai-operator-elsewhere"))
    checks = by_name(report)
    assert code == 0, report
    assert checks["ARI application"] == {
        "name": "ARI application", "status": "WARN",
        "detail": "Stasis app 'ai-operator-elsewhere' not registered: the daemon is not connected "
                  "(start `ai-operator run`)",
    }
    assert all(checks[n]["status"] == "OK" for n in ("ARI reachable", "ARI credentials", "ARI externalMedia"))


def test_another_client_on_the_app_is_a_warning_naming_what_a_start_would_do(stack: Stack, tmp_path: Path) -> None:
    """The daemon of the stack is subscribed; doctor for a daemon with another STATE_DIR on the same app warns."""
    code, report = doctor(env_with(stack, tmp_path, STATE_DIR=str(tmp_path / "other-state")))
    app = by_name(report)["ARI application"]
    assert code == 0 and app["status"] == "WARN", report
    assert "another client is subscribed to Stasis app 'ai-operator'" in app["detail"], app
    assert "would take over its calls" in app["detail"], app


def test_an_unreachable_ari_fails_saying_what_to_check(stack: Stack, tmp_path: Path) -> None:
    url = f"http://127.0.0.1:{closed_tcp_port()}/ari"
    code, report = doctor(env_with(stack, tmp_path, ARI_URL=url))
    assert code == 1 and not report["ok"]
    [check] = report["checks"][1:]
    assert check["name"] == "ARI reachable" and check["status"] == "FAIL", check
    assert check["detail"].startswith(f"ARI unreachable at {url}: GET /asterisk/info: "), check
    assert check["detail"].endswith(
        " - check ARI_URL, that Asterisk is running, that http.conf enables the HTTP server on that address/port, "
        "and that res_ari is loaded"), check


def test_asterisk_answering_where_ari_is_not_fails_on_reachability(stack: Stack, tmp_path: Path) -> None:
    # Asterisk's own HTTP server, a wrong path: it answers 404, as it does while res_ari is not loaded.
    url = f"http://127.0.0.1:{stack.pbx.ports.http}/not-ari"
    code, report = doctor(env_with(stack, tmp_path, ARI_URL=url))
    assert code == 1 and not report["ok"]
    [check] = report["checks"][1:]
    assert check == {
        "name": "ARI reachable", "status": "FAIL",
        "detail": f"{url} answered HTTP 404 to GET /asterisk/info: not ARI - check that ARI_URL ends in /ari and "
                  "that res_ari is loaded (asterisk -rx 'module show like res_ari')",
    }
    # one line per check, as a person reads it (Asterisk's 404 page is HTML)
    code, text = doctor(env_with(stack, tmp_path, ARI_URL=url), as_json=False)
    assert code == 1 and "<" not in text and len(text.strip().splitlines()) == 4, text
