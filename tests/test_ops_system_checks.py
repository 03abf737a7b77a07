"""Doctor system checks against real files, real sockets and the real espeak-ng."""

from __future__ import annotations

import shutil
import socket

import pytest

from ai_operator.doctor.system_checks import (
    _sample_ports,
    ari_password_set,
    env_file_permissions,
    espeak_voices,
    rtp_port_range_bindable,
    state_dir_writable,
)
from tests.support.ports import free_udp_range


def _env(tmp_path, text: str, mode: int):
    p = tmp_path / "ai-operator.env"
    p.write_text(text)
    p.chmod(mode)
    return p


def test_env_file_missing_fails(tmp_path):
    r = env_file_permissions(tmp_path / "nope.env")
    assert r.status == "FAIL" and "does not exist" in r.detail


@pytest.mark.parametrize("mode", [0o644, 0o604, 0o664, 0o666, 0o755, 0o4644])
def test_env_file_readable_by_others_fails_with_the_fix(tmp_path, mode):
    p = _env(tmp_path, "ARI_USER=x\nARI_PASSWORD=s3cret\nOPENAI_API_KEY=\n", mode)
    r = env_file_permissions(p)
    assert r.status == "FAIL", r
    assert f"chmod 0640 {p}" in r.detail and f"chown root:ai-operator {p}" in r.detail
    assert "ARI_PASSWORD" in r.detail and "OPENAI_API_KEY" not in r.detail
    assert "s3cret" not in r.detail


def test_env_file_readable_by_others_fails_even_before_it_holds_a_secret(tmp_path):
    p = _env(tmp_path, 'ARI_USER=x\nARI_PASSWORD=""\n# OPENAI_API_KEY=sk-old\n', 0o644)
    r = env_file_permissions(p)
    assert r.status == "FAIL" and "readable by everyone" in r.detail and "chmod 0640" in r.detail


@pytest.mark.parametrize(
    ("value", "status"),
    [("change-me", "FAIL"), ("CHANGE-ME", "FAIL"), ("  change-me", "FAIL"), ("", "FAIL"),
     ("Xq7-long-random", "OK"), ("change-me-2024-secret", "OK")],
)
def test_ari_password_placeholder_or_empty_fails(value, status):
    r = ari_password_set(value)
    assert r.status == status, r
    if status == "FAIL":
        assert "ari.conf" in r.detail and "ARI_PASSWORD" in r.detail
    assert not value.strip() or value.strip() not in r.detail  # never echoes a password


def test_the_example_password_is_a_known_placeholder():
    from pathlib import Path

    example = Path(__file__).resolve().parents[1] / "etc" / "ai-operator.env.example"
    (line,) = [ln for ln in example.read_text().splitlines() if ln.startswith("ARI_PASSWORD=")]
    assert ari_password_set(line.split("=", 1)[1]).status == "FAIL"


def test_env_file_0640_is_ok_and_group_writable_warns(tmp_path):
    p = _env(tmp_path, "export OPENAI_API_KEY=sk-abc\n", 0o640)
    assert env_file_permissions(p).status == "OK"
    p.chmod(0o660)
    r = env_file_permissions(p)
    assert r.status == "WARN" and "writable by its group" in r.detail


def test_env_file_directory_fails(tmp_path):
    assert env_file_permissions(tmp_path).status == "FAIL"


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
def test_espeak_voices_real():
    assert espeak_voices({"ru", "kk", "hi"}).status == "OK"
    assert espeak_voices({"en"}).status == "OK"  # regional voices (en-us, en-gb...) count
    r = espeak_voices({"ru", "zz"})
    assert r.status == "FAIL" and "zz" in r.detail and "ru," not in r.detail and "espeak-ng-data" in r.detail


def test_espeak_missing_binary_names_package():
    r = espeak_voices({"ru"}, binary="espeak-ng-not-installed")
    assert r.status == "FAIL" and "apt-get install espeak-ng" in r.detail


def test_sample_ports_cover_the_ends():
    assert _sample_ports(20000, 20999) == [20000, 20249, 20499, 20749, 20999]
    assert _sample_ports(5000, 5000) == [5000]


def test_rtp_range_bindable_and_busy_port_is_named():
    base = free_udp_range(100)
    r = rtp_port_range_bindable("127.0.0.1", base, base + 99)
    assert r.status == "OK", r.detail
    middle = _sample_ports(base, base + 99)[2]
    blocker = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    blocker.bind(("127.0.0.1", middle))
    try:
        r = rtp_port_range_bindable("127.0.0.1", base, base + 99)
        assert r.status == "FAIL" and f"127.0.0.1:{middle}" in r.detail and "in use" in r.detail
    finally:
        blocker.close()
    assert rtp_port_range_bindable("127.0.0.1", base, base + 99, max_calls=500).status == "WARN"


