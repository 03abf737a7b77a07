"""How an operator call hands off or ends (`Endings`): the handoff and goodbye replies, the hand-over (or
goodbye) after too many turns not understood, the give-up after silences, and the line for an end the runtime
forces. Each goes through the tools (`ToolActions.handoff`, `end_call`), so a refused one changes nothing. Pure.
"""

from __future__ import annotations

from ai_operator.dialogue import Reply
from policies.operator.actions import ToolActions
from policies.operator.facts import PRE_DIALOGUE, CallFacts
from policies.operator.replies import Replies
from policies.operator.states import Event, State

FORCED_END_LINES = {"shutdown": "shutdown", "max_call_length": "max_call_length", "handoff_failed": "no_handoff"}


class Endings:
    """Handoff and closing replies of one call."""

    def __init__(self, facts: CallFacts, actions: ToolActions, replies: Replies) -> None:
        self.facts = facts
        self.actions = actions
        self.replies = replies

    def handoff(self) -> Reply:
        """The caller asks for a person (or presses 0): transferred, already transferred, or refused."""
        r = self.replies
        already = self.facts.state == State.HANDOFF
        call = self.actions.handoff()
        if already:
            return r.reply(r.say("handoff_already"))
        if not call.allowed:
            key = "no_handoff" if self.facts.state not in PRE_DIALOGUE else "denial"
            return r.reply(r.say(key))
        return r.reply(r.say("handoff"))

    def close(self) -> Reply:
        """The caller says goodbye: the closing line and the hang-up, unless the end of call is refused."""
        call = self.actions.end_call()
        if not call.allowed:
            return self.replies.reply(self.replies.say("denial"))
        return self.goodbye()

    def goodbye(self) -> Reply:
        r = self.replies
        return r.reply(r.say("closing"), hang_up=True, hang_up_reason="caller_goodbye", disposition="completed")

    def misunderstood_limit(self) -> Reply:
        """Too many turns in a row not understood: a specialist when one can take the call, else goodbye."""
        r, f = self.replies, self.facts
        f.machine.record("misunderstood", True, f"{f.misunderstood} turns in a row not understood")
        if self.actions.handoff_available:
            call = self.actions.handoff()
            if call.allowed:
                reply = r.reply(r.say("misunderstood_handoff"))
                reply.fields["escalation"] = "misunderstood"
                return reply
        self.actions.end_call("misunderstood", "misunderstood")
        return r.reply(r.say("misunderstood_goodbye"))

    def give_up(self) -> Reply:
        """Silence after every re-prompt: the give-up line and the hang-up."""
        r = self.replies
        self.actions.end_call("no_input", "no_input")
        return r.reply(r.say("give_up"), hang_up=True, hang_up_reason="no_input", disposition="no_input")

    def forced_end(self, reason: str) -> Reply:
        """The runtime ends the call (shutdown, max call length, a handoff that failed): the closing line for it,
        in the caller's language (both before a choice)."""
        r = self.replies
        key = FORCED_END_LINES.get(reason, "shutdown")
        if self.facts.state != State.ENDED and self.facts.state != State.CLOSING:
            self.facts.machine.fire(Event.CLOSING_REQUESTED)
        return r.reply(r.say(key), hang_up=True, hang_up_reason=reason, disposition=reason)
