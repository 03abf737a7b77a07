"""Builds a route's conversation from settings: the policy session, the knowledge base, the model.

Shared by the console and the daemon so both take the same path. The database (and with it the knowledge
base) is opened lazily, on the first search a policy asks for, so conversations that never reach a
question never start PostgreSQL.
"""

from __future__ import annotations

import dataclasses
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from ai_operator.config import Route, Settings
from ai_operator.conversation import Conversation
from ai_operator.dialogue import KnowledgeHit, PolicySession
from ai_operator.logs import get_logger
from policies import load_policy

log = get_logger("wiring")


def new_call_id(prefix: str = "call") -> str:
    return f"{prefix}-{uuid.uuid4().hex[:12]}"


def route_with_load(route: Route, load: str) -> Route:
    """`route` with its `LOAD` option replaced by the load file `load` (made absolute), to validate it."""
    return dataclasses.replace(route, options={**route.options, "LOAD": str(Path(load).resolve())})


def new_session(route: Route, call_id: str, *, load: str | None = None, model_available: bool = False) -> PolicySession:
    """A fresh policy session for `route`."""
    policy = load_policy(route.policy)
    options: dict[str, Any] = {"model_available": model_available}
    if load:
        options["load"] = load
    return policy.new_session(call_id, route, options=options)


class LazyKnowledge:
    """The knowledge base, opened on first use (embedded PostgreSQL unless DATABASE_URL is set)."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self._db: Any = None
        self._kb: Any = None

    async def _open(self) -> Any:
        if self._kb is None:
            from ai_operator.kb.embeddings import build_embedder
            from ai_operator.kb.store import KnowledgeBase
            from ai_operator.storage.database import Database

            self._db = await Database.open(self.settings.DATABASE_URL or None, Path(self.settings.STATE_DIR))
            self._kb = KnowledgeBase(self._db, build_embedder(self.settings))
        return self._kb

    async def search(self, query: str, language: str, region_code: str, limit: int = 3) -> list[KnowledgeHit]:
        kb = await self._open()
        return await kb.search(query, language, region_code, limit)

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
    load: str | None = None,
    use_knowledge: bool = True,
) -> AsyncIterator[Conversation]:
    """A console conversation on `route` with its own (lazy) knowledge base; closed on exit."""
    from ai_operator.speech.factory import build_model

    model = build_model(settings, route)  # None when no model is configured
    knowledge = LazyKnowledge(settings) if use_knowledge else None
    session = new_session(route, new_call_id("console"), load=load, model_available=model is not None)
    try:
        yield Conversation(session, knowledge=knowledge, model=model, log_context={"route": route.name})
    finally:
        if knowledge is not None:
            await knowledge.close()
