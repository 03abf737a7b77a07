"""The hand-over of a caller to the route's target (`ROUTE_<NAME>_HANDOFF`): a PJSIP endpoint (ARI redirect) or
a dialplan location (ARI continue). A route with no target, or a PBX that refuses, raises: the call then ends
with the policy's line for `handoff_failed` (`daemon/call.py`)."""

from __future__ import annotations

from typing import Any

from ai_operator.config import Route
from ai_operator.config.routes import HandoffTarget


async def hand_over(ari: Any, call_id: str, route: Route) -> HandoffTarget:
    """Move the caller on `call_id` to `route`'s target and return it; raises when there is none or it failed."""
    target = route.handoff
    if target is None:
        raise RuntimeError(f"ROUTE_{route.name.upper()}_HANDOFF is not set")
    if target.endpoint:
        await ari.redirect(call_id, target.endpoint)
    else:
        await ari.continue_in_dialplan(call_id, context=target.context, extension=target.extension,
                                       priority=target.priority)
    return target
