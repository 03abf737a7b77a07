"""`--arg KEY=VALUE` on the command line: a route policy's own options for one conversation or one dialled call.

`call --arg` takes any option the route's policy declares: a file option (`FileOption`, e.g. freight's `load`),
read now from a path relative to the current directory, or a route option (`ROUTE_<NAME>_<OPTION>`, e.g.
`LOAD`), parsed by the policy. `dial --arg` takes the file options only: they travel to the daemon as Stasis
arguments (`key=<absolute path>`) and are confined there to the route's folder. Keys are case-insensitive. A
wrong key, a missing file or a file the policy refuses is a `ConfigError` of one line naming the key, the value
and what is allowed (the policy's own message names the file and the line or field).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from ai_operator.config import ConfigError, Route
from ai_operator.dialogue import file_options
from ai_operator.route_binding import read_file_option, with_option
from policies import load_policy


def split_arg(raw: str, flag: str = "--arg") -> tuple[str, str]:
    """`KEY=VALUE` -> (key, value); a missing `=` or key is a `ConfigError`."""
    key, sep, value = raw.partition("=")
    if not sep or not key.strip():
        raise ConfigError(f"{flag} {raw}: expected KEY=VALUE, e.g. {flag} load=vendor.json")
    return key.strip(), value.strip()


def deprecated_load(load: str | None, flag: str = "--load") -> list[str]:
    """The old `--load FILE` spelling as `--arg load=FILE`, with a deprecation line on stderr."""
    if not load:
        return []
    print(f"ai-operator: {flag} FILE is deprecated; use --arg load=FILE", file=sys.stderr)
    return [f"load={load}"]


def call_options(route: Route, given: Sequence[str]) -> tuple[Route, dict[str, Any]]:
    """`call --arg` values applied: the route with its route options set, and the file options read."""
    policy = load_policy(route.policy)
    files: dict[str, Any] = {}
    for raw in given:
        key, value = split_arg(raw)
        try:
            if key.lower() in file_options(policy):
                files[key.lower()] = read_file_option(route, key.lower(), value)
            elif key.upper() in policy.route_options:
                route = with_option(route, key.upper(), value)
            else:
                allowed = [*file_options(policy), *policy.route_options] or ["none"]
                raise ConfigError(f"--arg {key}={value}: policy {route.policy} of route {route.name} has no option "
                                  f"{key!r} (allowed: {', '.join(allowed)})")
        except (ValueError, OSError) as exc:
            raise ConfigError(f"--arg {key}={value}: {_why(exc)}") from None
    return route, files


def dial_args(route: Route, given: Sequence[str]) -> dict[str, str]:
    """`dial --arg` values as the call's Stasis arguments: declared file options only, paths made absolute
    (relative: to the current directory)."""
    declared = file_options(load_policy(route.policy))
    out: dict[str, str] = {}
    for raw in given:
        key, value = split_arg(raw)
        if key.lower() not in declared:
            allowed = ", ".join(declared) or "none: it takes no file"
            raise ConfigError(f"--arg {key}={value}: policy {route.policy} of route {route.name} has no file option "
                              f"{key!r} (allowed: {allowed})")
        if not value or "," in value:
            raise ConfigError(f"--arg {key}={value}: expected a file path without commas (a Stasis argument)")
        out[key.lower()] = str(Path(value).resolve())
    return out


def _why(exc: Exception) -> str:
    """An OSError's reason with its file (`[Errno 2] No such file...` reads as `x.json: not found`)."""
    if isinstance(exc, OSError) and exc.filename:
        reason = "not found" if isinstance(exc, FileNotFoundError) else (exc.strerror or str(exc))
        return f"{exc.filename}: {reason}"
    return str(exc)
