"""`OperatorSession`: one call of the Russian/Kazakh operator policy (seed 003), as a `PolicySession`. Pure.

The contract's events: the greeting, utterances, DTMF, silence, hearing problems, a forced end, the end of the
call. Caller intents are checked in a fixed order on every utterance: handoff, goodbye, "say that again" (the
last line verbatim, no new search), then what the state expects (language in LANGUAGE_SELECTION, region in
REGION_SELECTION, questions in READY_TO_HELP: `questions.py`). After `max_misunderstood` re-asks in a row the
call is handed off (or closed). The steps live in `selection.py` and `questions.py`, the tools in `actions.py`,
the state in `facts.py`.
"""

from __future__ import annotations

from ai_operator.dialogue import Reply
from policies.operator.catalog import GREETING, bilingual
from policies.operator.completeness import utterance_complete
from policies.operator.facts import PRE_DIALOGUE
from policies.operator.followups import is_repeat_request
from policies.operator.intents import is_closing, is_handoff_request
from policies.operator.language import (
    DTMF_LANGUAGE,
    detect_language,
    language_change,
)
from policies.operator.questions import Answering
from policies.operator.states import Event, State

MAX_REPROMPTS = 2  # silences re-prompted before the give-up line


FORCED_END_LINES = {"shutdown": "shutdown", "max_call_length": "max_call_length", "handoff_failed": "no_handoff"}


class OperatorSession(Answering):
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
        """The runtime ends the call (shutdown, max call length, a handoff that failed): the closing line for it,
        in the caller's language (both before a choice)."""
        key = FORCED_END_LINES.get(reason, "shutdown")
        if self.state != State.ENDED and self.state != State.CLOSING:
            self.machine.fire(Event.CLOSING_REQUESTED)
        return self.reply(self.say(key), hang_up=True, hang_up_reason=reason, disposition=reason)

    def utterance_may_continue(self, text: str) -> bool:
        return False

    def utterance_complete(self, text: str) -> bool | None:
        """Asked at a short pause: is `text` already a whole answer for this state (`completeness.py`)?"""
        return utterance_complete(self, text)

    def on_call_ended(self, ended_by: str) -> None:
        if self.state != State.ENDED:
            self.ended_by = ended_by
            self._pending = ""
            self.machine.fire(Event.CALL_ENDED)
