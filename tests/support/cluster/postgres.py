"""The cluster's one PostgreSQL: pgserver's bundled server (with pgvector) started on its own, on TCP with password
(scram) authentication, and a streaming read replica made from it with `pg_basebackup -R`.

Run as the current user, or as `nobody` when that is root (PostgreSQL refuses root; the data directories are
given to it and the way to them and to the binaries is opened as `ai_operator.storage.pg_root` does for the
embedded server). Every process is found again by its data directory (`postmaster.pid`), so `cluster.sh down`
in another process stops what `up` started.
"""

from __future__ import annotations

import os
import pwd
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pgserver

from ai_operator.storage.pg_root import FALLBACK_ACCOUNT, open_way, own_tree
from tests.support.wait import eventually_sync

BIN = Path(pgserver.__file__).resolve().parent / "pginstall" / "bin"
SUPERUSER = "postgres"
READY_TIMEOUT_S = 60


def account() -> pwd.struct_passwd:
    """Who runs the server: this user, or `nobody` for root."""
    return pwd.getpwnam(FALLBACK_ACCOUNT) if os.getuid() == 0 else pwd.getpwuid(os.getuid())


def run_pg(args: list[str], *, check: bool = True, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """One of the bundled PostgreSQL programs, as `account()`."""
    who = account()
    as_user: dict[str, Any] = {"user": who.pw_uid, "group": who.pw_gid, "extra_groups": []} if os.getuid() == 0 else {}
    done = subprocess.run([str(BIN / args[0]), *args[1:]], capture_output=True, text=True, timeout=timeout,
                          check=False, env={**os.environ, "LC_ALL": "C"}, start_new_session=True, **as_user)
    if check and done.returncode != 0:
        raise RuntimeError(f"{args[0]} exited {done.returncode}: {done.stdout}{done.stderr}")
    return done


@dataclass
class PgServer:
    """One PostgreSQL server (primary or replica) in `pgdata`, listening on 127.0.0.1:`port`."""

    pgdata: Path
    port: int
    password: str

    @property
    def dsn(self) -> str:
        return f"postgresql://{SUPERUSER}:{self.password}@127.0.0.1:{self.port}/postgres"

    @property
    def log(self) -> Path:
        return self.pgdata.parent / f"{self.pgdata.name}.log"

    def _prepare_dir(self) -> None:
        self.pgdata.parent.mkdir(parents=True, exist_ok=True)
        if os.getuid() == 0:
            who = account()
            open_way(self.pgdata.parent, who)
            open_way(BIN / "postgres", who)
            os.chown(self.pgdata.parent, who.pw_uid, who.pw_gid)

    def init_primary(self) -> None:
        """initdb with a superuser password; TCP on loopback, scram for clients and replication."""
        self._prepare_dir()
        pwfile = self.pgdata.parent / f".{self.pgdata.name}.pw"
        pwfile.write_text(self.password + "\n")
        pwfile.chmod(0o600)
        if os.getuid() == 0:
            own_tree(pwfile, account())
        try:
            run_pg(["initdb", "-D", str(self.pgdata), "-U", SUPERUSER, "--pwfile", str(pwfile),
                    "--auth-host=scram-sha-256", "--auth-local=scram-sha-256", "-E", "UTF8"])
        finally:
            pwfile.unlink()
        with (self.pgdata / "pg_hba.conf").open("a") as hba:
            hba.write("host replication postgres 127.0.0.1/32 scram-sha-256\n")
        self._write_settings(primary=True)

    def init_replica(self, primary: PgServer) -> None:
        """A streaming standby of `primary` (`pg_basebackup -R`: standby.signal and primary_conninfo)."""
        self._prepare_dir()
        # the password reaches pg_basebackup through its connection string (no file, no environment)
        conn = f"host=127.0.0.1 port={primary.port} user={SUPERUSER} password={primary.password}"
        run_pg(["pg_basebackup", "-d", conn, "-D", str(self.pgdata), "-R", "-X", "stream", "-c", "fast"])
        self._write_settings(primary=False)

    def _write_settings(self, *, primary: bool) -> None:
        lines = [f"port = {self.port}", "listen_addresses = '127.0.0.1'",
                 f"unix_socket_directories = '{self.pgdata}'", "max_connections = 100", "shared_buffers = 32MB",
                 "fsync = off", "synchronous_commit = off", "full_page_writes = off"]
        if primary:
            lines += ["wal_level = replica", "max_wal_senders = 4", "wal_keep_size = 64MB"]
        else:
            lines += ["hot_standby = on", "hot_standby_feedback = on"]
        with (self.pgdata / "postgresql.auto.conf").open("a") as conf:
            conf.write("\n".join(lines) + "\n")

    def start(self) -> None:
        run_pg(["pg_ctl", "-D", str(self.pgdata), "-l", str(self.log), "-w", "-t", str(READY_TIMEOUT_S), "start"],
               timeout=READY_TIMEOUT_S + 30)

    def stop(self, mode: str = "fast") -> None:
        if self.running:
            run_pg(["pg_ctl", "-D", str(self.pgdata), "-m", mode, "-w", "stop"], check=False)

    @property
    def pid(self) -> int | None:
        try:
            return int((self.pgdata / "postmaster.pid").read_text().split()[0])
        except (OSError, ValueError, IndexError):
            return None

    @property
    def running(self) -> bool:
        return run_pg(["pg_ctl", "-D", str(self.pgdata), "status"], check=False).returncode == 0

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        eventually_sync(lambda: run_pg(["pg_isready", "-h", "127.0.0.1", "-p", str(self.port)], check=False).returncode == 0,
                        timeout, f"PostgreSQL on port {self.port} ready", poll_s=0.2)
