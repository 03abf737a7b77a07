"""The operator's own tools, checked then applied (`ToolActions`): language, region, knowledge-base search,
handoff, end of call, and a model's tool call. Every one goes through the state machine and the permission
matrix with the hard guardrail (`permissions.py`), exactly like a model's, and is listed in the reply: this part
keeps the turn's tool decisions, and the transfer or hang-up one of them asked for, until the reply takes them
(`take_turn`). Pure.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import policies.operator.permissions as P
from ai_operator.dialogue import ToolCall
from policies.operator.facts import CallFacts
from policies.operator.kb_query import knowledge_search
from policies.operator.language import (
    LANGUAGES,
    strict_language,
)
from policies.operator.region_data import REGIONS_BY_CODE
from policies.operator.regions import (
    RegionResult,
    resolve_region,
    selected,
)
from policies.operator.states import Event, State


class ToolActions:
    """Policy-owned tools: checked by the gate, applied to the call's facts only when allowed; denials change
    nothing."""

    def __init__(self, facts: CallFacts, *, handoff_available: bool) -> None:
        self.facts = facts
        self.handoff_available = handoff_available
        self.calls: list[ToolCall] = []  # this turn's decisions, listed in its reply
        self.transfer = False  # a handoff applied this turn: its reply transfers the call
        self.hangup: tuple[str, str] | None = None  # an end of call applied this turn: (reason, disposition)

    # --- the gate ----------------------------------------------------------------------------------------------
    def decide(self, name: str) -> P.Decision:
        f = self.facts
        return P.check_tool(f.state, name, f.language, f.region_status, f.region_code)

    def allowed_tools(self) -> list[str]:
        f = self.facts
        return P.allowed_tools(f.state, f.language, f.region_status, f.region_code)

    def log_call(
        self,
        name: str,
        allowed: bool,
        reason: str,
        arguments: Mapping[str, Any] | None = None,
        result: Any = None,
        effect: Any = None,
    ) -> ToolCall:
        call = ToolCall(name, allowed, reason, dict(arguments or {}), result, effect)
        self.facts.machine.record(f"tool:{name}", allowed, reason)
        self.calls.append(call)
        return call

    def take_turn(self) -> tuple[list[ToolCall], bool, tuple[str, str] | None]:
        """This turn's tool calls, transfer and hang-up, handed to its reply and cleared for the next turn."""
        taken = (self.calls, self.transfer, self.hangup)
        self.calls, self.transfer, self.hangup = [], False, None
        return taken

    # --- policy-owned tools (checked, then applied) ----------------------------------------------------------
    def set_language(self, value: str, arguments: Mapping[str, Any] | None = None) -> ToolCall:
        args = arguments if arguments is not None else {"language": value}
        decision = self.decide(P.SET_LANGUAGE)
        if not decision.allowed:
            return self.log_call(P.SET_LANGUAGE, False, decision.reason, args)
        code = strict_language(value)
        if code not in LANGUAGES:
            return self.log_call(P.SET_LANGUAGE, False, f"language: {value!r} is not ru or kk", args)
        self.facts.language = code
        if self.facts.state == State.LANGUAGE_SELECTION:
            self.facts.machine.fire(Event.LANGUAGE_SELECTED)
        return self.log_call(P.SET_LANGUAGE, True, decision.reason, args, {"language": code})

    def set_region(self, result: RegionResult, arguments: Mapping[str, Any] | None = None) -> ToolCall:
        args = arguments if arguments is not None else {"region": result.matched or result.region_code}
        decision = self.decide(P.SET_REGION)
        if not decision.allowed:
            return self.log_call(P.SET_REGION, False, decision.reason, args)
        if not result.selected:
            return self.log_call(P.SET_REGION, False, f"region: {result.status}: {result.reason}", args)
        self.facts.region, self.facts.region_status, self.facts.awaiting = result, P.REGION_SELECTED, ""
        if self.facts.state == State.REGION_SELECTION:
            self.facts.machine.fire(Event.REGION_SELECTED)
        return self.log_call(P.SET_REGION, True, decision.reason, args, {"region_code": result.region_code})

    def search(self, query: str, arguments: Mapping[str, Any] | None = None) -> ToolCall:
        """Gate a knowledge-base search; language and region always come from the session, never the caller."""
        args = dict(arguments) if arguments is not None else {"query": query}
        decision = self.decide(P.SEARCH_KB)
        if not decision.allowed:
            return self.log_call(P.SEARCH_KB, False, decision.reason, args)
        if not query.strip():
            return self.log_call(P.SEARCH_KB, False, "query: missing or empty", args)
        # a Kazakh question with nothing relevant in Kazakh is answered from the Russian entries, said so first
        effect = knowledge_search(query.strip(), self.facts.language, self.facts.region_code)
        return self.log_call(P.SEARCH_KB, True, decision.reason, args, effect=effect)

    def handoff(self) -> ToolCall:
        if self.facts.state == State.HANDOFF:
            return self.log_call(
                P.HANDOFF, True, "already in handoff: nothing changed", result={"state": "HANDOFF"}
            )
        decision = self.decide(P.HANDOFF)
        if not decision.allowed:
            return self.log_call(P.HANDOFF, False, decision.reason)
        if not self.handoff_available:
            return self.log_call(P.HANDOFF, False, "no handoff target configured for this route")
        self.facts.machine.fire(Event.HANDOFF_REQUESTED)
        self.transfer = True
        return self.log_call(P.HANDOFF, True, decision.reason, result={"state": "HANDOFF"})

    def end_call(self, reason: str = "caller_goodbye", disposition: str = "completed") -> ToolCall:
        decision = self.decide(P.END_CALL)
        if not decision.allowed:
            return self.log_call(P.END_CALL, False, decision.reason)
        if self.facts.state == State.CLOSING:
            return self.log_call(
                P.END_CALL, True, "already closing: nothing changed", result={"state": "CLOSING"}
            )
        self.facts.machine.fire(Event.CLOSING_REQUESTED)
        self.hangup = (reason, disposition)
        return self.log_call(P.END_CALL, True, decision.reason, result={"state": "CLOSING"})

    # --- a model's tool call ---------------------------------------------------------------------------------
    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolCall:
        """Check (and for policy-owned tools apply) a model's tool call. Denials leave the session unchanged."""
        args = dict(arguments or {})
        if name == P.HANDOFF:
            return self.handoff()
        decision = self.decide(name)
        if not decision.allowed:
            return self.log_call(name, False, decision.reason, args)
        if name == P.SET_LANGUAGE:
            return self.set_language(str(args.get("language", "")), args)
        if name == P.SET_REGION:
            raw = str(args.get("region_code") or args.get("region") or args.get("name") or "").strip()
            if not raw:
                result = RegionResult("not_found", reason="missing 'region' argument")
            elif raw.upper() in REGIONS_BY_CODE:  # an ISO code such as "KZ-35"
                result = selected(raw.upper(), raw)
            else:
                result = resolve_region(raw)
            return self.set_region(result, args)
        if name == P.SEARCH_KB:
            return self.search(str(args.get("query", "")), args)
        return self.end_call()
