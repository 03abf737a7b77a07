"""What the caller does and which part answers it (`CallerTurns`): an utterance, a key, a silence, speech that
could not be heard. Pure.

Caller intents are checked in a fixed order on every utterance: handoff, goodbye (`endings.py`), "say that
again" (the last line verbatim, no new search), then what the state expects: the language in
LANGUAGE_SELECTION and the region in REGION_SELECTION (`selection.py`); in READY_TO_HELP a yes/no to a near
article the operator asked about (`confirmation.py`) or to an offered specialist, the answer to a region
question, an explicit language or region change, else a question (`questions.py`). After `max_misunderstood`
re-asks in a row the call is handed off (or closed).
"""

from __future__ import annotations

from ai_operator.dialogue import Reply
from policies.operator.catalog import bilingual
from policies.operator.confirmation import NO, YES, confirmation_reply, declines
from policies.operator.endings import Endings
from policies.operator.facts import PRE_DIALOGUE, CallFacts
from policies.operator.followups import is_hold_on, is_no, is_repeat_request, is_yes
from policies.operator.intents import is_closing, is_handoff_request
from policies.operator.kb_correction import settled_question
from policies.operator.language import DTMF_LANGUAGE, detect_language, language_change, spoken_language
from policies.operator.questions import Questions
from policies.operator.regions import (
    is_region_change_request,
    question_beside_region,
    resolve_region_change,
    resolve_region_correction,
)
from policies.operator.replies import Replies
from policies.operator.selection import Selection
from policies.operator.states import State

MAX_REPROMPTS = 2  # silences re-prompted before the give-up line


