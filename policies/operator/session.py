"""`OperatorSession`: one call of the Russian/Kazakh operator policy (seed 003). Pure, no I/O.

Every action goes through the state machine (`machine.py`) and the tool gate (`permissions.py`): the policy's
own language/region/search/handoff/end steps are checked exactly like a model's tool calls and listed in the
reply's `tool_calls`. Caller input handling (language, region, intents) lives in `flow.py`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import policies.operator.permissions as P
from ai_operator.dialogue import KnowledgeSearch, Reply, ToolCall
from policies.operator.catalog import bilingual, say
from policies.operator.language import LANGUAGES, strict_language
from policies.operator.machine import StateMachine
from policies.operator.prompt import system_prompt
from policies.operator.region_data import REGIONS_BY_CODE
from policies.operator.regions import RegionResult, resolve_region, selected
from policies.operator.states import Event, State

REGION_NONE = "none"
REGION_AMBIGUOUS = "ambiguous"


class SessionCore:
    """State, gate and reply building shared by the event handlers of `OperatorSession`."""

    hold_s: float = 0.0

    def __init__(
        self,
        call_id: str,
        *,
        model_available: bool = False,
        handoff_available: bool = True,
        max_misunderstood: int = 3,
    ) -> None:
        self.call_id = call_id
        self.model_available = model_available
        self.handoff_available = handoff_available
        self.max_misunderstood = max_misunderstood
        self.misunderstood = 0  # caller turns in a row the policy could not act on
        self._reasked = False  # this turn ended in a re-ask
        self.machine = StateMachine()
        self.language = ""
        self.region_status = REGION_NONE
        self.region: RegionResult | None = None
        self.awaiting = ""  # "almaty" (city or region?) or "region" (asked for a new region)
        self.silences = 0
        self.ended_by = ""
        self._calls: list[ToolCall] = []
        self._pending = ""  # "search" | "model": the effect whose result is awaited
        self._last_question = ""
        self.last_said: tuple[str, str] | None = None  # (text, voice) of the last line spoken, for "repeat"
        self.handoff_offered = False  # the last answer offered a specialist: a bare "yes" takes it
        self._transfer = False
        self._hangup: tuple[str, str] | None = None

    # --- state -----------------------------------------------------------------------------------------------
    @property
    def state(self) -> State:
        return self.machine.state

    @property
    def history(self) -> list[dict[str, Any]]:
        return self.machine.history

    @property
    def region_code(self) -> str:
        return self.region.region_code if self.region and self.region_status == P.REGION_SELECTED else ""

    @property
    def lang(self) -> str:
        """The voice for the next line: the chosen language, Russian before a choice."""
        return self.language or "ru"

    @property
    def spoken_language(self) -> str:
        return self.lang

    def region_name(self, language: str | None = None) -> str:
        if not self.region_code:
            return ""
        return REGIONS_BY_CODE[self.region_code].name(language or self.lang)

    def fields(self) -> dict[str, Any]:
        return {"state": self.state.value, "language": self.language, "region_code": self.region_code}

    def snapshot(self) -> dict[str, Any]:
        return {
            **self.fields(),
            "region_status": self.region_status,
            "region_name": self.region_name("ru"),
            "history": [dict(h) for h in self.history],
        }

    def allowed_tools(self) -> list[str]:
        return P.allowed_tools(self.state, self.language, self.region_status, self.region_code)

    def system_prompt(self) -> str:
        return system_prompt(
            self.state, self.language, self.region_code, self.region_name(), self.allowed_tools()
        )

    # --- the gate ----------------------------------------------------------------------------------------------
    def decide(self, name: str) -> P.Decision:
        return P.check_tool(self.state, name, self.language, self.region_status, self.region_code)

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
        self.machine.record(f"tool:{name}", allowed, reason)
        self._calls.append(call)
        return call

    def reply(self, text: str | None, *, language: str | None = None, **kw: Any) -> Reply:
        """Build a reply carrying this turn's tool decisions, fields, and a pending transfer or hang-up."""
        if self._transfer:
            kw.setdefault("transfer", True)
            self._transfer = False
        if self._hangup and not kw.get("hang_up"):
            reason, disposition = self._hangup
            kw.update(hang_up=True, hang_up_reason=reason, disposition=disposition)
        self._hangup = None
        calls, self._calls = self._calls, []
        voice = language or self.lang
        if text:
            self.last_said = (text, voice)
        return Reply(text=text, language=voice, tool_calls=calls, fields=self.fields(), **kw)

    # --- policy-owned tools (checked, then applied) ----------------------------------------------------------
    def set_language(self, value: str, arguments: Mapping[str, Any] | None = None) -> ToolCall:
        args = arguments if arguments is not None else {"language": value}
        decision = self.decide(P.SET_LANGUAGE)
        if not decision.allowed:
            return self.log_call(P.SET_LANGUAGE, False, decision.reason, args)
        code = strict_language(value)
        if code not in LANGUAGES:
            return self.log_call(P.SET_LANGUAGE, False, f"language: {value!r} is not ru or kk", args)
        self.language = code
        if self.state == State.LANGUAGE_SELECTION:
            self.machine.fire(Event.LANGUAGE_SELECTED)
        return self.log_call(P.SET_LANGUAGE, True, decision.reason, args, {"language": code})

    def set_region(self, result: RegionResult, arguments: Mapping[str, Any] | None = None) -> ToolCall:
        args = arguments if arguments is not None else {"region": result.matched or result.region_code}
        decision = self.decide(P.SET_REGION)
        if not decision.allowed:
            return self.log_call(P.SET_REGION, False, decision.reason, args)
        if not result.selected:
            return self.log_call(P.SET_REGION, False, f"region: {result.status}: {result.reason}", args)
        self.region, self.region_status, self.awaiting = result, P.REGION_SELECTED, ""
        if self.state == State.REGION_SELECTION:
            self.machine.fire(Event.REGION_SELECTED)
        return self.log_call(P.SET_REGION, True, decision.reason, args, {"region_code": result.region_code})

    def search(self, query: str, arguments: Mapping[str, Any] | None = None) -> ToolCall:
        """Gate a knowledge-base search; language and region always come from the session, never the caller."""
        args = dict(arguments) if arguments is not None else {"query": query}
        decision = self.decide(P.SEARCH_KB)
        if not decision.allowed:
            return self.log_call(P.SEARCH_KB, False, decision.reason, args)
        if not query.strip():
            return self.log_call(P.SEARCH_KB, False, "query: missing or empty", args)
        effect = KnowledgeSearch(query.strip(), self.language, self.region_code)
        return self.log_call(P.SEARCH_KB, True, decision.reason, args, effect=effect)

    def handoff(self) -> ToolCall:
        if self.state == State.HANDOFF:
            return self.log_call(
                P.HANDOFF, True, "already in handoff: nothing changed", result={"state": "HANDOFF"}
            )
        decision = self.decide(P.HANDOFF)
        if not decision.allowed:
            return self.log_call(P.HANDOFF, False, decision.reason)
        if not self.handoff_available:
            return self.log_call(P.HANDOFF, False, "no handoff target configured for this route")
        self.machine.fire(Event.HANDOFF_REQUESTED)
        self._transfer = True
        return self.log_call(P.HANDOFF, True, decision.reason, result={"state": "HANDOFF"})

    def end_call(self, reason: str = "caller_goodbye", disposition: str = "completed") -> ToolCall:
        decision = self.decide(P.END_CALL)
        if not decision.allowed:
            return self.log_call(P.END_CALL, False, decision.reason)
        if self.state == State.CLOSING:
            return self.log_call(
                P.END_CALL, True, "already closing: nothing changed", result={"state": "CLOSING"}
            )
        self.machine.fire(Event.CLOSING_REQUESTED)
        self._hangup = (reason, disposition)
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

    # --- shared lines ----------------------------------------------------------------------------------------
    def say(self, key: str, **values: str) -> str:
        """A catalog line in the caller's language, or both languages before a language is chosen."""
        return say(key, self.language, **values) if self.language else bilingual(key, **values)
