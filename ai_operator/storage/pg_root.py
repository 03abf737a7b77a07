"""The embedded PostgreSQL started by root: run it as an existing unprivileged account, never create one.

PostgreSQL refuses to run as root. pgserver, started by root, runs it as a user `pgserver` that it *creates*
(`useradd -s /bin/bash`: a login user), with root's group, after making every directory above the data
directory and its own binaries readable by everyone. Here instead:

- the account is the owner of STATE_DIR - the service user of a real install (`ai-operator`, made by
  scripts/install-system.sh with no shell and no home) - or, when root owns STATE_DIR (a demo in a root
  shell, a container), `nobody`, which has no shell. No account is ever created;
- the data directory belongs to that account (taken over recursively when an earlier root run left it to
  another account), mode 0700; initdb, pg_ctl and postgres run with its uid, gid and no supplementary groups;
- a directory on the way to the data directory or to the PostgreSQL binaries that the account cannot pass
  gets the execute bit for others only (traverse, not list), logged (`embedded_db_path_opened`); nothing
  else changes mode or owner. With the service user owning STATE_DIR nothing is changed at all.
"""

from __future__ import annotations

import atexit
import functools
import os
import pwd
import stat
import threading
from pathlib import Path
from typing import Any

from ai_operator.logs import get_logger
from ai_operator.storage.pg_access import INITDB_AUTH, restrict

log = get_logger("storage")

FALLBACK_ACCOUNT = "nobody"
_patch_lock = threading.Lock()
_patched = False


class RootRunError(RuntimeError):
    """No account can run the embedded PostgreSQL for this STATE_DIR."""


def account_for(state_dir: Path) -> pwd.struct_passwd:
    """The account the embedded server runs as: STATE_DIR's owner, or `nobody` when that is root."""
    uid = state_dir.stat().st_uid
    try:
        return pwd.getpwuid(uid) if uid != 0 else pwd.getpwnam(FALLBACK_ACCOUNT)
    except KeyError:
        who = f"uid {uid}" if uid != 0 else f"account {FALLBACK_ACCOUNT!r}"
        raise RootRunError(
            f"STATE_DIR {state_dir}: {who} does not exist, and PostgreSQL cannot run as root; give STATE_DIR to "
            "the service user (chown ai-operator: STATE_DIR) or set DATABASE_URL"
        ) from None


def _can_pass(path: Path, account: pwd.struct_passwd, groups: set[int]) -> bool:
    st = path.stat()
    if st.st_uid == account.pw_uid:
        return bool(st.st_mode & stat.S_IXUSR)
    if st.st_gid in groups:
        return bool(st.st_mode & stat.S_IXGRP)
    return bool(st.st_mode & stat.S_IXOTH)


def open_way(target: Path, account: pwd.struct_passwd) -> None:
    """Let `account` traverse every directory above `target` (o+x where it cannot), logging each change."""
    groups = {account.pw_gid}
    for directory in reversed(target.parents):
        if not _can_pass(directory, account, groups):
            mode = stat.S_IMODE(directory.stat().st_mode)
            directory.chmod(mode | stat.S_IXOTH)
            log.warning("embedded_db_path_opened", path=str(directory), mode=f"{mode:o}->{mode | stat.S_IXOTH:o}",
                        account=account.pw_name, reason="the embedded PostgreSQL's account must pass through")


def own_tree(path: Path, account: pwd.struct_passwd) -> None:
    """Give `path` and everything below it to `account` (when something there belongs to another)."""
    entries = [path, *path.rglob("*")]
    if all(p.lstat().st_uid == account.pw_uid for p in entries):
        return
    for p in entries:
        os.lchown(p, account.pw_uid, account.pw_gid)
    if len(entries) > 1:  # an existing data directory changes hands: say so
        log.warning("embedded_db_data_owner_changed", pgdata=str(path), account=account.pw_name)


def _with_account_groups(fn: Any) -> Any:
    """pgserver passes only `user=` to subprocess: the child would keep root's group. Add the account's."""

    @functools.wraps(fn)
    def run(args: list[str], pgdata: Path | None = None, **kwargs: Any) -> Any:
        user = kwargs.get("user")
        if user is not None and os.geteuid() == 0:
            entry = pwd.getpwnam(user) if isinstance(user, str) else pwd.getpwuid(user)
            kwargs.setdefault("group", entry.pw_gid)
            kwargs.setdefault("extra_groups", [])
        return fn(args, pgdata=pgdata, **kwargs)

    return run


def _patch_pgserver_commands() -> None:
    global _patched
    with _patch_lock:
        if _patched:
            return
        import pgserver._commands as commands
        import pgserver.postgres_server as ps

        for name in ("initdb", "pg_ctl"):
            wrapped = _with_account_groups(getattr(commands, name))
            setattr(commands, name, wrapped)
            setattr(ps, name, wrapped)
        _patched = True


def start_as_account(pgdata: Path) -> Any:
    """A running pgserver server for `pgdata` whose processes run as the account of pgdata's parent (root)."""
    _patch_pgserver_commands()
    from pgserver import postgres_server as ps

    pgdata = pgdata.expanduser().resolve()
    if pgdata in ps.PostgresServer._instances:
        return ps.PostgresServer._instances[pgdata]
    account = account_for(pgdata.parent)
    pgdata.mkdir(mode=0o700, exist_ok=True)
    open_way(pgdata, account)
    open_way(ps.POSTGRES_BIN_PATH / "postgres", account)
    return _AccountServer(pgdata, account)


def _base() -> Any:
    from pgserver.postgres_server import PostgresServer

    return PostgresServer


class _AccountServer(_base()):  # type: ignore[misc]
    """pgserver's server with the account chosen above instead of a `pgserver` user it would create."""

    def __init__(self, pgdata: Path, account: pwd.struct_passwd) -> None:  # replaces pgserver's __init__
        from pgserver.utils import DiskList

        self.pgdata = pgdata
        self.log = pgdata / "log"
        self.system_user = account.pw_name
        self.account = account
        self.postgres_user = "postgres"
        self.global_process_id_list = DiskList(pgdata / ".handle_pids.json")
        self.cleanup_mode = "stop"
        self._postmaster_info = None
        self._count = 0
        atexit.register(self._cleanup)
        with self._lock:
            self._instances[self.pgdata] = self
            self.ensure_pgdata_inited()
            self.ensure_postgres_running()
            pids = pgdata / ".handle_pids.json"
            if not pids.exists():
                pids.write_text("[]")
            os.chown(pids, account.pw_uid, account.pw_gid)  # the service user, run later, keeps writing it
            self.global_process_id_list.get_and_add(os.getpid())
        log.info("embedded_db_account", pgdata=str(pgdata), account=account.pw_name, uid=account.pw_uid)

    def ensure_pgdata_inited(self) -> None:
        import pgserver._commands as commands

        initdb = commands.initdb  # type: ignore[attr-defined]  # made at import, one per binary
        own_tree(self.pgdata, self.account)
        self.pgdata.chmod(0o700)
        if not (self.pgdata / "PG_VERSION").exists():
            initdb([*INITDB_AUTH, "--encoding=utf8", "-U", self.postgres_user], pgdata=self.pgdata,
                   user=self.system_user)
        restrict(self.pgdata, self.account)  # peer, the daemon's accounts only: never `nobody` (pg_access.py)


__all__ = ["FALLBACK_ACCOUNT", "RootRunError", "account_for", "open_way", "own_tree", "start_as_account"]