class CallerTurns:
    """The caller's events of one call, routed to the part that answers them."""

    def __init__(
        self,
        facts: CallFacts,
        replies: Replies,
        selection: Selection,
        questions: Questions,
        endings: Endings,
        *,
        max_misunderstood: int,
    ) -> None:
        self.facts = facts
        self.replies = replies
        self.selection = selection
        self.questions = questions
        self.endings = endings
        self.max_misunderstood = max_misunderstood

    def utterance(self, text: str) -> Reply:
        """Route the utterance; after `max_misunderstood` re-asks in a row, hand off (or say goodbye)."""
        f = self.facts
        f.reasked = False
        reply = self._route(text)
        if not f.reasked:
            f.misunderstood = 0
            return reply
        f.misunderstood += 1
        if f.misunderstood < self.max_misunderstood:
            return reply
        return self.endings.misunderstood_limit()

    def _route(self, text: str) -> Reply:
        r, f = self.replies, self.facts
        if f.state == State.ENDED:
            f.machine.record("utterance", False, "ENDED is immutable")
            return r.reply(None)
        if not (text or "").strip():
            return self.not_heard()
        f.silences = 0
        if f.state in PRE_DIALOGUE:
            f.machine.record("utterance", False, f"no dialogue yet in {f.state.value}")
            return r.reply(None)
        if is_handoff_request(text):
            return self.endings.handoff()
        if is_closing(text) and not (f.confirming is not None and declines(text)):  # "нет спасибо": not that one
            return self.endings.close()
        if f.state == State.HANDOFF:
            return r.reply(r.say("handoff_already"))
        if f.state == State.CLOSING:
            return self.endings.goodbye()
        if f.last_said and is_repeat_request(text):
            return r.repeat()
        if f.state == State.LANGUAGE_SELECTION:
            lang = detect_language(text) or spoken_language(text)  # named, or the one he simply talks in
            if lang:
                return self._and_question(self.selection.language_chosen(lang, text), text)
            f.reasked = True
            return r.reply(bilingual("language_reask"), language="ru")
        if f.state == State.REGION_SELECTION:
            change = language_change(text)
            if change and change != f.language:
                return self.selection.language_changed(change, text)
            return self._and_question(self.selection.region_answer(text), text)
        return self._ready(text)

    def _and_question(self, reply: Reply, text: str) -> Reply:
        """`reply` set the region; a question asked in the same words ("я из Павлодара, сколько стоит ...") is
        answered at once, after the region is said."""
        f = self.facts
        question = question_beside_region(text) if f.state == State.READY_TO_HELP and not f.awaiting else None
        if question is None:
            return reply
        asked = self.questions.ask(question, lead=self.replies.say("region_noted", region=f.region_name()))
        asked.tool_calls[:0] = reply.tool_calls
        return asked

    def _ready(self, text: str) -> Reply:
        """READY_TO_HELP (and QUESTION_ANSWERING): a follow-up, a change of language or region, or a question."""
        f, selection = self.facts, self.selection
        offered, f.handoff_offered = f.handoff_offered, False
        near, f.confirming = f.confirming, None
        if near is not None:  # "do you mean <title>?" was asked: yes reads it out, no offers a specialist
            said = confirmation_reply(text)
            if said.said == YES:
                return self.questions.confirmed(near)
            if said.said == NO and not said.rest:
                return self.questions.declined()
            text = said.rest or text  # "нет, я про роутер": the question asked again
        if offered and is_yes(text):
            return self.endings.handoff()
        if offered and is_no(text):
            return self.replies.reply(self.replies.say("offer_declined"))
        if f.awaiting:
            return selection.region_answer(text)
        change = language_change(text)
        if change:
            return selection.language_changed(change)
        if is_region_change_request(text):
            result = resolve_region_change(text)
            if result.selected or result.almaty:
                return selection.apply_region(result)
            f.awaiting = "region"
            return self.replies.reply(self.replies.say("region_change_prompt"))
        correction = resolve_region_correction(text, f.region_code)
        if correction is None and (settled := settled_question(text)) != text:  # "сколько стоит ... ой стоп я не в
            dropped = resolve_region_correction(settled, f.region_code)  # Актобе я в Уральске": the question dropped
            correction = dropped if dropped is not None and dropped.region_code != f.region_code else None
        if correction is not None:  # "не Павлодар а Караганда": a region change, not a question
            return selection.apply_region(correction)
        if is_hold_on(text):  # "стоп", "подождите": nothing to search for
            return self.replies.reply(self.replies.say("holding"))
        return self.questions.ask(text)

    def dtmf(self, digit: str) -> Reply:
        f = self.facts
        if f.state == State.ENDED:
            f.machine.record(f"dtmf:{digit}", False, "ENDED is immutable")
            return self.replies.reply(None)
        f.silences = 0
        if digit == "0":
            return self.endings.handoff()
        if f.state == State.LANGUAGE_SELECTION and digit in DTMF_LANGUAGE:
            return self.selection.language_chosen(DTMF_LANGUAGE[digit])
        f.machine.record(f"dtmf:{digit}", False, f"key {digit!r} has no meaning in {f.state.value}")
        return self.replies.reply(None)

    def silence(self) -> Reply:
        """Re-prompt what the state waits for; after `MAX_REPROMPTS` silences, give up."""
        r, f = self.replies, self.facts
        if f.state in (*PRE_DIALOGUE, State.HANDOFF, State.CLOSING, State.ENDED):
            return r.reply(None)
        f.silences += 1
        if f.silences > MAX_REPROMPTS:
            return self.endings.give_up()
        if f.state == State.LANGUAGE_SELECTION:
            return r.reply(bilingual("language_prompt"), language="ru")
        if f.state == State.REGION_SELECTION or f.awaiting:
            key = "region_clarify_almaty" if f.awaiting == "almaty" else "region_prompt"
            return r.reply(r.say(key))
        if f.confirming is not None and f.last_said:  # "do you mean ...?" still waits for its yes or no
            return r.repeat()
        return r.reply(r.say("idle"))

    def not_heard(self) -> Reply:
        if self.facts.state == State.ENDED:
            return self.replies.reply(None)
        self.facts.silences = 0
        return self.replies.reply(self.replies.say("not_heard"))
