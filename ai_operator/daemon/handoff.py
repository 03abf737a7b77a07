"""The hand-over of a caller to the route's target (`ROUTE_<NAME>_HANDOFF`): a PJSIP endpoint (ARI redirect) or
a dialplan location (ARI continue). A route with no target, or a PBX that refuses, raises: the call then ends
with the policy's line for `handoff_failed` (`transfer`, for `daemon/call.py`)."""

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


async def transfer(call: Any) -> bool:
    """Continue the caller of `call` (a `daemon.call.Call`) to its route's handoff target: True once the call
    left. When it cannot, the runtime ends the call (`handoff_failed`): the policy's line for it, never silence."""
    try:
        target = await hand_over(call.svc.ari, call.call_id, call.route)
    except Exception as exc:
        call.log.error("handoff_failed", target=str(call.route.handoff), error=str(exc))
        await call._forced_end("handoff_failed", call.clock.monotonic())
        return False
    call.summary["handoff"] = str(target)
    call.log.info("handoff", target=str(target))
    call._finish("bot", "handoff")
    return True
