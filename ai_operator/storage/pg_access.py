"""Who may connect to the embedded PostgreSQL: the daemon's own accounts, over its unix socket, nobody else.

The server listens on no TCP address (pgserver starts it with `-h ""`) and its socket is in the data
directory (0700, the server's account). That alone does not keep out a process running as the server's own
account - `nobody` when root runs the daemon with a root-owned STATE_DIR, shared with whatever else runs as
`nobody` - so authentication is `peer`: the kernel says which uid is at the other end of the socket, and only
the accounts in the `ai-operator` map may log in (as role `postgres`):

- root (the daemon or an admin's `kb ingest` run by root),
- the owner of STATE_DIR (the service user of a real install, who owns the data anyway),
- the account the command runs as (a developer's own user).

The server's account is not in the map unless it is one of those: with a root-owned STATE_DIR, `nobody` is
refused. `pg_hba.conf` has that one `local` line and no `host` line; both files are written at every start
(a data directory made by an earlier version with `trust` is converted) and a running server re-reads them.
"""

from __future__ import annotations

import os
import pwd
import signal
from pathlib import Path

from ai_operator.logs import get_logger

log = get_logger("storage")

MAP_NAME = "ai-operator"
ROLE = "postgres"
INITDB_AUTH = ["--auth-local=peer", "--auth-host=reject"]  # a new data directory never starts with trust


def allowed_accounts(state_dir: Path) -> list[str]:
    """Names of the accounts that may connect: root, STATE_DIR's owner, this process's account."""
    names: list[str] = []
    for uid in (0, state_dir.stat().st_uid, os.geteuid()):
        try:
            name = pwd.getpwuid(uid).pw_name
        except KeyError:  # no passwd entry: PostgreSQL could not name it either, so peer cannot admit it
            log.warning("embedded_db_account_unnamed", uid=uid, reason="no passwd entry; it cannot connect")
            continue
        if name not in names:
            names.append(name)
    return names


def hba_text() -> str:
    return ("# Written by ai-operator at every start (storage/pg_access.py): the unix socket only, peer\n"
            f"# authentication, only the accounts in map {MAP_NAME} (pg_ident.conf). No TCP.\n"
            f"local all all peer map={MAP_NAME}\n")


def ident_text(accounts: list[str]) -> str:
    lines = [f"{MAP_NAME} {name} {ROLE}\n" for name in accounts]
    return "# Written by ai-operator at every start: who may connect as the database superuser.\n" + "".join(lines)


def write_access(pgdata: Path, accounts: list[str], owner: pwd.struct_passwd | None = None) -> bool:
    """Write pg_hba.conf and pg_ident.conf (0600, `owner`'s when given); returns whether either changed."""
    changed = False
    for name, text in (("pg_hba.conf", hba_text()), ("pg_ident.conf", ident_text(accounts))):
        path = pgdata / name
        try:
            if path.read_text() == text:
                continue
        except OSError:
            pass
        tmp = path.with_name(f".{name}.new")
        tmp.write_text(text)
        tmp.chmod(0o600)
        if owner is not None:
            os.chown(tmp, owner.pw_uid, owner.pw_gid)
        tmp.replace(path)
        changed = True
    return changed


def restrict(pgdata: Path, owner: pwd.struct_passwd | None = None) -> None:
    """Make the access rules the ones above; a postmaster already running re-reads them (SIGHUP)."""
    accounts = allowed_accounts(pgdata.parent)
    if not write_access(pgdata, accounts, owner):
        return
    log.info("embedded_db_access", pgdata=str(pgdata), accounts=accounts, auth="peer, unix socket only")
    postmaster = _running_postmaster(pgdata)
    if postmaster is not None:
        try:
            os.kill(postmaster, signal.SIGHUP)
        except OSError as exc:
            log.warning("embedded_db_access_not_reloaded", pid=postmaster, error=str(exc))


def _running_postmaster(pgdata: Path) -> int | None:
    try:
        pid = int((pgdata / "postmaster.pid").read_text().split("\n", 1)[0].strip())
        name = Path(f"/proc/{pid}/comm").read_text().strip()
    except (OSError, ValueError):
        return None
    return pid if name == "postgres" else None


__all__ = ["INITDB_AUTH", "allowed_accounts", "restrict", "write_access"]
