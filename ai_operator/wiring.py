"""Builds a route's conversation from settings: the policy session, the knowledge base, the model.

Shared by the console and the daemon so both take the same path. A session is started from the route as its
policy sees it (`route_binding.route_view`); the route's HOLD_S, a runtime option, is then applied to the session
over the policy's own default. The database (and with it the knowledge
base) is opened lazily, on the first search a policy asks for, so conversations that never reach a
question never start PostgreSQL.
"""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from typing import Any

from ai_operator.config import Route, Settings
from ai_operator.conversation import Conversation
from ai_operator.dialogue import (
    KnowledgeHit,
    KnowledgeProfile,
    PolicyDefinition,
    PolicySession,
    RouteView,
    SessionOptions,
    knowledge_profile,
)
from ai_operator.logs import get_logger
from ai_operator.route_binding import bound_route, call_files, option_context, route_view
from policies import load_policy

log = get_logger("wiring")


def new_call_id(prefix: str = "call") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def new_session(
    settings: Settings,
    route: Route,
    call_id: str,
    *,
    call_args: Mapping[str, str] | None = None,
    files: Mapping[str, Any] | None = None,
    model_available: bool = False,
) -> PolicySession:
    """A fresh policy session for `route`; raises ValueError (or OSError) when a file among the call's arguments
    is refused (outside its route folder, or rejected by the policy's `FileOption.read`) or the policy refuses
    the call's arguments. `files`: file options already read (the console's `--arg`), over the call's."""
    route = bound_route(settings, route)
    options = SessionOptions(
        model_available=model_available,
        handoff_available=route.handoff is not None,
        max_misunderstood_turns=settings.call.max_misunderstood_turns,
        call_args=dict(call_args or {}),
        context=option_context(settings, route),
        files={**call_files(route, call_args or {}), **(files or {})},
    )
    return start_session(load_policy(route.policy), route_view(settings, route), call_id, options, hold_s=route.hold_s)


def start_session(
    policy: PolicyDefinition, view: RouteView, call_id: str, options: SessionOptions, *, hold_s: float | None = None
) -> PolicySession:
    """`policy`'s new session on the route `view`; the route's HOLD_S (`hold_s`, when set) over the policy's own."""
    session = policy.new_session(call_id, view, options)
    if hold_s is not None:
        session.hold_s = hold_s
    return session


class LazyKnowledge:
    """The knowledge base, opened on first use or by `open` (embedded PostgreSQL unless DATABASE_URL is set)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._db: Any = None
        self._kb: Any = None

    async def open(self) -> Any:
        """The knowledge base, opened now if it is not yet (starting an embedded PostgreSQL takes seconds)."""
        if self._kb is None:
            from ai_operator.kb.embeddings import build_embedder
            from ai_operator.kb.store import KnowledgeBase
            from ai_operator.storage.database import Database

            storage = self.settings.storage
            self._db = await Database.open(storage.database_url or None, storage.state_dir)
            await self._db.use_replica(storage.kb_database_url)
            self._kb = KnowledgeBase(self._db, build_embedder(self.settings))
        return self._kb

    async def search(
        self, query: str, language: str, scope: Mapping[str, str] | str = "", limit: int = 3,
        fallback_languages: Sequence[str] = (), *, profile: KnowledgeProfile | None = None,
    ) -> list[KnowledgeHit]:
        kb = await self.open()
        hits: list[KnowledgeHit] = await kb.search(query, language, scope, limit, fallback_languages, profile=profile)
        return hits

    async def close(self) -> None:
        if self._kb is not None:
            await self._kb.close()
        if self._db is not None:
            await self._db.close()
            self._db = self._kb = None


@asynccontextmanager
async def open_conversation(
    settings: Settings,
    route: Route,
    *,
    use_knowledge: bool = True,
    files: Mapping[str, Any] | None = None,
) -> AsyncIterator[Conversation]:
    """A console conversation on `route` with its own (lazy) knowledge base; closed on exit."""
    from ai_operator.providers import build_model

    model = build_model(settings, route)  # None when no model is configured
    knowledge = LazyKnowledge(settings) if use_knowledge else None
    session = new_session(settings, route, new_call_id("console"), files=files, model_available=model is not None)
    profile = knowledge_profile(load_policy(route.policy))
    try:
        if knowledge is not None and profile is not None:
            try:  # before the first question: its search has a budget (KB_SEARCH_TIMEOUT_S)
                await knowledge.open()
            except Exception as exc:  # the search tries again, and the policy says it cannot look it up
                log.warning("kb_open_failed", error=str(exc) or type(exc).__name__)
        yield Conversation(session, knowledge=knowledge, model=model, log_context={"route": route.name},
                           knowledge_profile=profile)
    finally:
        if knowledge is not None:
            await knowledge.close()
