"""The embedded PostgreSQL is the daemon's alone (issue 24.4): run by root with a root-owned STATE_DIR it runs as
`nobody`, and another process running as `nobody` - the server's own account - cannot connect, nor can any
other account; root (the daemon) can. No TCP listener. A data directory an earlier version left with `trust`
is converted when the server starts. Real processes, real initdb, real psql run under another uid."""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest

from ai_operator.storage.embedded import EmbeddedServer
from tests.support.wait import eventually_sync

pytestmark = [pytest.mark.slow, pytest.mark.skipif(os.geteuid() != 0, reason="needs root (setuid to other uids)")]


def psql_as(uid: int, gid: int, server: EmbeddedServer) -> subprocess.CompletedProcess[str]:
    """`psql -c 'SELECT 1'` as another uid through the server's socket, as the daemon's DSN names it."""
    from pgserver._commands import POSTGRES_BIN_PATH

    return subprocess.run(
        [str(POSTGRES_BIN_PATH / "psql"), "-X", "-At", "-d", server.dsn, "-c", "SELECT 1"],
        user=uid, group=gid, extra_groups=[], capture_output=True, text=True, timeout=60, cwd="/",
        env={"PATH": "/usr/bin:/bin", "HOME": "/"},
    )


@pytest.fixture
def root_state() -> Iterator[Path]:
    state = Path(tempfile.mkdtemp(prefix="aiop-access-"))  # root's
    try:
        yield state
    finally:
        shutil.rmtree(state, ignore_errors=True)


def refused(result: subprocess.CompletedProcess[str]) -> bool:
    return result.returncode != 0 and "1" not in result.stdout.split()


def test_only_the_daemon_connects_to_the_embedded_server(root_state) -> None:
    server = EmbeddedServer.in_state_dir(root_state)
    server.start()
    try:
        nobody = pwd.getpwnam("nobody")
        assert pwd.getpwuid(os.stat(server.pgdata).st_uid).pw_name == "nobody"  # the server's own account
        with psycopg.connect(server.dsn) as conn:  # the daemon (root) gets in
            assert conn.execute("SELECT 1").fetchone() == (1,)
        as_nobody = psql_as(nobody.pw_uid, nobody.pw_gid, server)
        assert refused(as_nobody), as_nobody
        assert "authentication failed" in as_nobody.stderr  # it reached the socket: the server said no
        fresh = psql_as(54321, 54321, server)  # an account with no passwd entry at all
        assert refused(fresh), fresh
        listen = (server.pgdata / "postmaster.pid").read_text().splitlines()[5]
        assert listen.strip() == ""  # no TCP address
        hba = [line.split() for line in (server.pgdata / "pg_hba.conf").read_text().splitlines()
               if line.strip() and not line.startswith("#")]
        assert hba == [["local", "all", "all", "peer", "map=ai-operator"]]
        assert "nobody" not in (server.pgdata / "pg_ident.conf").read_text()
    finally:
        server.release()


def test_a_trust_data_directory_from_an_earlier_version_is_closed_at_start(root_state) -> None:
    server = EmbeddedServer.in_state_dir(root_state)
    server.start()
    nobody = pwd.getpwnam("nobody")
    try:  # as an earlier version left it: trust for everyone on the socket
        (server.pgdata / "pg_hba.conf").write_text("local all all trust\n")
        with psycopg.connect(server.dsn) as conn:
            conn.execute("SELECT pg_reload_conf()")
        eventually_sync(lambda: not refused(psql_as(nobody.pw_uid, nobody.pw_gid, server)), timeout=30,
                        what="nobody connects under trust (the control)")
    finally:
        server.release()
    server = EmbeddedServer.in_state_dir(root_state)
    server.start()
    try:
        result = psql_as(nobody.pw_uid, nobody.pw_gid, server)
        assert refused(result) and "authentication failed" in result.stderr, result
        with psycopg.connect(server.dsn) as conn:
            assert conn.execute("SELECT 1").fetchone() == (1,)
    finally:
        server.release()
