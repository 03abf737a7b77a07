"""Runs one policy session and performs the effects it asks for. The same code serves the console and the phone.

Every event goes to the policy first. Only when the policy's reply carries an effect does anything else run:
a knowledge-base search, or a model turn. A model's tool calls go back through `PolicySession.call_tool` before
they run, so the gate stays in code whatever the model says; a model is shown only the hits that pass the
knowledge base's relevance gate (none at all: "[]"), so it cannot read out an article that does not answer.
A search has a budget (`kb_timeout_s`, KB_SEARCH_TIMEOUT_S): past it, or when it fails, the policy gets
`KnowledgeUnavailable` - never an endless wait, never "no hits". The outcome of one event is a `TurnOutcome`:
the final reply, every tool decision made on the way, and the time spent in the policy, the KB and the model.
"""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from ai_operator.dialogue import (
    KnowledgeHit,
    KnowledgeProfile,
    KnowledgeSearch,
    KnowledgeUnavailable,
    ModelTurn,
    PolicySession,
    Reply,
    ToolCall,
    ToolSpec,
    search_result_for_model,
)
from ai_operator.logs import get_logger

log = get_logger("conversation")

MAX_EFFECT_STEPS = 6  # a policy that keeps asking for effects is cut off here
DEFAULT_KB_TIMEOUT_S = 1.5  # a knowledge-base search's budget on the call path (KB_SEARCH_TIMEOUT_S)


class KnowledgeSource(Protocol):
    async def search(
        self, query: str, language: str, scope: Mapping[str, str] | str = "", limit: int = 3,
        fallback_languages: Sequence[str] = (), *, profile: KnowledgeProfile | None = None,
    ) -> list[KnowledgeHit]: ...


class ChatModelLike(Protocol):
    async def complete(
        self,
        system: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[ToolSpec] = (),
        run_tool: Callable[[str, dict[str, Any]], Awaitable[str]] | None = None,
        response_schema: Mapping[str, Any] | None = None,
        on_text: Callable[[str], bool] | None = None,
    ) -> str: ...


class StreamedSpeech(Protocol):
    """Where a streamed model answer goes to be spoken (the phone: `daemon/streamed_reply.py`): called with each
    piece of text; False stops the answer (a barge-in)."""

    first_text_at: float | None  # perf_counter() when the first text went to be spoken

    def __call__(self, text: str) -> bool: ...


@dataclass
class TurnOutcome:
    """The result of one event: what to say and do, and how long each part took (ms)."""

    reply: Reply
    tool_calls: list[ToolCall] = field(default_factory=list)
    timings: dict[str, float] = field(default_factory=dict)
    errors: list[str] = field(default_factory=list)


