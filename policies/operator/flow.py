"""`OperatorSession`: the event handlers of the operator policy (greeting, language, region, questions). Pure.

Caller intents are checked in a fixed order on every utterance: handoff, goodbye, "say that again" (the last line
verbatim, no new search), then what the state expects (language in LANGUAGE_SELECTION, region in
REGION_SELECTION, and in READY_TO_HELP a yes/no to a specialist just offered, an explicit language change, an
explicit region change, or else a question). A question mentioning a city never changes the region. A language
answer that also names a place ("по-русски, я из Павлодара") sets both. What the caller means is decided by the
detectors (`language`, `intents`, `regions`, built on `grammar` and `nlu_*`). Search results go through the
relevance gate (answers.py): below it the caller is offered a specialist.
"""

from __future__ import annotations

from typing import Any

from ai_operator.dialogue import KnowledgeSearch, ModelTurn, Reply
from policies.operator.answers import NO_ANSWER, knowledge_reply
from policies.operator.catalog import GREETING, bilingual
from policies.operator.followups import is_no, is_repeat_request, is_yes
from policies.operator.intents import is_closing, is_handoff_request
from policies.operator.language import DTMF_LANGUAGE, detect_language, language_change
from policies.operator.regions import (
    RegionResult,
    is_region_change_request,
    resolve_almaty_answer,
    resolve_region,
    resolve_region_change,
)
from policies.operator.session import REGION_AMBIGUOUS, SessionCore
from policies.operator.states import Event, State
from policies.operator.tools import specs_for

MAX_REPROMPTS = 2  # silences re-prompted before the give-up line
PRE_DIALOGUE = (State.CALL_STARTED, State.GREETING)


