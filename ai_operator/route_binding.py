"""Binds each route to its dialogue policy where the runtime is assembled (CLI start-up, the daemon's start and
reload, doctor), never in the settings loader: configuration knows no policy.

Binding applies `POLICY_PATH`, finds each route's policy and has the policy parse the route's own options
(`Route.option_text` -> `Route.options`, e.g. freight reads and checks its `LOAD` file); the folder of each of
the policy's file options (`FileOption.folder`, e.g. freight's `LOADS_DIR`) is resolved against the env file's
folder here too, and `call_files` confines a call's file arguments to it. A problem of an enabled
route is a `ConfigError` of one line naming the file and line, the key, the value and what is allowed; the same
problem on a disabled route, and an option nobody declares, is a warning. `route_view` is what a policy is shown
of a route (the contract's `RouteView`).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from ai_operator.config import ROUTE_OPTIONS, ConfigError, Route, Settings
from ai_operator.dialogue import OptionContext, PolicyDefinition, RouteView, file_options
from policies import PolicyNotFound, load_policy, policy_exists, use_policy_path


def option_context(settings: Settings, route: Route) -> OptionContext:
    """Where `route`'s options point: the env file's folder, and the route's file folders (bound routes only)."""
    folders = {key: value for key, value in (route.options or {}).items() if isinstance(value, Path)}
    return OptionContext(base_dir=settings.base_dir, folders=folders)


def _folders(settings: Settings, route: Route, policy: PolicyDefinition | None) -> dict[str, Path]:
    """The folder of each of the policy's file options: `ROUTE_<NAME>_<FOLDER>` (or the option's default),
    relative to the env file's folder."""
    out: dict[str, Path] = {}
    for spec in file_options(policy).values():
        raw = route.option_text.get(spec.folder, "").strip() or spec.default_folder
        folder = Path(raw)
        out[spec.folder] = folder if folder.is_absolute() else settings.base_dir / folder
    return out


def bind_routes(settings: Settings) -> Settings:
    """`settings` with every route bound to its policy (see the module doc); raises `ConfigError`. A route already
    bound is kept as it is, so binding twice reads nothing twice."""
    use_policy_path(settings.storage.policy_path, settings.base_dir)
    warnings = list(settings.warnings)
    routes = {name: route if route.options is not None else _bind(settings, route, warnings)
              for name, route in settings.routes.items()}
    return dataclasses.replace(settings, routes=routes, warnings=tuple(warnings))


def bound_route(settings: Settings, route: Route) -> Route:
    """`route` bound (when it is not yet): for a runtime built from settings nobody bound (tests, benchmarks)."""
    if route.options is not None:
        return route
    use_policy_path(settings.storage.policy_path, settings.base_dir)
    return _bind(settings, route, [])


def route_view(settings: Settings, route: Route) -> RouteView:
    """What `route`'s policy is shown of it: its name and its own options, parsed."""
    return RouteView(name=route.name, options=dict(bound_route(settings, route).options or {}))


def _policy_of(settings: Settings, route: Route) -> PolicyDefinition | None:
    """The route's policy; None for a disabled route whose policy is missing (an enabled one: `ConfigError`)."""
    key = f"ROUTE_{route.name.upper()}_POLICY"
    if not route.policy:
        return None
    if not policy_exists(route.policy):
        if route.enabled:
            raise ConfigError(f"{settings.where(key)}{key}: route {route.name} is enabled with policy "
                              f"{route.policy!r}, which does not exist")
        return None
    try:
        return load_policy(route.policy)
    except PolicyNotFound as exc:
        if route.enabled:
            raise ConfigError(f"{settings.where(key)}{key}: {exc}") from None
        return None


def _bind(settings: Settings, route: Route, warnings: list[str]) -> Route:
    prefix = f"ROUTE_{route.name.upper()}"
    policy = _policy_of(settings, route)
    declared = dict(policy.route_options) if policy is not None else {}
    folders = _folders(settings, route, policy)
    context = OptionContext(base_dir=settings.base_dir, folders=folders)
    parsed: dict[str, Any] = dict(folders)
    for opt, value in route.option_text.items():
        where = settings.where(f"{prefix}_{opt}")
        if opt in folders:
            continue
        if opt not in declared:
            known = [*ROUTE_OPTIONS, *declared, *folders]
            warnings.append(f"{where}unknown route option {prefix}_{opt} (known: {', '.join(known)})")
            continue
        try:
            parsed[opt] = declared[opt].parse(value, context) if value.strip() else None
        except (ValueError, OSError) as exc:
            message = f"{where}{prefix}_{opt}={value!r}: {exc}"
            if route.enabled:
                raise ConfigError(message) from None
            warnings.append(f"{message} (route {route.name} is disabled)")
    if route.enabled:
        for opt, spec in declared.items():
            if spec.required and parsed.get(opt) is None:
                raise ConfigError(f"{settings.where(f'{prefix}_ENABLED')}{prefix}_{opt}: route {route.name} uses "
                                  f"policy {route.policy}, which needs {opt} ({spec.doc})")
    return dataclasses.replace(route, options=parsed)


def with_option(route: Route, option: str, raw: str) -> Route:
    """`route` (bound) with its policy option `option` parsed from `raw` as given on the command line
    (`call --arg KEY=VALUE`); raises KeyError (no such option) or ValueError/OSError. A relative path on the
    command line is relative to the current directory, so every folder the policy resolves it against is the
    current directory."""
    spec = load_policy(route.policy).route_options[option]
    parsed = spec.parse(raw, OptionContext(base_dir=Path.cwd()))
    return dataclasses.replace(route, options={**(route.options or {}), option: parsed})


def option_keys(route: Route) -> list[str]:
    """What `call --arg KEY=VALUE` accepts on `route`: its policy's file options (lower-case) and route options."""
    policy = load_policy(route.policy)
    return [*file_options(policy), *policy.route_options]


def read_file_option(route: Route, key: str, raw: str) -> Any:
    """A file option given on the command line (`call --arg load=FILE`): relative to the current directory, not
    confined to the route's folder (whoever types it may read the file anyway); raises KeyError/ValueError/OSError."""
    spec = file_options(load_policy(route.policy))[key]
    return spec.read(Path(raw.strip()).resolve())


def call_files(route: Route, call_args: Mapping[str, str]) -> dict[str, Any]:
    """The files among a call's Stasis arguments (`load=/x.json`), each confined to its route folder (after
    resolving links and '..') and read by the policy's `FileOption.read`; raises ValueError/OSError (one line)."""
    declared = file_options(load_policy(route.policy))
    out: dict[str, Any] = {}
    for key, raw in call_args.items():
        spec = declared.get(key)
        if spec is None or not raw.strip():
            continue
        root = Path((route.options or {}).get(spec.folder) or Path.cwd()).resolve()
        path = Path(raw.strip())
        path = (path if path.is_absolute() else root / path).resolve()
        if not path.is_relative_to(root):
            folder_key = f"ROUTE_{route.name.upper()}_{spec.folder}"
            raise ValueError(f"{raw}: the file is outside {folder_key} {root}; refused")
        out[key] = spec.read(path)
    return out
