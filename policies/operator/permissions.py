"""Tool permission matrix and the hard guardrail on `search_knowledge_base` (seed 003). Pure.

`check_tool` is the one gate for every tool use, the model's and the policy's own: first the per-state matrix,
then, for `search_knowledge_base`, the guardrail (language ru/kk, region status `selected`, non-empty region
code, state READY_TO_HELP or QUESTION_ANSWERING), whatever a prompt or model asks.
"""

from __future__ import annotations

from dataclasses import dataclass

from policies.operator.language import LANGUAGES
from policies.operator.states import State

SET_LANGUAGE = "set_language"
SET_REGION = "set_region"
SEARCH_KB = "search_knowledge_base"
HANDOFF = "request_human_handoff"
END_CALL = "end_call"
TOOLS: tuple[str, ...] = (SET_LANGUAGE, SET_REGION, SEARCH_KB, HANDOFF, END_CALL)

MATRIX: dict[State, frozenset[str]] = {
    State.CALL_STARTED: frozenset(),
    State.GREETING: frozenset(),
    State.LANGUAGE_SELECTION: frozenset({SET_LANGUAGE, HANDOFF, END_CALL}),
    State.REGION_SELECTION: frozenset({SET_REGION, SET_LANGUAGE, HANDOFF, END_CALL}),
    State.READY_TO_HELP: frozenset({SEARCH_KB, SET_LANGUAGE, SET_REGION, HANDOFF, END_CALL}),
    State.QUESTION_ANSWERING: frozenset({SEARCH_KB, HANDOFF, END_CALL, SET_LANGUAGE, SET_REGION}),
    State.HANDOFF: frozenset({END_CALL}),
    State.CLOSING: frozenset({END_CALL}),
    State.ENDED: frozenset(),
}
# TZ-11: a tool repeated in the state it leads to is accepted and changes nothing (a second handoff request
# while in HANDOFF), although the matrix does not list it there.
IDEMPOTENT_IN: dict[str, State] = {HANDOFF: State.HANDOFF}
SEARCH_STATES = frozenset({State.READY_TO_HELP, State.QUESTION_ANSWERING})
REGION_SELECTED = "selected"


@dataclass(frozen=True)
class Decision:
    allowed: bool
    reason: str


def guardrail(state: State, language: str | None, region_status: str, region_code: str) -> Decision:
    """The hard guardrail for `search_knowledge_base`, condition by condition."""
    if language not in LANGUAGES:
        return Decision(False, f"guardrail: language not selected (got {language!r}, need ru or kk)")
    if region_status != REGION_SELECTED:
        return Decision(False, f"guardrail: region status is {region_status!r}, need 'selected'")
    if not region_code:
        return Decision(False, "guardrail: region code is empty")
    if state not in SEARCH_STATES:
        return Decision(False, f"guardrail: state {state.value} is not READY_TO_HELP or QUESTION_ANSWERING")
    return Decision(True, "guardrail passed: language, region and state allow a search")


def check_tool(
    state: State, tool: str, language: str | None, region_status: str, region_code: str
) -> Decision:
    """May `tool` run now? The matrix first, then the guardrail for the knowledge-base search."""
    if tool not in TOOLS:
        return Decision(False, f"unknown tool {tool!r} (known: {', '.join(TOOLS)})")
    if tool not in MATRIX[state]:
        return Decision(False, f"{tool} is not allowed in {state.value}")
    if tool == SEARCH_KB:
        return guardrail(state, language, region_status, region_code)
    return Decision(True, f"{tool} allowed in {state.value}")


def expected_allowed(state: State, tool: str) -> bool:
    """What the seed's table (plus the TZ-11 idempotent repeat) says about `tool` in `state`, before the
    guardrail's conditions on language and region. The self-test and the tests check the code against it."""
    return tool in MATRIX[state] or IDEMPOTENT_IN.get(tool) == state


def allowed_tools(state: State, language: str | None, region_status: str, region_code: str) -> list[str]:
    """The tools that `check_tool` would allow now, in matrix order."""
    return [t for t in TOOLS if check_tool(state, t, language, region_status, region_code).allowed]
