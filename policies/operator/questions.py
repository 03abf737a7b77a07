"""Answering questions (`Answering`): in READY_TO_HELP a yes/no to an offered specialist, an explicit language or
region change, or a question; a question becomes a knowledge-base search whose hits go through the relevance
gate (`answers.py`), read out, or, with a model, given to the model's first request (`grounding.py`: one model
round; a search that failed is said to be unavailable without asking the model); "say that again" repeats the
last line verbatim. Pure.
"""

from __future__ import annotations

from typing import Any

from ai_operator.dialogue import KnowledgeSearch, KnowledgeUnavailable, ModelTurn, Reply
from policies.operator.answers import NO_ANSWER, citations, knowledge_reply
from policies.operator.followups import is_no, is_yes
from policies.operator.grounding import grounded_messages, relevant_hits
from policies.operator.language import (
    language_change,
)
from policies.operator.regions import (
    is_region_change_request,
    resolve_region_change,
    resolve_region_correction,
)
from policies.operator.selection import Selection
from policies.operator.states import Event, State
from policies.operator.tools import specs_for


class Answering(Selection):
    """Questions, effects and their results."""

    def _ready(self, text: str) -> Reply:
        offered, self.handoff_offered = self.handoff_offered, False
        if offered and is_yes(text):
            return self._handoff_reply()
        if offered and is_no(text):
            return self.reply(self.say("offer_declined"))
        if self.awaiting:
            return self._region_answer(text)
        change = language_change(text)
        if change:
            return self._language_changed(change)
        if is_region_change_request(text):
            result = resolve_region_change(text)
            if result.selected or result.almaty:
                return self._apply_region(result)
            self.awaiting = "region"
            return self.reply(self.say("region_change_prompt"))
        correction = resolve_region_correction(text, self.region_code)
        if correction is not None:  # "не Павлодар а Караганда": a region change, not a question
            return self._apply_region(correction)
        return self._question(text)

    def _question(self, text: str) -> Reply:
        self._last_question = text.strip()
        if self.state == State.READY_TO_HELP:
            decision = self.decide("search_knowledge_base")
            if not decision.allowed:
                self.log_call("search_knowledge_base", False, decision.reason, {"query": self._last_question})
                return self.reply(self.say("denial"))
            self.machine.fire(Event.QUESTION_RECEIVED)
        if not self.model_available:
            return self._search_effect(self._last_question)
        # with a model: the policy searches first (gated here, before any model or tool call) and hands the
        # hits to the model's first request (`grounding.py`), so it answers in one round
        call = self.search(self._last_question)
        if not call.allowed or not isinstance(call.effect, KnowledgeSearch):
            return self.reply(self.say("denial"))
        self._pending, self._grounding = "grounding", call.effect
        return self.reply(None, effect=call.effect)

    def _grounded_model_turn(self, result: Any) -> Reply:
        """The model turn for the question, its first request carrying the policy's search and `result`."""
        assert self._grounding is not None
        self._pending, self._grounded = "model", result
        turn = ModelTurn(
            system=self.system_prompt(searched=True),
            messages=grounded_messages(self._last_question, self._grounding, result),
            fallback=self.say("checking"),
            tools=specs_for(self.allowed_tools()),
            purpose="answer",
            speak_as_streamed=self.lang,  # the reply is the model's text as it is (`on_effect_result`)
        )
        return self.reply(None, effect=turn)

    def _search_effect(self, query: str) -> Reply:
        call = self.search(query)
        if not call.allowed or not isinstance(call.effect, KnowledgeSearch):
            return self._answered(self.say("denial"))
        self._pending = "search"
        return self.reply(None, effect=call.effect)

    def on_effect_result(self, result: Any) -> Reply:
        pending, self._pending = self._pending, ""
        if not pending:
            self.machine.record("effect_result", False, "no effect was pending")
            return self.reply(None)
        if self.state in (State.HANDOFF, State.CLOSING):  # a tool call moved the call on meanwhile
            spoken = (
                result.strip() if pending == "model" and isinstance(result, str) and result.strip() else ""
            )
            return self.reply(spoken or self.say("handoff" if self.state == State.HANDOFF else "closing"))
        if pending == "grounding":
            if not isinstance(result, KnowledgeUnavailable):
                return self._grounded_model_turn(result)
            self._grounding = None  # the search failed: said at once, the model not asked
        if pending == "model":
            grounded, self._grounding, self._grounded = self._grounded, None, None
            if isinstance(result, str) and result.strip():
                reply = self._answered(result.strip())
                hits = relevant_hits(grounded)
                if hits:  # what the model was given to answer from
                    reply.fields["citations"] = citations(hits)
                return reply
            self.machine.record("model", False, "model gave no text: answering from the knowledge base")
            if grounded is None:
                return self._search_effect(self._last_question)
            result = grounded  # the policy's own search for this question: no second search
        return self._knowledge_answer(result)

    def _knowledge_answer(self, result: Any) -> Reply:
        """The answer to a search's `result` (hits, none, unavailable, or no knowledge base)."""
        if result is None:
            return self._answered(self.say("no_knowledge"))
        if isinstance(result, KnowledgeUnavailable):  # failed or timed out: say so now, offer a specialist
            self.machine.record("knowledge_base", False, f"unavailable: {result.reason}")
            self.handoff_offered = self.handoff_available
            reply = self._answered(self.say("kb_unavailable" if self.handoff_available else "kb_unavailable_only"))
            reply.fields["answer"] = "kb_unavailable"
            return reply
        text, fields = knowledge_reply(result, self.lang, offer_handoff=self.handoff_available,
                                       question=self._last_question)
        self.handoff_offered = fields["answer"] == NO_ANSWER and self.handoff_available
        reply = self._answered(text)
        reply.fields.update(fields)
        return reply

    def _repeat(self) -> Reply:
        """The last line again, word for word (no new search); the offer it made, if any, still stands."""
        assert self.last_said is not None
        text, voice = self.last_said
        reply = self.reply(text, language=voice)
        reply.fields["answer"] = "repeat"
        return reply

    def _answered(self, text: str) -> Reply:
        if self.state == State.QUESTION_ANSWERING:
            self.machine.fire(Event.ANSWER_COMPLETED)
        return self.reply(text)
