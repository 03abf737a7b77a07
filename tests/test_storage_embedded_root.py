"""The embedded PostgreSQL started by root (issue 11.4): nothing creates a login user and nothing is opened
wider than needed. PostgreSQL never runs as root: it runs as the owner of STATE_DIR (the service user of a
real install), or - when root owns STATE_DIR - as `nobody`, which has no shell; the data directory belongs to
that account, mode 0700, and the processes carry its group, not root's. Real processes, real initdb."""

from __future__ import annotations

import os
import pwd
import shutil
import stat
import tempfile
from pathlib import Path

import pytest

from ai_operator.storage.embedded import EmbeddedServer

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.geteuid() != 0, reason="needs root")]


def ids(pid: int) -> tuple[int, int, list[int]]:
    """Real uid, real gid and supplementary groups of a process, from /proc."""
    fields = dict(line.split(":", 1) for line in Path(f"/proc/{pid}/status").read_text().splitlines())
    return (int(fields["Uid"].split()[0]), int(fields["Gid"].split()[0]),
            [int(g) for g in fields["Groups"].split()])


@pytest.fixture
def no_useradd(tmp_path, monkeypatch):
    """A `useradd` first on PATH that only records that it was called (and fails)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "useradd-called"
    for name in ("useradd", "adduser"):
        tool = bin_dir / name
        tool.write_text(f"#!/bin/sh\necho \"$@\" >> {marker}\nexit 1\n")
        tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    return marker


def start_in(state: Path) -> EmbeddedServer:
    server = EmbeddedServer.in_state_dir(state)
    server.start()
    return server


def check_runs_as(server: EmbeddedServer, account: pwd.struct_passwd) -> None:
    pid = server.postmaster_pid()
    assert pid is not None
    uid, gid, groups = ids(pid)
    assert (uid, gid) == (account.pw_uid, account.pw_gid)
    assert 0 not in groups  # no root group left over
    st = server.pgdata.stat()
    assert (st.st_uid, stat.S_IMODE(st.st_mode)) == (account.pw_uid, 0o700)
    owners = {p.stat().st_uid for p in server.pgdata.rglob("*") if not p.is_symlink()}
    assert owners == {account.pw_uid}, owners


def test_root_owned_state_dir_runs_postgres_as_nobody_and_creates_no_user(no_useradd) -> None:
    passwd = Path("/etc/passwd").read_text()
    state = Path(tempfile.mkdtemp(prefix="aiop-root-"))  # root's, mode 0700
    server = None
    try:
        server = start_in(state)
        nobody = pwd.getpwnam("nobody")
        check_runs_as(server, nobody)
        assert nobody.pw_shell.endswith("nologin")
        assert stat.S_IMODE(state.stat().st_mode) == 0o701  # only what nobody needs to get through: o+x
        assert Path("/etc/passwd").read_text() == passwd and not no_useradd.exists()
    finally:
        if server is not None:
            server.release()
        shutil.rmtree(state, ignore_errors=True)


def test_state_dir_of_the_service_user_runs_postgres_as_that_user(no_useradd) -> None:
    service = pwd.getpwnam("daemon")  # stands in for ai-operator: a system account with no shell
    state = Path(tempfile.mkdtemp(prefix="aiop-svc-"))
    os.chown(state, service.pw_uid, service.pw_gid)
    server = None
    try:
        server = start_in(state)
        check_runs_as(server, service)
        assert stat.S_IMODE(state.stat().st_mode) == 0o700  # the owner gets through: nothing opened
        assert not no_useradd.exists()
    finally:
        if server is not None:
            server.release()
        shutil.rmtree(state, ignore_errors=True)
