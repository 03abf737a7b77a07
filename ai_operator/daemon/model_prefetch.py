"""A question's model request sent ahead: at a shorter pause than the turn's (`VAD_PREFETCH_MS`, 120 ms), on the
streaming partial, the request the turn would make is found and sent, so the model's first token comes that much
sooner; the turn itself is still decided at `VAD_EARLY_STT_MS`, by the policy, as always.

At the pause (`live_stt.LiveTranscript`'s `on_pause`), when the early turn would decide the utterance on that text
at its own pause (`EarlyTurn.decidable`: the policy says complete, or neither and speculation is on) and the call
has a model, the policy decides it on a COPY of the session (a dry run: nothing is said, recorded or changed) with
the knowledge base searched for real and the model not asked: the first request of the model turn it asks for is
opened (`ChatModel.open`, streamed) and its dry run stops there. The call's own conversation then gets, through
`PrefetchingKnowledge` and `PrefetchingModel`, the search sent ahead when it asks the same search, and the
opened request when its model turn's first request is the very same one (every field, `OpenedRequest.usable_for`):
what the caller hears is the model's answer to the request the policy made, only asked sooner; tool calls still go
through the policy (`run_tool`) and barge-in and withdrawal stop it as any answer. Anything else - other words at
the turn's pause, the caller going on, a turn not decided within `KEEP_S`, the call ending - closes what was sent
ahead unused.

Counted (they are not free): `ai_operator_prefetch_requests_total{request="kb"|"model", outcome="used"|"wasted"}`
and the call summary's `prefetch`.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import structlog

from ai_operator.config.schema import VadSettings
from ai_operator.conversation import Conversation
from ai_operator.media.frames import FRAME_MS

KEEP_S = 1.0  # what was sent ahead and not taken by a turn this long after its pause is closed


@dataclass
class _Ahead:
    """What one pause sent ahead: the dry run, its searches (by their arguments) and its opened model request."""

    text: str
    searches: dict[tuple[Any, ...], asyncio.Future[Any]] = field(default_factory=dict)
    opened: Any = None  # llm.chat.OpenedRequest
    task: asyncio.Task[Any] | None = None
    taken: bool = False  # a turn's model request has asked for it (adopted or not)


class _Quiet:
    """The dry run's stand-in for the spoken answer: a model turn asks for its first request streamed."""

    first_text_at: float | None = None

    def __call__(self, text: str) -> bool:
        return True


def _search_key(query: str, language: str, scope: Mapping[str, str] | str = "", limit: int = 3,
                fallback_languages: Sequence[str] = (), **options: Any) -> tuple[Any, ...]:
    scoped = tuple(sorted(scope.items())) if isinstance(scope, Mapping) else scope
    return query, language, scoped, limit, tuple(fallback_languages), id(options.get("profile"))


