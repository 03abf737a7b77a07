"""`SessionState`: what one operator call knows (state machine, language, region, what was said) and how a
reply is built from it. Pure; the base of `OperatorSession`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import policies.operator.permissions as P
from ai_operator.dialogue import KnowledgeSearch, Reply, ToolCall
from policies.operator.catalog import bilingual, say
from policies.operator.machine import StateMachine
from policies.operator.prompt import system_prompt
from policies.operator.region_data import REGIONS_BY_CODE
from policies.operator.regions import (
    RegionResult,
)
from policies.operator.states import State

REGION_NONE = "none"
REGION_AMBIGUOUS = "ambiguous"
PRE_DIALOGUE = (State.CALL_STARTED, State.GREETING)  # no dialogue yet


REGION_NONE = "none"
REGION_AMBIGUOUS = "ambiguous"


class SessionState:
    """State, the tool gate's decision and reply building, shared by every step of `OperatorSession`."""

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
        self._pending = ""  # "search" | "grounding" | "model": the effect whose result is awaited
        self._grounding: KnowledgeSearch | None = None  # the policy's search for the question a model answers
        self._grounded: Any = None  # its result, given to the model (and answered from if the model fails)
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

    def system_prompt(self, searched: bool = False) -> str:
        return system_prompt(
            self.state, self.language, self.region_code, self.region_name(), self.allowed_tools(), searched=searched
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

    # --- shared lines ----------------------------------------------------------------------------------------
    def say(self, key: str, **values: str) -> str:
        """A catalog line in the caller's language, or both languages before a language is chosen."""
        return say(key, self.language, **values) if self.language else bilingual(key, **values)
