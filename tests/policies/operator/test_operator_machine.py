"""Operator state machine: the seed's transition table, refusals that do not mutate, history, ENDED."""

import pytest

from policies.operator.machine import StateMachine
from policies.operator.states import Event, State

ALL = [s.value for s in State]
NON_ENDED = [s for s in ALL if s != "ENDED"]
TABLE = {
    ("CALL_STARTED", "call.started"): "GREETING",
    ("GREETING", "greeting.played"): "LANGUAGE_SELECTION",
    ("LANGUAGE_SELECTION", "language.selected"): "REGION_SELECTION",
    ("REGION_SELECTION", "region.selected"): "READY_TO_HELP",
    ("READY_TO_HELP", "question.received"): "QUESTION_ANSWERING",
    ("QUESTION_ANSWERING", "answer.completed"): "READY_TO_HELP",
}
ANY = {"handoff.requested": "HANDOFF", "closing.requested": "CLOSING", "call.ended": "ENDED"}


def expected(state: str, event: str) -> str | None:
    if state == "ENDED":
        return None
    return ANY.get(event) or TABLE.get((state, event))


@pytest.mark.parametrize("state", ALL)
@pytest.mark.parametrize("event", [e.value for e in Event])
def test_every_state_event_pair_follows_the_table(state: str, event: str) -> None:
    m = StateMachine(State(state))
    result = m.fire(event)
    want = expected(state, event)
    if want is None:
        assert not result.ok and result.error
        assert m.state == State(state)  # refused: not mutated
        assert m.history[-1] == {
            "state": state,
            "action": f"transition:{event}",
            "allowed": False,
            "reason": result.error,
        }
    else:
        assert result.ok and m.state == State(want) and result.from_state == State(state)
        assert m.history[-1]["allowed"] is True


def test_ended_refusal_names_immutability() -> None:
    m = StateMachine(State.ENDED)
    r = m.fire("handoff.requested")
    assert not r.ok and "immutable" in r.error and m.state == State.ENDED


def test_unknown_event_is_an_error_and_recorded() -> None:
    m = StateMachine(State.READY_TO_HELP)
    r = m.fire("teleport")
    assert not r.ok and "teleport" in r.error and m.state == State.READY_TO_HELP
    assert m.history[-1]["allowed"] is False


def test_linear_path_end_to_end() -> None:
    m = StateMachine()
    for ev in [
        "call.started",
        "greeting.played",
        "language.selected",
        "region.selected",
        "question.received",
    ]:
        assert m.fire(ev).ok
    assert m.state == State.QUESTION_ANSWERING
    assert m.fire("answer.completed").ok and m.state == State.READY_TO_HELP
    assert not m.fire("language.selected").ok and m.state == State.READY_TO_HELP
