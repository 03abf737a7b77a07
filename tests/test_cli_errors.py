"""Every command fails the way a sysadmin can act on: bad input or an uncaught error prints one line naming what
failed and exits non-zero; `--debug` adds the traceback. `--version`, and `--help` that documents every option
(and the `call` script's events)."""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
from pathlib import Path

import pytest

from ai_operator.cli import build_parser
from tests.support.ports import closed_tcp_port, listening_socket

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "etc" / "ai-operator.env.example"


def cli(*args: str, env: dict[str, str] | None = None, timeout: float = 120) -> subprocess.CompletedProcess:
    full_env = {**os.environ, "LOG_FORMAT": "json", **(env or {})}
    return subprocess.run(
        [sys.executable, "-m", "ai_operator", *args],
        capture_output=True, text=True, timeout=timeout, env=full_env, cwd=REPO, stdin=subprocess.DEVNULL,
    )


def error_lines(res: subprocess.CompletedProcess) -> list[str]:
    assert res.returncode != 0, (res.stdout, res.stderr)
    assert "Traceback" not in res.stderr, res.stderr
    return [line for line in res.stderr.splitlines() if line.strip()]


def one_line_error(res: subprocess.CompletedProcess, *needles: str) -> str:
    lines = error_lines(res)
    assert len(lines) == 1, lines
    for needle in needles:
        assert needle in lines[0], (needle, lines[0])
    return lines[0]


def test_version():
    from ai_operator import __version__

    res = cli("--version")
    assert res.returncode == 0
    assert res.stdout.strip() == f"ai-operator {__version__}"


@pytest.mark.parametrize(
    "command",
    [
        ["call", "--route", "test"],
        ["dialogue-self-test"],
        ["run"],
        ["demo"],
        ["dial", "--route", "test", "--endpoint", "PJSIP/100"],
        ["kb", "stats"],
        ["kb", "ingest", str(REPO / "etc" / "kb" / "sample.jsonl")],
    ],
    ids=lambda c: " ".join(c[:2]),
)
def test_a_directory_as_env_is_one_line(tmp_path, command):
    one_line_error(cli(*command, "--env", str(tmp_path)), str(tmp_path), "directory")


def test_doctor_with_a_directory_as_env_reports_it_as_a_check(tmp_path):
    res = cli("doctor", "--env", str(tmp_path))
    assert res.returncode == 1 and "Traceback" not in res.stderr + res.stdout
    assert f"[FAIL] env file: {tmp_path}" in res.stdout and "directory" in res.stdout


def test_debug_shows_the_traceback_before_the_line(tmp_path):
    for args in (["--debug", "call", "--route", "test"], ["call", "--debug", "--route", "test"]):
        res = cli(*args, "--env", str(tmp_path))
        assert res.returncode != 0
        assert "Traceback" in res.stderr, args
        assert str(tmp_path) in res.stderr.strip().splitlines()[-1]


@pytest.mark.parametrize(
    ("content", "needle"),
    [
        (bytes(range(256)) * 4, "not UTF-8"),  # a binary file
        (b"\xd0\x9f\xd1\x80\xd0\xb8 \xff\xfe\n", "not UTF-8"),  # Cyrillic, then garbage
    ],
    ids=["binary", "broken-utf8"],
)
def test_a_script_that_is_not_text_is_one_line(tmp_path, content, needle):
    script = tmp_path / "script.bin"
    script.write_bytes(content)
    line = one_line_error(cli("call", "--route", "test", "--env", str(EXAMPLE), "--script", str(script)),
                          str(script), needle)
    assert line.startswith("ai-operator:")


def test_a_directory_as_script_or_load_is_one_line(tmp_path):
    one_line_error(cli("call", "--route", "test", "--env", str(EXAMPLE), "--script", str(tmp_path)), str(tmp_path))
    script = tmp_path / "s.txt"
    script.write_text("हां जी\n")
    one_line_error(
        cli("call", "--route", "freight", "--env", str(EXAMPLE), "--script", str(script), "--arg", f"load={tmp_path}"),
        str(tmp_path),
    )


def test_kb_ingest_of_an_unreadable_file_says_so(tmp_path):
    res = cli("kb", "ingest", str(tmp_path), "--env", str(EXAMPLE))
    assert res.returncode == 2 and "Traceback" not in res.stderr + res.stdout
    assert f"cannot read {tmp_path}" in res.stdout + res.stderr


def run_env(tmp_path: Path, metrics_port: int) -> Path:
    env = tmp_path / "ai-operator.env"
    env.write_text(
        f"ARI_URL=http://127.0.0.1:{closed_tcp_port()}/ari\nARI_USER=u\nARI_PASSWORD=run-test-pw\n"
        f"STATE_DIR={tmp_path / 'state'}\nDATABASE_URL=postgresql://u@127.0.0.1:{closed_tcp_port()}/none\n"
        f"METRICS_HOST=127.0.0.1\nMETRICS_PORT={metrics_port}\nLOG_LEVEL=error\n"
    )
    env.chmod(0o640)
    return env


def test_run_with_the_metrics_port_in_use_is_one_line(tmp_path):
    taken = listening_socket()
    port = taken.getsockname()[1]
    try:
        env = run_env(tmp_path, port)
        res = cli("run", "--env", str(env))
        lines = error_lines(res)
        assert f"127.0.0.1:{port}" in lines[-1] and "in use" in lines[-1], lines
        assert lines[-1].startswith("ai-operator: run:")
        assert "run-test-pw" not in res.stderr
        res = cli("run", "--debug", "--env", str(env))
        assert res.returncode != 0 and "Traceback" in res.stderr and "in use" in res.stderr.splitlines()[-1]
    finally:
        taken.close()


def test_simpbx_on_a_taken_port_is_one_line():
    taken = listening_socket()
    port = taken.getsockname()[1]
    try:
        one_line_error(cli("simpbx", "--port", str(port)), f"127.0.0.1:{port}", "in use")
    finally:
        taken.close()


def _subparsers(parser: argparse.ArgumentParser) -> dict[str, argparse.ArgumentParser]:
    out: dict[str, argparse.ArgumentParser] = {}
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                out[name] = sub
                out.update({f"{name} {k}": v for k, v in _subparsers(sub).items()})
    return out


@pytest.mark.parametrize("name", sorted(_subparsers(build_parser())))
def test_every_option_of_every_command_has_help(name):
    sub = _subparsers(build_parser())[name]
    undocumented = [
        "/".join(a.option_strings) or a.dest
        for a in sub._actions
        if not isinstance(a, argparse._SubParsersAction) and not (a.help or "").strip()
    ]
    assert not undocumented, f"{name}: {undocumented}"
    assert sub.format_help()  # and the help renders (a stray % in a help string breaks it)


def test_call_help_documents_the_script_format():
    res = cli("call", "--help")
    assert res.returncode == 0
    for needle in ("[dtmf N]", "[silence]", "[not-heard]", "+SECONDS", "--script", "--arg", "--no-knowledge",
                   "--debug", "--env"):
        assert needle in res.stdout, needle


def test_simpbx_help_documents_every_option():
    res = cli("simpbx", "--help")
    assert res.returncode == 0
    text = " ".join(res.stdout.split())  # argparse wraps lines at the terminal width
    for needle in ("--host", "--port", "--user", "--password", "--debug", "(default: 8088)", "(default: 127.0.0.1)"):
        assert needle in text, needle
