"""States, events and the transition table of the operator conversation (seed 003). Pure data.

The linear path is CALL_STARTED -> GREETING -> LANGUAGE_SELECTION -> REGION_SELECTION -> READY_TO_HELP <->
QUESTION_ANSWERING; HANDOFF, CLOSING and ENDED are reachable from any non-ended state; ENDED is final.
"""

from __future__ import annotations

from enum import StrEnum


class State(StrEnum):
    CALL_STARTED = "CALL_STARTED"
    GREETING = "GREETING"
    LANGUAGE_SELECTION = "LANGUAGE_SELECTION"
    REGION_SELECTION = "REGION_SELECTION"
    READY_TO_HELP = "READY_TO_HELP"
    QUESTION_ANSWERING = "QUESTION_ANSWERING"
    HANDOFF = "HANDOFF"
    CLOSING = "CLOSING"
    ENDED = "ENDED"


class Event(StrEnum):
    CALL_STARTED = "call.started"
    GREETING_PLAYED = "greeting.played"
    LANGUAGE_SELECTED = "language.selected"
    REGION_SELECTED = "region.selected"
    QUESTION_RECEIVED = "question.received"
    ANSWER_COMPLETED = "answer.completed"
    HANDOFF_REQUESTED = "handoff.requested"
    CLOSING_REQUESTED = "closing.requested"
    CALL_ENDED = "call.ended"



# (from, event) -> to, for the linear part of the table
TRANSITIONS: dict[tuple[State, Event], State] = {
    (State.CALL_STARTED, Event.CALL_STARTED): State.GREETING,
    (State.GREETING, Event.GREETING_PLAYED): State.LANGUAGE_SELECTION,
    (State.LANGUAGE_SELECTION, Event.LANGUAGE_SELECTED): State.REGION_SELECTION,
    (State.REGION_SELECTION, Event.REGION_SELECTED): State.READY_TO_HELP,
    (State.READY_TO_HELP, Event.QUESTION_RECEIVED): State.QUESTION_ANSWERING,
    (State.QUESTION_ANSWERING, Event.ANSWER_COMPLETED): State.READY_TO_HELP,
}

# event -> to, allowed from any state except ENDED
FROM_ANY_NON_ENDED: dict[Event, State] = {
    Event.HANDOFF_REQUESTED: State.HANDOFF,
    Event.CLOSING_REQUESTED: State.CLOSING,
    Event.CALL_ENDED: State.ENDED,
}


def next_state(state: State, event: Event) -> State | None:
    """Where `event` leads from `state`, or None when the table does not allow it."""
    if state == State.ENDED:
        return None
    if event in FROM_ANY_NON_ENDED:
        return FROM_ANY_NON_ENDED[event]
    return TRANSITIONS.get((state, event))
