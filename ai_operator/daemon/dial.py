"""`ai-operator dial`: originate an outbound call into our Stasis app on a route (freight calls are outbound).

The route (and a load file, for freight) travel as Stasis arguments: `<route>,outbound[,load=<path>]`; the
daemon picks the call up when the callee answers and the channel enters Stasis. The arguments are checked
here first by the same policy code the daemon runs (a load outside LOADS_DIR is refused before dialling).
"""

from __future__ import annotations

import sys
from pathlib import Path

from ai_operator.config import ConfigError, Settings, require
from ai_operator.wiring import new_session


def stasis_args(route: str, load: str | None) -> str:
    args = [route, "outbound"]
    if load:
        args.append(f"load={Path(load).resolve()}")
    return ",".join(args)


async def dial(settings: Settings, *, route_name: str, endpoint: str, load: str | None, caller_id: str | None) -> int:
    from ai_operator.ari.errors import AriError
    from ai_operator.ari.rest import AriRestClient

    require(settings, "ARI_URL", "ARI_USER", "ARI_PASSWORD", "ARI_APP")
    route = settings.route(route_name)
    if route is None or not route.enabled:
        raise ConfigError(f"ROUTE_{route_name.upper()}_ENABLED: route {route_name!r} is unknown or disabled")
    try:
        new_session(settings, route, "dial-check", call_args={"load": str(Path(load).resolve())} if load else {})
    except (ValueError, OSError) as exc:
        raise ConfigError(f"--load {load}: {exc}" if load else f"route {route.name}: {exc}") from None
    async with AriRestClient(settings.ari.url, settings.ari.user, settings.ari.password) as ari:
        try:
            channel = await ari.originate(endpoint, settings.ari.app, stasis_args(route.name, load), caller_id=caller_id)
        except AriError as exc:
            print(f"ai-operator dial: {exc}", file=sys.stderr)
            return 1
    print(f"originated {channel.id} ({channel.name}) to {endpoint} on route {route.name}")
    return 0
