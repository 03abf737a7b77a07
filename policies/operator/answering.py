"""Answering questions (`Answering`): in READY_TO_HELP a yes/no to an offered specialist, an explicit language or
region change, or a question; a question becomes a knowledge-base search (or a model turn) whose hits go
through the relevance gate (`answers.py`); "say that again" repeats the last line verbatim. Pure.
"""

from __future__ import annotations

from typing import Any

from ai_operator.dialogue import KnowledgeSearch, KnowledgeUnavailable, ModelTurn, Reply
from policies.operator.answers import NO_ANSWER, knowledge_reply
from policies.operator.followups import is_no, is_yes
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
        call = self.search(self._last_question)
        if not call.allowed:
            return self.reply(self.say("denial"))
        self._pending = "model"
        turn = ModelTurn(
            system=self.system_prompt(),
            messages=[{"role": "user", "content": self._last_question}],
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
        if pending == "model":
            if isinstance(result, str) and result.strip():
                return self._answered(result.strip())
            self.machine.record("model", False, "model gave no text: falling back to the knowledge base")
            return self._search_effect(self._last_question)
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
