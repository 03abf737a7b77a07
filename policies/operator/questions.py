"""A caller's question in READY_TO_HELP (`Questions`): it becomes a knowledge-base search whose hits go through
the relevance gate (`answers.py`) and are read out, or, with a model, whose result is given to the model's first
request (`grounding.py`: one model round; a search that failed is said to be unavailable without asking the
model). When nothing passes the gate but the best article is near it, the caller is asked whether that is what
they mean (`confirmation.py`; no model is asked), and a yes reads it out with its citation. Owns the effect a
question waits for and its result. Pure.
"""

from __future__ import annotations

from typing import Any

from ai_operator.dialogue import KnowledgeHit, KnowledgeSearch, KnowledgeUnavailable, ModelTurn, Reply
from policies.operator.actions import ToolActions
from policies.operator.answers import (
    ANSWER,
    ANSWER_FALLBACK,
    CONFIRM,
    NO_ANSWER,
    answer_reply,
    answer_sentences,
    citations,
    knowledge_reply,
    spoken_source,
)
from policies.operator.confirmation import near_hit
from policies.operator.facts import CallFacts
from policies.operator.grounding import grounded_messages, relevant_hits
from policies.operator.prompt import system_prompt
from policies.operator.replies import Replies
from policies.operator.states import Event, State
from policies.operator.tools import specs_for