class OperatorSession(SessionCore):
    """One conversation; see the package docstring for the contract."""

    def start(self) -> Reply:
        if self.state != State.CALL_STARTED:
            self.machine.record("start", False, f"already started (state {self.state.value})")
            return self.reply(None)
        self.machine.fire(Event.CALL_STARTED)
        self.machine.fire(Event.GREETING_PLAYED)
        return self.reply(GREETING, language="ru")

    def on_utterance(self, text: str) -> Reply:
        """Route the utterance; after `max_misunderstood` re-asks in a row, hand off (or say goodbye)."""
        self._reasked = False
        reply = self._route_utterance(text)
        if not self._reasked:
            self.misunderstood = 0
            return reply
        self.misunderstood += 1
        if self.misunderstood < self.max_misunderstood:
            return reply
        return self._misunderstood_limit()

    def _misunderstood_limit(self) -> Reply:
        self.machine.record("misunderstood", True, f"{self.misunderstood} turns in a row not understood")
        if self.handoff_available:
            call = self.handoff()
            if call.allowed:
                reply = self.reply(self.say("misunderstood_handoff"))
                reply.fields["escalation"] = "misunderstood"
                return reply
        self.end_call("misunderstood", "misunderstood")
        return self.reply(self.say("misunderstood_goodbye"))

    def _route_utterance(self, text: str) -> Reply:
        if self.state == State.ENDED:
            self.machine.record("utterance", False, "ENDED is immutable")
            return self.reply(None)
        if not (text or "").strip():
            return self.on_not_heard()
        self.silences = 0
        if self.state in PRE_DIALOGUE:
            self.machine.record("utterance", False, f"no dialogue yet in {self.state.value}")
            return self.reply(None)
        if is_handoff_request(text):
            return self._handoff_reply()
        if is_closing(text):
            return self._close_reply()
        if self.state == State.HANDOFF:
            return self.reply(self.say("handoff_already"))
        if self.state == State.CLOSING:
            return self.reply(
                self.say("closing"), hang_up=True, hang_up_reason="caller_goodbye", disposition="completed"
            )
        if self.last_said and is_repeat_request(text):
            return self._repeat()
        if self.state == State.LANGUAGE_SELECTION:
            lang = detect_language(text)
            if lang:
                return self._language_chosen(lang, text)
            self._reasked = True
            return self.reply(bilingual("language_reask"), language="ru")
        if self.state == State.REGION_SELECTION:
            change = language_change(text)
            if change and change != self.language:
                return self._language_changed(change, text)
            return self._region_answer(text)
        return self._ready(text)

    def on_dtmf(self, digit: str) -> Reply:
        if self.state == State.ENDED:
            self.machine.record(f"dtmf:{digit}", False, "ENDED is immutable")
            return self.reply(None)
        self.silences = 0
        if digit == "0":
            return self._handoff_reply()
        if self.state == State.LANGUAGE_SELECTION and digit in DTMF_LANGUAGE:
            return self._language_chosen(DTMF_LANGUAGE[digit])
        self.machine.record(f"dtmf:{digit}", False, f"key {digit!r} has no meaning in {self.state.value}")
        return self.reply(None)

    def on_silence(self) -> Reply:
        if self.state in (*PRE_DIALOGUE, State.HANDOFF, State.CLOSING, State.ENDED):
            return self.reply(None)
        self.silences += 1
        if self.silences > MAX_REPROMPTS:
            self.end_call("no_input", "no_input")
            return self.reply(
                self.say("give_up"), hang_up=True, hang_up_reason="no_input", disposition="no_input"
            )
        if self.state == State.LANGUAGE_SELECTION:
            return self.reply(bilingual("language_prompt"), language="ru")
        if self.state == State.REGION_SELECTION or self.awaiting:
            key = "region_clarify_almaty" if self.awaiting == "almaty" else "region_prompt"
            return self.reply(self.say(key))
        return self.reply(self.say("idle"))

    def on_not_heard(self) -> Reply:
        if self.state == State.ENDED:
            return self.reply(None)
        self.silences = 0
        return self.reply(self.say("not_heard"))

    def on_forced_end(self, reason: str) -> Reply:
        """The runtime ends the call (shutdown, max call length): the closing line for it, in the caller's
        language (both before a choice)."""
        key = reason if reason in ("shutdown", "max_call_length") else "shutdown"
        if self.state != State.ENDED and self.state != State.CLOSING:
            self.machine.fire(Event.CLOSING_REQUESTED)
        return self.reply(self.say(key), hang_up=True, hang_up_reason=reason, disposition=reason)

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
        text, fields = knowledge_reply(result, self.lang, offer_handoff=self.handoff_available)
        self.handoff_offered = fields["answer"] == NO_ANSWER and self.handoff_available
        reply = self._answered(text)
        reply.fields.update(fields)
        return reply

    def utterance_may_continue(self, text: str) -> bool:
        return False

    def on_call_ended(self, ended_by: str) -> None:
        if self.state != State.ENDED:
            self.ended_by = ended_by
            self._pending = ""
            self.machine.fire(Event.CALL_ENDED)

    # --- helpers ---------------------------------------------------------------------------------------------
    def _handoff_reply(self) -> Reply:
        already = self.state == State.HANDOFF
        call = self.handoff()
        if already:
            return self.reply(self.say("handoff_already"))
        if not call.allowed:
            key = "no_handoff" if self.state not in PRE_DIALOGUE else "denial"
            return self.reply(self.say(key))
        return self.reply(self.say("handoff"))

    def _close_reply(self) -> Reply:
        call = self.end_call()
        if not call.allowed:
            return self.reply(self.say("denial"))
        return self.reply(
            self.say("closing"), hang_up=True, hang_up_reason="caller_goodbye", disposition="completed"
        )

    def _language_chosen(self, lang: str, text: str = "") -> Reply:
        call = self.set_language(lang)
        if not call.allowed:
            return self.reply(bilingual("language_reask"), language="ru")
        region = resolve_region(text) if text else None  # "русский, я из Павлодара": both in one answer
        if region and (region.selected or region.almaty):
            return self._apply_region(region, prefix=self.say("language_changed"))
        return self.reply(f"{self.say('language_changed')} {self.say('region_prompt')}")

    def _language_changed(self, lang: str, text: str = "") -> Reply:
        call = self.set_language(lang)
        if not call.allowed:
            return self.reply(self.say("denial"))
        region = resolve_region(text) if text and self.state == State.REGION_SELECTION else None
        if region and (region.selected or region.almaty):
            return self._apply_region(region, prefix=self.say("language_changed"))
        if self.state == State.REGION_SELECTION or self.awaiting:
            key = "region_clarify_almaty" if self.awaiting == "almaty" else "region_prompt"
            return self.reply(f"{self.say('language_changed')} {self.say(key)}")
        return self.reply(f"{self.say('language_changed')} {self.say('ready', region=self.region_name())}")

    def _region_answer(self, text: str) -> Reply:
        result = resolve_almaty_answer(text) if self.awaiting == "almaty" else resolve_region(text)
        return self._apply_region(result)

    def _apply_region(self, result: RegionResult, prefix: str = "") -> Reply:
        lead = f"{prefix} " if prefix else ""
        if result.selected:
            call = self.set_region(result)
            if not call.allowed:
                return self.reply(self.say("denial"))
            return self.reply(lead + self.say("ready", region=self.region_name()))
        if result.almaty:
            self.awaiting = "almaty"
            if self.state == State.REGION_SELECTION:
                self.region_status = REGION_AMBIGUOUS
            return self.reply(lead + self.say("region_clarify_almaty"))
        self.machine.record("region", False, f"region {result.status}: {result.reason}")
        key = "region_clarify_almaty" if self.awaiting == "almaty" else "region_reask"
        self._reasked = True
        return self.reply(self.say(key))

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
        )
        return self.reply(None, effect=turn)

    def _search_effect(self, query: str) -> Reply:
        call = self.search(query)
        if not call.allowed or not isinstance(call.effect, KnowledgeSearch):
            return self._answered(self.say("denial"))
        self._pending = "search"
        return self.reply(None, effect=call.effect)

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
