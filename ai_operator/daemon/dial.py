"""`ai-operator dial`: originate an outbound call into our Stasis app on a route (freight calls are outbound).

The route and the call's file options (`--arg KEY=FILE`, declared by the route's policy as `FileOption`s, e.g.
freight's `load`) travel as Stasis arguments: `<route>,outbound[,key=<absolute path>...]`; the daemon picks the
call up when the callee answers and the channel enters Stasis. The arguments are checked here first by the same
code the daemon runs (a file outside the route's folder for it is refused before dialling).
"""

from __future__ import annotations

import sys
from collections.abc import Mapping, Sequence

from ai_operator.config import ConfigError, Settings, require
from ai_operator.option_args import dial_args
from ai_operator.route_binding import bound_route
from ai_operator.wiring import new_session


def stasis_args(route: str, args: Mapping[str, str]) -> str:
    """`freight`, {"load": "/x.json"} -> `freight,outbound,load=/x.json` (paths already absolute)."""
    return ",".join([route, "outbound", *(f"{key}={value}" for key, value in args.items())])


async def dial(settings: Settings, *, route_name: str, endpoint: str, args: Sequence[str], caller_id: str | None) -> int:
    """Originate `endpoint` into route `route_name` with `args` (`KEY=FILE` each); raises `ConfigError`."""
    from ai_operator.ari.errors import AriError
    from ai_operator.ari.rest import AriRestClient

    require(settings, "ARI_URL", "ARI_USER", "ARI_PASSWORD", "ARI_APP")
    route = settings.route(route_name)
    if route is None or not route.enabled:
        raise ConfigError(f"ROUTE_{route_name.upper()}_ENABLED: route {route_name!r} is unknown or disabled")
    route = bound_route(settings, route)  # its policy found (POLICY_PATH applied), its folders resolved
    call_args = dial_args(route, args)
    try:
        new_session(settings, route, "dial-check", call_args=call_args)
    except (ValueError, OSError) as exc:
        given = " ".join(f"--arg {key}={value}" for key, value in call_args.items())
        raise ConfigError(f"{given}: {exc}" if given else f"route {route.name}: {exc}") from None
    async with AriRestClient(settings.ari.url, settings.ari.user, settings.ari.password) as ari:
        try:
            channel = await ari.originate(endpoint, settings.ari.app, stasis_args(route.name, call_args),
                                          caller_id=caller_id)
        except AriError as exc:
            print(f"ai-operator dial: {exc}", file=sys.stderr)
            return 1
    print(f"originated {channel.id} ({channel.name}) to {endpoint} on route {route.name}")
    return 0
