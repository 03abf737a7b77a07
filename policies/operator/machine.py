"""The operator state machine: applies table transitions and keeps the session history. Pure.

`fire(event)` returns a `Transition` result; a transition the table does not allow is an error result, leaves
the state untouched and is recorded in `history` as a denied action. Allowed transitions and tool decisions are
recorded too (`allowed: True`), so the history is the full audit trail of the call.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from policies.operator.states import Event, State, next_state


@dataclass(frozen=True)
class Transition:
    """Outcome of one `fire`: `ok` with the new state, or an `error` and the unchanged state."""

    ok: bool
    event: str
    from_state: State
    error: str = ""


@dataclass
class StateMachine:
    state: State = State.CALL_STARTED
    history: list[dict[str, Any]] = field(default_factory=list)

    def record(self, action: str, allowed: bool, reason: str) -> None:
        """Append one action (transition, tool decision) to the history."""
        self.history.append(
            {"state": str(self.state), "action": action, "allowed": allowed, "reason": reason}
        )

    def can(self, event: Event) -> bool:
        return next_state(self.state, event) is not None

    def fire(self, event: Event | str) -> Transition:
        """Apply `event`; on an invalid transition return an error result and do not change the state."""
        try:
            ev = Event(event)
        except ValueError:
            reason = f"unknown event {event!r}"
            self.record(f"transition:{event}", False, reason)
            return Transition(False, str(event), self.state, reason)
        before = self.state
        target = next_state(before, ev)
        if target is None:
            reason = (
                "ENDED is immutable"
                if before == State.ENDED
                else f"{ev.value} is not allowed from {before.value}"
            )
            self.record(f"transition:{ev.value}", False, reason)
            return Transition(False, ev.value, before, reason)
        self.record(f"transition:{ev.value}", True, f"{before.value} -> {target.value}")
        self.state = target
        return Transition(True, ev.value, before)