class Questions:
    """Questions, their effects and their results."""

    def __init__(self, facts: CallFacts, actions: ToolActions, replies: Replies, *, model_available: bool) -> None:
        self.facts = facts
        self.actions = actions
        self.replies = replies
        self.model_available = model_available
        self.pending = ""  # "search" | "grounding" | "model": the effect whose result is awaited
        self.grounding: KnowledgeSearch | None = None  # the policy's search for the question a model answers
        self.grounded: Any = None  # its result, given to the model (and answered from if the model fails)
        self.last_question = ""
        self.lead = ""  # said before the answer: the region set by the same words that asked the question

    def ask(self, text: str, lead: str = "") -> Reply:
        """A question: gated, then searched (without a model) or searched and handed to the model; `lead` is said
        before its answer (the region set by the same words)."""
        self.last_question, self.lead = text.strip(), lead
        if self.facts.state == State.READY_TO_HELP:
            decision = self.actions.decide("search_knowledge_base")
            if not decision.allowed:
                self.actions.log_call("search_knowledge_base", False, decision.reason, {"query": self.last_question})
                return self.replies.reply(self.replies.say("denial"))
            self.facts.machine.fire(Event.QUESTION_RECEIVED)
        if not self.model_available:
            return self._search_effect(self.last_question)
        # with a model: the policy searches first (gated here, before any model or tool call) and hands the
        # hits to the model's first request (`grounding.py`), so it answers in one round
        call = self.actions.search(self.last_question)
        if not call.allowed or not isinstance(call.effect, KnowledgeSearch):
            return self.replies.reply(self.replies.say("denial"))
        self.pending, self.grounding = "grounding", call.effect
        return self.replies.reply(None, effect=call.effect)

    def cancel(self) -> None:
        """The call ended: a result still on its way is not waited for."""
        self.pending = ""

    def _system_prompt(self) -> str:
        f = self.facts
        return system_prompt(
            f.state, f.language, f.region_code, f.region_name(), self.actions.allowed_tools(), searched=True
        )

    def _grounded_model_turn(self, result: Any) -> Reply:
        """The model turn for the question, its first request carrying the policy's search and `result`."""
        assert self.grounding is not None
        self.pending, self.grounded = "model", result
        turn = ModelTurn(
            system=self._system_prompt(),
            messages=grounded_messages(self.last_question, self.grounding, result),
            fallback=self.replies.say("checking"),
            tools=specs_for(self.actions.allowed_tools()),
            purpose="answer",
            speak_as_streamed=self.facts.lang,  # the reply is the model's text as it is (`on_effect_result`)
        )
        return self.replies.reply(None, effect=turn)

    def _search_effect(self, query: str) -> Reply:
        call = self.actions.search(query)
        if not call.allowed or not isinstance(call.effect, KnowledgeSearch):
            return self._answered(self.replies.say("denial"))
        self.pending = "search"
        return self.replies.reply(None, effect=call.effect)

    def on_effect_result(self, result: Any) -> Reply:
        r, f = self.replies, self.facts
        pending, self.pending = self.pending, ""
        if not pending:
            f.machine.record("effect_result", False, "no effect was pending")
            return r.reply(None)
        if f.state in (State.HANDOFF, State.CLOSING):  # a tool call moved the call on meanwhile
            spoken = (
                result.strip() if pending == "model" and isinstance(result, str) and result.strip() else ""
            )
            return r.reply(spoken or r.say("handoff" if f.state == State.HANDOFF else "closing"))
        if pending == "grounding":
            if isinstance(result, list) and near_hit(result):
                self.grounding = None  # a near article is confirmed with the caller first, the model not asked
                return self._knowledge_answer(result)
            if not isinstance(result, KnowledgeUnavailable):
                return self._grounded_model_turn(result)
            self.grounding = None  # the search failed: said at once, the model not asked
        if pending == "model":
            grounded, self.grounding, self.grounded = self.grounded, None, None
            if isinstance(result, str) and result.strip():
                self.lead = ""  # the model's answer is spoken as it streams: nothing before it
                reply = self._answered(result.strip())
                hits = relevant_hits(grounded)
                if hits:  # what the model was given to answer from
                    reply.fields["citations"] = citations(hits)
                return reply
            f.machine.record("model", False, "model gave no text: answering from the knowledge base")
            if grounded is None:
                return self._search_effect(self.last_question)
            result = grounded  # the policy's own search for this question: no second search
        return self._knowledge_answer(result)

    def _knowledge_answer(self, result: Any) -> Reply:
        """The answer to a search's `result` (hits, none, unavailable, or no knowledge base)."""
        r, f, handoff = self.replies, self.facts, self.actions.handoff_available
        if result is None:
            return self._answered(r.say("no_knowledge"))
        if isinstance(result, KnowledgeUnavailable):  # failed or timed out: say so now, offer a specialist
            f.machine.record("knowledge_base", False, f"unavailable: {result.reason}")
            f.handoff_offered = handoff
            reply = self._answered(r.say("kb_unavailable" if handoff else "kb_unavailable_only"))
            reply.fields["answer"] = "kb_unavailable"
            return reply
        text, fields = knowledge_reply(result, f.lang, offer_handoff=handoff, question=self.last_question)
        near = near_hit(result) if fields["answer"] == NO_ANSWER else None
        if near is not None:  # "do you mean <title>?": answered only after a yes (`confirmed`)
            f.confirming = near
            text, fields["answer"] = r.say("confirm_topic", source=spoken_source(near)), CONFIRM
        f.handoff_offered = fields["answer"] == NO_ANSWER and handoff
        reply = self._answered(text)
        reply.fields.update(fields)
        return reply

    def confirmed(self, hit: KnowledgeHit) -> Reply:
        """The caller said yes to the near article `hit`: it is read out for the question asked, with its citation
        (still only where the knowledge base may be searched)."""
        f = self.facts
        if f.state == State.READY_TO_HELP:
            decision = self.actions.decide("search_knowledge_base")
            if not decision.allowed:
                return self.replies.reply(self.replies.say("denial"))
            f.machine.fire(Event.QUESTION_RECEIVED)
        reply = self._answered(answer_reply(hit, f.lang, answer_sentences(self.last_question, hit.text)))
        reply.fields.update({"answer": ANSWER_FALLBACK if hit.fallback else ANSWER, "confirmed": True,
                             "relevance": hit.relevance, "best": hit.entry_id, "gate": hit.gate,
                             "citations": citations([hit])})
        return reply

    def declined(self) -> Reply:
        """The caller said the near article is not what they mean: no information, a specialist offered."""
        handoff = self.actions.handoff_available
        self.facts.handoff_offered = handoff
        reply = self.replies.reply(self.replies.say("confirm_declined" if handoff else "confirm_declined_only"))
        reply.fields["answer"] = NO_ANSWER
        return reply

    def _answered(self, text: str) -> Reply:
        if self.facts.state == State.QUESTION_ANSWERING:
            self.facts.machine.fire(Event.ANSWER_COMPLETED)
        lead, self.lead = self.lead, ""
        return self.replies.reply(f"{lead} {text}" if lead else text)