class Conversation:
    """A policy session plus the adapters its effects need. `knowledge`/`model` may be None (not configured)."""

    def __init__(
        self,
        session: PolicySession,
        *,
        knowledge: KnowledgeSource | None = None,
        model: ChatModelLike | None = None,
        log_context: Mapping[str, Any] | None = None,
        kb_timeout_s: float = DEFAULT_KB_TIMEOUT_S,
        knowledge_profile: KnowledgeProfile | None = None,
    ) -> None:
        self.session = session
        self.knowledge = knowledge
        self.knowledge_profile = knowledge_profile  # the policy's knowledge base (None: the source's default)
        self.model = model
        self.kb_timeout_s = kb_timeout_s
        # language -> where a `ModelTurn(speak_as_streamed=...)` answer is spoken as it streams; None: not at all
        self.speech_stream: Callable[[str], StreamedSpeech | None] | None = None
        self.requests_started = {"kb": 0, "model": 0}  # knowledge-base searches and model requests begun, ever
        self._log = log.bind(call_id=session.call_id, **(log_context or {}))

    async def start(self) -> TurnOutcome:
        return await self._run(self.session.start)

    async def utterance(self, text: str) -> TurnOutcome:
        return await self._run(lambda: self.session.on_utterance(text))

    async def dtmf(self, digit: str) -> TurnOutcome:
        return await self._run(lambda: self.session.on_dtmf(digit))

    async def silence(self) -> TurnOutcome:
        return await self._run(self.session.on_silence)

    async def not_heard(self) -> TurnOutcome:
        return await self._run(self.session.on_not_heard)

    async def forced_end(self, reason: str) -> TurnOutcome:
        return await self._run(lambda: self.session.on_forced_end(reason))

    async def _run(self, first: Callable[[], Reply]) -> TurnOutcome:
        timings = {"policy_ms": 0.0, "kb_ms": 0.0, "model_ms": 0.0}
        outcome = TurnOutcome(reply=Reply(text=None, language=""), timings=timings)
        t0 = time.perf_counter()
        reply = first()
        timings["policy_ms"] += (time.perf_counter() - t0) * 1000
        outcome.tool_calls.extend(reply.tool_calls)
        steps = 0
        while reply.effect is not None and steps < MAX_EFFECT_STEPS:
            steps += 1
            result = await self._perform(reply.effect, outcome)
            t0 = time.perf_counter()
            reply = self.session.on_effect_result(result)
            timings["policy_ms"] += (time.perf_counter() - t0) * 1000
            outcome.tool_calls.extend(reply.tool_calls)
        if reply.effect is not None:
            self._log.error("policy_effect_loop", steps=steps, effect=type(reply.effect).__name__)
            outcome.errors.append("policy asked for too many effects in one turn")
        outcome.reply = reply
        outcome.reply.tool_calls = list(outcome.tool_calls)
        for note in reply.notes:
            self._log.info("policy_note", note=note)
        return outcome

    async def _perform(self, effect: Any, outcome: TurnOutcome) -> Any:
        if isinstance(effect, KnowledgeSearch):
            return await self._search(effect, outcome)
        if isinstance(effect, ModelTurn):
            return await self._model_turn(effect, outcome)
        self._log.error("policy_effect_unknown", effect=type(effect).__name__)
        outcome.errors.append(f"unknown effect {type(effect).__name__}")
        return None

    async def _search(
        self, effect: KnowledgeSearch, outcome: TurnOutcome
    ) -> list[KnowledgeHit] | KnowledgeUnavailable | None:
        source = self.knowledge
        if source is None:
            return None
        self.requests_started["kb"] += 1
        t0 = time.perf_counter()
        result: list[KnowledgeHit] | KnowledgeUnavailable
        try:
            result = await asyncio.wait_for(
                source.search(effect.query, effect.language, effect.scope, effect.limit,
                              effect.fallback_languages, profile=self.knowledge_profile),
                self.kb_timeout_s,
            )
        except TimeoutError:
            self._log.warning("kb_search_timed_out", budget_s=self.kb_timeout_s)
            outcome.errors.append(f"kb: timed out after {self.kb_timeout_s:g} s")
            result = KnowledgeUnavailable("timeout")
        except Exception as exc:
            self._log.error("kb_search_failed", error=str(exc) or type(exc).__name__)
            outcome.errors.append(f"kb: {exc or type(exc).__name__}")
            result = KnowledgeUnavailable("error")
        outcome.timings["kb_ms"] += (time.perf_counter() - t0) * 1000
        return result

    async def _model_turn(self, effect: ModelTurn, outcome: TurnOutcome) -> str | None:
        if self.model is None:
            return None
        self.requests_started["model"] += 1

        async def run_tool(name: str, arguments: dict) -> str:
            return await self.run_model_tool(name, arguments, outcome)

        t0 = time.perf_counter()
        kb_before = outcome.timings["kb_ms"]
        sink = None
        if effect.speak_as_streamed and self.speech_stream is not None:
            sink = self.speech_stream(effect.speak_as_streamed)
        try:
            if sink is None:
                return await self.model.complete(effect.system, effect.messages, tools=effect.tools,
                                                 run_tool=run_tool, response_schema=effect.response_schema)
            return await self.model.complete(effect.system, effect.messages, tools=effect.tools, run_tool=run_tool,
                                             response_schema=effect.response_schema, on_text=sink)
        except Exception as exc:
            self._log.warning("model_failed", purpose=effect.purpose, error=str(exc))
            outcome.errors.append(f"model: {exc}")
            return None
        finally:
            # model_ms: until the first streamed text went to be spoken (else the whole answer), the tools' knowledge
            # searches not counted (they are kb_ms), so the turn's stages add up
            first = sink.first_text_at if sink is not None else None
            took = ((first if first is not None else time.perf_counter()) - t0) * 1000
            searched = outcome.timings["kb_ms"] - kb_before
            outcome.timings["model_ms"] += max(0.0, took - searched)
            outcome.timings["model_total_ms"] = outcome.timings.get("model_total_ms", 0.0) + (
                time.perf_counter() - t0) * 1000

    async def run_model_tool(self, name: str, arguments: dict, outcome: TurnOutcome) -> str:
        """A tool call from the model: checked by the policy first; run only when allowed. Returns the tool
        result for the model (a JSON string), a refusal with the policy's reason when denied."""
        call = self.session.call_tool(name, arguments)
        outcome.tool_calls.append(call)
        if not call.allowed:
            self._log.info("tool_denied", tool=name, reason=call.reason)
            return json.dumps({"error": "denied", "reason": call.reason}, ensure_ascii=False)
        if isinstance(call.effect, KnowledgeSearch):
            return search_result_for_model(await self._search(call.effect, outcome))
        return json.dumps({"ok": True, "result": call.result}, ensure_ascii=False, default=str)
