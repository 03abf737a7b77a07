"""One turn driver for the phone and the console: caller events in, decided turns out. Clock given, no I/O.

It owns the turn boundary (`TurnHolder`: a dangling fragment is held and merged with its continuation), the
labels a non-speech caller event is recorded with, and the rule that once the runtime forces the end of a call
(the daemon shuts down, the call is too long) no new turn starts. The phone (`daemon/call.py`, monotonic clock)
and `ai-operator call` (`console.py`, virtual clock) both drive a `Conversation` through it, so a script and a
phone call take the same decisions.
"""

from __future__ import annotations

from dataclasses import dataclass

from ai_operator.conversation import Conversation, TurnOutcome
from ai_operator.dialogue import Reply
from ai_operator.turn_boundary import TurnHolder

SILENCE_LABEL = "[silence]"
NOT_HEARD_LABEL = "[not-heard]"


def dtmf_label(digit: str) -> str:
    return f"[dtmf {digit}]"


@dataclass(frozen=True)
class Turn:
    """One decided turn: what the caller did (`None` for the greeting or a forced end) and the outcome."""

    caller: str | None
    outcome: TurnOutcome
    at: float
    held_ms: float = 0.0  # how long the turn boundary held the text before deciding

    @property
    def reply(self) -> Reply:
        return self.outcome.reply


class TurnDriver:
    """Feeds one conversation, holding dangling fragments; see the module doc."""

    def __init__(self, conversation: Conversation) -> None:
        self.conversation = conversation
        session = conversation.session
        self.holder = TurnHolder(session.utterance_may_continue, session.hold_s)
        self.closed: str | None = None  # the reason the runtime forced the end; then no new turn starts

    @property
    def pending(self) -> str | None:
        """A fragment being held for its continuation."""
        return self.holder.pending

    def deadline(self) -> float | None:
        """When a held fragment must be decided on as it stands."""
        return self.holder.deadline()

    def caller_speaking_again(self) -> None:
        """The caller started speaking while a fragment is held: keep holding until that speech is heard."""
        self.holder.continuation_started()

    async def start(self, now: float) -> Turn:
        return Turn(None, await self.conversation.start(), now)

    async def heard(self, text: str, now: float) -> list[Turn]:
        """A transcript at `now`: the turns to act on now, in order (none while a fragment is held)."""
        if self.closed:
            return []
        return [await self._decide(t, now, 0.0) for t in self.holder.feed(text, now)]

    async def due(self, now: float) -> list[Turn]:
        """A held fragment whose hold has run out, decided as it stands."""
        if self.closed:
            return []
        return [await self._decide(t, now, self.holder.hold_s * 1000) for t in self.holder.poll(now)]

    async def flush(self, now: float) -> list[Turn]:
        """End of input: whatever is held, at once."""
        if self.closed:
            return []
        return [await self._decide(t, now, self.holder.hold_s * 1000) for t in self.holder.flush()]

    async def dtmf(self, digit: str, now: float) -> Turn | None:
        if self.closed:
            return None
        return Turn(dtmf_label(digit), await self.conversation.dtmf(digit), now)

    async def silence(self, now: float) -> Turn | None:
        if self.closed:
            return None
        return Turn(SILENCE_LABEL, await self.conversation.silence(), now)

    async def not_heard(self, now: float) -> Turn | None:
        if self.closed:
            return None
        return Turn(NOT_HEARD_LABEL, await self.conversation.not_heard(), now)

    async def forced_end(self, reason: str, now: float) -> Turn | None:
        """The runtime ends the call (`reason`: "shutdown", "max_call_length"): the policy's closing line; from
        now on no new turn starts. A second call is a no-op (None)."""
        if self.closed:
            return None
        self.closed = reason
        self.holder.flush()  # a held fragment is not answered any more
        return Turn(None, await self.conversation.forced_end(reason), now)

    async def _decide(self, text: str, now: float, held_ms: float) -> Turn:
        return Turn(text, await self.conversation.utterance(text), now, held_ms)