async def test_doctor_system_group_weighs_the_rtp_range_against_max_calls(tmp_path):
    from ai_operator.doctor.runner import collect

    base = free_udp_range(100)
    env = _env(tmp_path, f"STATE_DIR={tmp_path}\nRTP_PORT_MIN={base}\nRTP_PORT_MAX={base + 99}\nMAX_CALLS=500\n", 0o640)
    checks = {c.name: c for c in await collect(str(env), ["system"])}
    rtp = checks["rtp port range"]
    assert rtp.status == "WARN" and "MAX_CALLS=500 needs 500 ports" in rtp.detail


def test_rtp_range_bad_host_and_range():
    r = rtp_port_range_bindable("192.0.2.77", 40000, 40010)  # TEST-NET: never an address of ours
    assert r.status == "FAIL" and "RTP_HOST" in r.detail
    assert rtp_port_range_bindable("127.0.0.1", 300, 200).status == "FAIL"


def test_state_dir(tmp_path):
    assert state_dir_writable(tmp_path).status == "OK"
    assert list(tmp_path.iterdir()) == []  # the probe file is gone
    assert state_dir_writable(tmp_path / "new").status == "WARN"
    f = tmp_path / "file"
    f.write_text("x")
    assert state_dir_writable(f).status == "FAIL"
    r = state_dir_writable(f / "sub")
    assert r.status == "FAIL" and "cannot be created" in r.detail


HOLDER = """
import socket, sys
from pathlib import Path
from ai_operator.storage.state_lock import StateDirLock
state_dir, port, lock = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "lock"
if lock:
    StateDirLock(state_dir).acquire()  # what `ai-operator run` takes first: one daemon per STATE_DIR
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.bind(("127.0.0.1", port))  # a call's RTP socket
print("ready", flush=True)
sys.stdin.read()
"""


def _holder(state_dir, port: int, *, lock: bool):
    import subprocess
    import sys

    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(state_dir), str(port), "lock" if lock else "-"],
                            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    return proc


def _end(proc) -> None:
    proc.stdin.close()
    proc.wait(30)


def test_an_rtp_port_held_by_this_state_dirs_running_daemon_is_ok_and_says_whose(tmp_path):
    base = free_udp_range(100)
    middle = _sample_ports(base, base + 99)[2]
    proc = _holder(tmp_path, middle, lock=True)
    try:
        r = rtp_port_range_bindable("127.0.0.1", base, base + 99, state_dir=tmp_path)
        assert r.status == "OK", r.detail
        assert f"{middle} held by this host's running daemon, PID {proc.pid}" in r.detail
        assert rtp_port_range_bindable("127.0.0.1", base, base + 99).status == "FAIL"  # no STATE_DIR: cannot tell
    finally:
        _end(proc)


def test_an_rtp_port_held_by_another_process_fails_even_while_the_daemon_runs(tmp_path):
    base = free_udp_range(100)
    middle = _sample_ports(base, base + 99)[2]
    daemon = _holder(tmp_path, _sample_ports(base, base + 99)[1], lock=True)
    other_dir = tmp_path / "other"
    other_dir.mkdir()
    other = _holder(other_dir, middle, lock=False)
    try:
        r = rtp_port_range_bindable("127.0.0.1", base, base + 99, state_dir=tmp_path)
        assert r.status == "FAIL" and f"127.0.0.1:{middle}" in r.detail
        assert f"not the daemon of this STATE_DIR (PID {daemon.pid})" in r.detail
    finally:
        _end(other)
        _end(daemon)


def test_bound_inodes_reads_the_kernels_udp_table():
    from ai_operator.doctor.port_owner import bound_inodes

    table = ("   sl  local_address rem_address   st tx_queue rx_queue tr tm->when retrnsmt   uid  timeout inode ref pointer drops\n"
             "  101: 0100007F:9C40 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 5551 2 0 0\n"
             "  102: 00000000:9C41 00000000:0000 07 00000000:00000000 00:00000000 00000000     0        0 5552 2 0 0\n")
    assert bound_inodes(table, 40000) == {5551}
    assert bound_inodes(table, 40001) == {5552}
    assert bound_inodes(table, 40002) == set()
