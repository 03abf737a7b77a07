"""Runs the doctor's check groups and prints one line per check (or JSON). Exit 0 when nothing FAILs."""

from __future__ import annotations

import json
import os
from collections.abc import Awaitable, Callable
from typing import TextIO

from ai_operator.config import ConfigError, EnvFileError, Settings, load_settings
from ai_operator.dialogue import CheckResult
from ai_operator.route_binding import bind_routes

GROUPS = ("dialogue", "system", "speech", "ari", "database")
CheckGroup = Callable[[Settings, str], Awaitable[list[CheckResult]]]


async def _dialogue(settings: Settings, env_path: str) -> list[CheckResult]:
    from ai_operator.doctor.dialogue_checks import dialogue_checks

    return dialogue_checks(settings)


async def _system(settings: Settings, env_path: str) -> list[CheckResult]:
    from ai_operator.doctor import system_checks as sc
    from ai_operator.doctor.instance_checks import instance_checks
    from ai_operator.doctor.service_checks import stop_timeout
    from ai_operator.ops.sizing import sizing_check

    return [
        stop_timeout(settings),
        sc.env_file_permissions(env_path),
        sc.ari_password_set(settings.ari.password),
        sc.state_dir_writable(settings.storage.state_dir),
        sc.rtp_port_range_bindable(settings.rtp.host, settings.rtp.port_min, settings.rtp.port_max, settings.call.max_calls,
                                   settings.storage.state_dir),
        sizing_check(settings.call.max_calls, len(os.sched_getaffinity(0))),
        *instance_checks(env_path),
    ]


async def _speech(settings: Settings, env_path: str) -> list[CheckResult]:
    from ai_operator.doctor.speech_checks import speech_checks

    return await speech_checks(settings)


async def _ari(settings: Settings, env_path: str) -> list[CheckResult]:
    from ai_operator.doctor.ari_checks import ari_checks

    return await ari_checks(settings)


async def _database(settings: Settings, env_path: str) -> list[CheckResult]:
    from ai_operator.doctor.database_checks import database_checks

    return await database_checks(settings)


GROUP_FUNCS: dict[str, CheckGroup] = {
    "dialogue": _dialogue,
    "system": _system,
    "speech": _speech,
    "ari": _ari,
    "database": _database,
}


async def collect(env_path: str, groups: list[str]) -> list[CheckResult]:
    """The env-file check, then every selected group (a group that crashes is one FAIL line, not a crash)."""
    results: list[CheckResult] = []
    try:
        settings = bind_routes(load_settings(env_path))  # each route's policy found, its options checked
    except (EnvFileError, ConfigError, OSError) as exc:
        return [CheckResult("env file", "FAIL", f"{exc}")]
    results.append(CheckResult("env file", "OK", f"{env_path} valid ({len(settings.routes)} routes)"))
    results.extend(CheckResult("env file", "WARN", w) for w in settings.warnings)
    for group in groups:
        try:
            results.extend(await GROUP_FUNCS[group](settings, env_path))
        except Exception as exc:
            from ai_operator.logs import redact

            results.append(CheckResult(f"{group} checks", "FAIL", redact(f"check crashed: {type(exc).__name__}: {exc}")))
    return results


def print_results(results: list[CheckResult], out: TextIO, *, as_json: bool) -> int:
    failed = sum(r.status == "FAIL" for r in results)
    warned = sum(r.status == "WARN" for r in results)
    if as_json:
        out.write(
            json.dumps(
                {"ok": failed == 0, "failed": failed, "warnings": warned, "checks": [r.as_dict() for r in results]},
                ensure_ascii=False,
                indent=2,
            )
            + "\n"
        )
    else:
        for r in results:
            out.write(f"[{r.status:<4}] {r.name}: {r.detail}\n")
        out.write(f"\n{len(results)} checks: {len(results) - failed - warned} OK, {warned} WARN, {failed} FAIL\n")
    return 1 if failed else 0
