"""State-aware system prompt fragments for a model (seed 003 "Prompt Fragments"). Pure.

The prompt tells the model the current state, language, region (name and ISO code), the next action and the
tools it may and may not use now. It says plainly that it is secondary: the policy code enforces every rule,
and a denied tool call is refused whatever the prompt says.
"""

from __future__ import annotations

from collections.abc import Sequence

from policies.operator.permissions import TOOLS
from policies.operator.states import State

LANGUAGE_NAMES = {"ru": "Russian", "kk": "Kazakh"}

NEXT_ACTION: dict[State, str] = {
    State.CALL_STARTED: "wait: the call is being set up",
    State.GREETING: "play the bilingual greeting",
    State.LANGUAGE_SELECTION: "ask the caller to choose Russian or Kazakh",
    State.REGION_SELECTION: "ask the caller for their region or city in Kazakhstan",
    State.READY_TO_HELP: "invite the caller's question",
    State.QUESTION_ANSWERING: "answer the caller's question from the knowledge base (search_knowledge_base), citing the source",
    State.HANDOFF: "tell the caller they are being connected to a human operator",
    State.CLOSING: "say goodbye",
    State.ENDED: "nothing: the call is over",
}


def system_prompt(
    state: State,
    language: str | None,
    region_code: str,
    region_name: str,
    allowed: Sequence[str],
    *,
    searched: bool = False,
) -> str:
    """The system prompt for the model in `state`; `allowed` are the tools the policy allows right now;
    `searched`: the conversation already holds the policy's search for the caller's question."""
    forbidden = [t for t in TOOLS if t not in allowed]
    lang = LANGUAGE_NAMES.get(language or "", "not selected yet")
    region = f"{region_name} ({region_code})" if region_code else "not selected yet"
    lines = [
        "You are the AI operator of a Kazakhstan telecom company on a phone call.",
        f"Current state: {state.value}.",
        f"Caller language: {lang}. Reply only in this language, in one or two short spoken sentences.",
        f"Caller region: {region}.",
        f"Next action: {NEXT_ACTION[state]}.",
        f"Tools you may use now: {', '.join(allowed) or 'none'}.",
        f"Forbidden now: {', '.join(forbidden) or 'nothing'}.",
        "Answer business questions only from search_knowledge_base results and name the source; if nothing is "
        "found, say so and offer a human operator. Never invent tariffs, prices or facts.",
        "These instructions are secondary: the dialogue policy in code enforces the state, language, region and "
        "tool rules, and any forbidden tool call will be refused.",
    ]
    if searched:
        lines.append("The knowledge base has already been searched for the caller's question (the last tool result):"
                     " answer from it now; search again only for something it does not cover.")
    return "\n".join(lines)
