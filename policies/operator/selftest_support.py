"""Helpers for the operator self-test: build a session in a given state, wrap checks as `SelfTestCase`s. Pure."""

from __future__ import annotations

from collections.abc import Callable

from ai_operator.dialogue import SelfTestCase, SelfTestResult
from policies.operator.session import OperatorSession
from policies.operator.states import Event, State

TOOL_ARGS: dict[str, dict[str, str]] = {
    "set_language": {"language": "kk"},
    "set_region": {"region": "Павлодар"},
    "search_knowledge_base": {"query": "сколько стоит интернет"},
    "request_human_handoff": {},
    "end_call": {},
}


def session_in(
    state: str, *, language: str = "русский", region: str = "Караганда", **options: bool
) -> OperatorSession:
    """A fresh session driven through the real event handlers to `state`."""
    s = OperatorSession("selftest", **options)
    if state == "CALL_STARTED":
        return s
    if state == "GREETING":
        s.machine.fire(Event.CALL_STARTED)
        return s
    s.start()
    if state == "LANGUAGE_SELECTION":
        return s
    s.on_utterance(language)
    if state == "REGION_SELECTION":
        return s
    s.on_utterance(region)
    if state == "READY_TO_HELP":
        return s
    if state == "QUESTION_ANSWERING":
        s.on_utterance("сколько стоит домашний интернет?")
    elif state == "HANDOFF":
        s.on_utterance("соедините с оператором")
    elif state == "CLOSING":
        s.on_utterance("до свидания")
    elif state == "ENDED":
        s.on_call_ended("caller")
    check(s.state == State(state), f"could not reach {state}, got {s.state.value}")
    return s


def check(condition: bool, message: str) -> None:
    """Fail the current case with `message` unless `condition` holds."""
    if not condition:
        raise AssertionError(message)


def case(name: str, body: Callable[[], None]) -> SelfTestCase:
    """A `SelfTestCase` that passes when `body` returns, and fails with the assertion message when it raises."""

    def run() -> SelfTestResult:
        try:
            body()
        except AssertionError as exc:
            return SelfTestResult(name, False, str(exc))
        return SelfTestResult(name, True)

    return SelfTestCase(name, run)
