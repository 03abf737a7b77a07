"""Binds each route to its dialogue policy where the runtime is assembled (CLI start-up, the daemon's start and
reload, doctor), never in the settings loader: configuration knows no policy.

Binding applies `POLICY_PATH`, finds each route's policy and has the policy parse the route's own options
(`Route.option_text` -> `Route.options`, e.g. freight reads and checks its `LOAD` file). A problem of an enabled
route is a `ConfigError` of one line naming the file and line, the key, the value and what is allowed; the same
problem on a disabled route, and an option nobody declares, is a warning. `route_view` is what a policy is shown
of a route (the contract's `RouteView`).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import Any

from ai_operator.config import ROUTE_OPTIONS, ConfigError, Route, Settings
from ai_operator.dialogue import OptionContext, PolicyDefinition, RouteView
from policies import PolicyNotFound, load_policy, policy_exists, use_policy_path


def option_context(settings: Settings) -> OptionContext:
    """Where a route option's relative paths point: the env file's folder, and LOADS_DIR."""
    return OptionContext(base_dir=settings.base_dir, loads_dir=settings.storage.loads_dir)


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
    context = option_context(settings)
    parsed: dict[str, Any] = {}
    for opt, value in route.option_text.items():
        where = settings.where(f"{prefix}_{opt}")
        if opt not in declared:
            known = [*ROUTE_OPTIONS, *declared]
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
    (`call --load FILE`, `--option KEY=VALUE`); raises KeyError (no such option) or ValueError/OSError. A
    relative path on the command line is relative to the current directory, so both folders of the context the
    policy resolves it against are the current directory."""
    spec = load_policy(route.policy).route_options[option]
    here = Path.cwd()
    return dataclasses.replace(route, options={**(route.options or {}), option: spec.parse(raw, OptionContext(here, here))})