class ModelPrefetch:
    """One call's requests sent ahead (`call` is a `daemon.call.Call`); off unless its STT streams, the early
    turn decides on the partial, the route has a model that can `open` a request and `VAD_PREFETCH_MS` is
    shorter than `VAD_EARLY_STT_MS`."""

    def __init__(self, call: Any, vad: VadSettings) -> None:
        self.call = call
        conversation = call.conversation
        model = conversation.model
        self.counts = {"kb_used": 0, "kb_wasted": 0, "model_used": 0, "model_wasted": 0}
        self._ahead: _Ahead | None = None
        self.enabled = bool(0 < vad.prefetch_ms < vad.early_stt_ms and call.early_turn.on_partial
                            and getattr(model, "opens", hasattr(model, "open")) and hasattr(call.early_stt, "on_pause"))
        if not self.enabled:
            return
        self.model: Any = model  # the route's model (`llm.chat.ChatModel`)
        self.knowledge: Any = conversation.knowledge
        conversation.model = PrefetchingModel(self)
        if self.knowledge is not None:
            conversation.knowledge = PrefetchingKnowledge(self)
        call.early_stt.on_pause = (-(-vad.prefetch_ms // FRAME_MS), self.pause)

    # ---- at the shorter pause ----------------------------------------------------------------------------------
    def pause(self, text: str) -> None:
        """The caller has been silent `VAD_PREFETCH_MS` and the stream has heard `text` (synchronous)."""
        call, early = self.call, self.call.early_turn
        if early.decidable(text) is False:
            return
        said, pending = " ".join(t for t in (early.carried, text.strip()) if t), call.driver.pending
        merged = f"{pending} {said}" if pending else said  # what the turn holder will hand the policy
        if call.driver.holder.hold_s > 0 and call.session.utterance_may_continue(merged):
            return  # the turn holder would hold it: no model turn at the pause
        self.drop()
        ahead = self._ahead = _Ahead(merged)
        ahead.task = asyncio.get_running_loop().create_task(self._dry_run(ahead))
        asyncio.get_running_loop().call_later(KEEP_S, self._expire, ahead)

    async def _dry_run(self, ahead: _Ahead) -> None:
        call = self.call
        structlog.contextvars.bind_contextvars(call_id=call.call_id, route=call.route.name)
        real = call.conversation
        dry = Conversation(copy.deepcopy(call.session), knowledge=_Searching(self, ahead) if real.knowledge else None,
                           model=_Opening(self, ahead), log_context={"route": call.route.name, "prefetch": True},
                           kb_timeout_s=real.kb_timeout_s, knowledge_profile=real.knowledge_profile)
        dry.speech_stream = lambda language: _Quiet()
        with contextlib.suppress(Exception):  # a dry run that fails sends nothing more; the turn is decided anyway
            await dry.utterance(ahead.text)

    # ---- the turn takes it, or it is closed ------------------------------------------------------------------------
    def search_ahead(self, key: tuple[Any, ...]) -> asyncio.Future[Any] | None:
        ahead = self._ahead
        found = ahead.searches.pop(key, None) if ahead is not None else None
        if found is not None:
            self._count("kb_used")
        return found

    def take_opened(self) -> Any:
        """The model request sent ahead, for the turn's model request to adopt if it is the same; once."""
        ahead = self._ahead
        if ahead is None or ahead.taken:
            return None
        ahead.taken = True
        return ahead.opened

    def settle(self, opened: Any) -> None:
        """The turn's model request is made: the one sent ahead was adopted (used) or is closed (wasted)."""
        if opened.adopted:
            self._count("model_used")
        else:
            self._count("model_wasted")
            asyncio.get_running_loop().create_task(opened.discard())
        if self._ahead is not None and self._ahead.opened is opened:
            self._ahead.opened = None

    def _expire(self, ahead: _Ahead) -> None:
        if self._ahead is ahead:
            self.drop()

    def drop(self) -> None:
        """Whatever was sent ahead and not taken is closed (counted as wasted)."""
        ahead, self._ahead = self._ahead, None
        if ahead is None:
            return
        if ahead.task is not None and not ahead.task.done():
            ahead.task.cancel()
        for search in ahead.searches.values():
            self._count("kb_wasted")
            search.cancel()
        if ahead.opened is not None and not ahead.taken:
            self._count("model_wasted")
            asyncio.get_running_loop().create_task(ahead.opened.discard())

    def _count(self, what: str) -> None:
        self.counts[what] += 1
        request, outcome = what.split("_")
        self.call.svc.metrics.prefetch_requests_total.labels(request=request, outcome=outcome).inc()
        self.call.summary["prefetch"] = {k: v for k, v in self.counts.items() if v}


class _Searching:
    """The dry run's knowledge base: searched for real, the search kept for the turn (`search_ahead`)."""

    def __init__(self, prefetch: ModelPrefetch, ahead: _Ahead) -> None:
        self.prefetch, self.ahead = prefetch, ahead

    async def search(self, *args: Any, **kwargs: Any) -> Any:
        search = asyncio.ensure_future(self.prefetch.knowledge.search(*args, **kwargs))
        self.ahead.searches[_search_key(*args, **kwargs)] = search
        return await asyncio.shield(search)


class _Opening:
    """The dry run's model: its first request is opened (`ChatModel.open`) and the dry run ends there."""

    def __init__(self, prefetch: ModelPrefetch, ahead: _Ahead) -> None:
        self.prefetch, self.ahead = prefetch, ahead

    async def complete(self, system: str, messages: Sequence[Mapping[str, Any]], *, tools: Sequence[Any] = (),
                       run_tool: Any = None, response_schema: Any = None, on_text: Any = None) -> str:
        ahead = self.ahead
        if on_text is not None and response_schema is None and self.prefetch._ahead is ahead and not ahead.taken:
            ahead.opened = self.prefetch.model.open(system, messages, tools=tools)
        raise asyncio.CancelledError  # the dry run stops here: nothing of it is decided


class PrefetchingKnowledge:
    """The call's knowledge base: a search sent ahead with the same arguments is taken instead of asking again."""

    def __init__(self, prefetch: ModelPrefetch) -> None:
        self.prefetch = prefetch

    async def search(self, *args: Any, **kwargs: Any) -> Any:
        ahead = self.prefetch.search_ahead(_search_key(*args, **kwargs))
        if ahead is not None:
            with contextlib.suppress(Exception):  # failed ahead: asked again now
                return await asyncio.shield(ahead)
        return await self.prefetch.knowledge.search(*args, **kwargs)


class PrefetchingModel:
    """The call's model: its first request adopts the one sent ahead when it is the same (`ChatModel.complete`)."""

    def __init__(self, prefetch: ModelPrefetch) -> None:
        self.prefetch = prefetch

    def __getattr__(self, name: str) -> Any:  # warm, aclose, name, ...: the model's own
        return getattr(self.prefetch.model, name)

    async def complete(self, system: str, messages: Sequence[Mapping[str, Any]], **options: Any) -> str:
        opened = self.prefetch.take_opened()
        if opened is None:
            return str(await self.prefetch.model.complete(system, messages, **options))
        try:
            return str(await self.prefetch.model.complete(system, messages, opened=opened, **options))
        finally:
            self.prefetch.settle(opened)
