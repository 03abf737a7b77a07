"""Operator tool matrix (through real sessions), the hard guardrail condition by condition, handoff idempotency."""

import re
from pathlib import Path

import pytest

from ai_operator.dialogue import KnowledgeSearch
from policies.operator.permissions import MATRIX, expected_allowed, guardrail
from policies.operator.selftest_support import session_in
from policies.operator.states import State

SPEC = Path(__file__).resolve().parents[2] / "data" / "specs" / "operator-permission-matrix.md"  # from seed 003


def test_the_one_permission_table_is_the_specs() -> None:
    """MATRIX (used by the policy, its self-test and these tests) against the spec's table (a verbatim copy of
    seed 003's section, kept in the repository so that a clone checks it too)."""
    table = SPEC.read_text()
    seen = {}
    for state, tools in re.findall(r"^\| ([A-Z_]+) \| (.+?) \|$", table, re.M):
        seen[state] = set() if tools.strip() == "none" else set(re.findall(r"`(\w+)`", tools))
    assert len(seen) == 9
    assert seen == {st.value: set(tools) for st, tools in MATRIX.items()}


ARGS = {
    "set_language": {"language": "kk"},
    "set_region": {"region": "Павлодар"},
    "search_knowledge_base": {"query": "тариф"},
    "request_human_handoff": {},
    "end_call": {},
}


@pytest.mark.parametrize("state", [st.value for st in MATRIX])
@pytest.mark.parametrize("tool", list(ARGS))
def test_matrix_cell(state: str, tool: str) -> None:
    s = session_in(state)
    before = s.snapshot()
    call = s.call_tool(tool, ARGS[tool])
    want = expected_allowed(State(state), tool)
    assert call.allowed is want, call.reason
    if not want:
        after = s.snapshot()
        assert {k: after[k] for k in ("state", "language", "region_code")} == {
            k: before[k] for k in ("state", "language", "region_code")
        }
        assert after["history"][-1] == {
            "state": state,
            "action": f"tool:{tool}",
            "allowed": False,
            "reason": call.reason,
        }
        assert call.effect is None


def test_allowed_tools_applied() -> None:
    s = session_in("READY_TO_HELP")
    assert s.call_tool("set_region", {"region": "Павлодар"}).result == {"region_code": "KZ-55"}
    assert s.region_code == "KZ-55"
    assert s.call_tool("set_region", {"region_code": "kz-79"}).allowed and s.region_code == "KZ-79"
    assert s.call_tool("set_language", {"language": "kk"}).allowed and s.language == "kk"
    end = s.call_tool("end_call", {})
    assert end.allowed and s.state == State.CLOSING


def test_bad_tool_arguments_are_refused_with_the_field_named() -> None:
    s = session_in("READY_TO_HELP")
    c = s.call_tool("set_language", {"language": "fr"})
    assert not c.allowed and "language" in c.reason and s.language == "ru"
    c = s.call_tool("set_region", {"region": "Москва"})
    assert not c.allowed and "region" in c.reason and s.region_code == "KZ-35"
    c = s.call_tool("search_knowledge_base", {})
    assert not c.allowed and "query" in c.reason
    c = s.call_tool("delete_everything", {})
    assert not c.allowed and "unknown tool" in c.reason


GOOD = (State.READY_TO_HELP, "ru", "selected", "KZ-35")


@pytest.mark.parametrize(
    "args",
    [
        (State.READY_TO_HELP, "", "selected", "KZ-35"),
        (State.READY_TO_HELP, "en", "selected", "KZ-35"),
        (State.READY_TO_HELP, "ru", "none", "KZ-35"),
        (State.READY_TO_HELP, "ru", "ambiguous", "KZ-35"),
        (State.READY_TO_HELP, "kk", "selected", ""),
        (State.REGION_SELECTION, "ru", "selected", "KZ-35"),
        (State.LANGUAGE_SELECTION, "ru", "selected", "KZ-35"),
        (State.HANDOFF, "ru", "selected", "KZ-35"),
    ],
)
def test_guardrail_each_condition(args: tuple) -> None:
    assert guardrail(*GOOD).allowed
    assert guardrail(State.QUESTION_ANSWERING, "kk", "selected", "KZ-75").allowed
    assert not guardrail(*args).allowed


def test_search_denied_while_almaty_is_ambiguous_even_if_state_forced() -> None:
    s = session_in("REGION_SELECTION")
    s.on_utterance("Алматы")
    assert s.region_status == "ambiguous"
    s.machine.state = State.READY_TO_HELP  # a buggy caller forcing the state still cannot search
    c = s.call_tool("search_knowledge_base", {"query": "тариф"})
    assert not c.allowed and "region" in c.reason


def test_model_search_arguments_are_overridden_by_the_session() -> None:
    s = session_in("READY_TO_HELP", language="қазақша", region="Шымкент")
    c = s.call_tool("search_knowledge_base", {"query": "тариф", "language": "en", "region_code": "KZ-75"})
    assert c.allowed and c.effect == KnowledgeSearch("тариф", "kk", {"region": "KZ-79"}, fallback_languages=("ru",))


def test_handoff_idempotent() -> None:
    s = session_in("QUESTION_ANSWERING")
    first = s.call_tool("request_human_handoff", {})
    assert first.allowed and s.state == State.HANDOFF
    n = len(s.history)
    second = s.call_tool("request_human_handoff", {})
    assert second.allowed and "already in handoff" in second.reason and s.state == State.HANDOFF
    assert [h["action"] for h in s.history[n:]] == ["tool:request_human_handoff"]  # no transition


def test_handoff_unavailable_does_not_transfer() -> None:
    s = session_in("READY_TO_HELP", handoff_available=False)
    r = s.on_utterance("живой человек")
    assert not r.transfer and s.state == State.READY_TO_HELP
    assert r.tool_calls[0].name == "request_human_handoff" and not r.tool_calls[0].allowed
    assert "невозможно" in r.text
