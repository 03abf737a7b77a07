"""Sessions of the shipped policies built the way the runtime builds them (a bound `Route` plus `SessionOptions`)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ai_operator.config import HandoffTarget, Route
from ai_operator.conversation import Conversation
from ai_operator.dialogue import PolicySession, RouteView, SessionOptions
from ai_operator.kb.store import KnowledgeBase
from ai_operator.wiring import start_session
from policies import load_policy
from policies.freight.load import Load, load_from_file

HANDOFF = HandoffTarget(context="ai-operator-handoff", extension="operator", priority=1)


def operator_route(*, handoff: bool = True) -> Route:
    return Route(name="test", enabled=True, policy="operator", handoff=HANDOFF if handoff else None, options={})


def freight_route(load: Load | str | Path, *, hold_s: float | None = None) -> Route:
    value = load if isinstance(load, Load) else load_from_file(load)
    return Route(name="freight", enabled=True, policy="freight", hold_s=hold_s, options={"LOAD": value})


def view(route: Route) -> RouteView:
    """What `route`'s policy is shown of it (as `route_binding.route_view` shows a bound route)."""
    return RouteView(route.name, route.options or {})


def session(route: Route, call_id: str = "call-1", **options: Any) -> PolicySession:
    """A session of `route`'s policy; `options` as in `SessionOptions` (handoff_available defaults to the
    route having a handoff target, as the runtime does)."""
    options.setdefault("handoff_available", route.handoff is not None)
    return start_session(load_policy(route.policy), view(route), call_id, SessionOptions(**options), hold_s=route.hold_s)


async def operator_conversation(kb: KnowledgeBase, language: str, region: str = "Астана",
                                call_id: str = "kb-call") -> Conversation:
    """A text conversation with the operator route on the knowledge base `kb`, the language and region chosen
    (READY_TO_HELP)."""
    conv = Conversation(session(operator_route(), call_id), knowledge=kb)
    await conv.start()
    await conv.utterance(language)
    out = await conv.utterance(region)
    assert out.reply.fields["state"] == "READY_TO_HELP"
    return conv
