"""`CallFacts`: what one operator call knows. Pure.

Where the state machine stands (its history is the call's audit trail), the language and the region chosen, what
is awaited (the Almaty city/region answer, a new region), the caller's silences and turns in a row not
understood, the last line spoken (for "say that again"), whether it offered a specialist and the article it asked
the caller to confirm. Every part of `OperatorSession` reads and writes this one record; the turn fields and the
snapshot are taken from it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

import policies.operator.permissions as P
from ai_operator.dialogue import KnowledgeHit
from policies.operator.machine import StateMachine
from policies.operator.region_data import REGIONS_BY_CODE
from policies.operator.regions import RegionResult
from policies.operator.states import State

REGION_NONE = "none"
REGION_AMBIGUOUS = "ambiguous"
PRE_DIALOGUE = (State.CALL_STARTED, State.GREETING)  # no dialogue yet


@dataclass
class CallFacts:
    """The record of one call (see the module docstring)."""

    machine: StateMachine = field(default_factory=StateMachine)
    language: str = ""
    region_status: str = REGION_NONE
    region: RegionResult | None = None
    awaiting: str = ""  # "almaty" (city or region?) or "region" (asked for a new region)
    silences: int = 0
    misunderstood: int = 0  # caller turns in a row the policy could not act on
    reasked: bool = False  # this turn ended in a re-ask
    ended_by: str = ""
    last_said: tuple[str, str] | None = None  # (text, voice) of the last line spoken, for "repeat"
    handoff_offered: bool = False  # the last answer offered a specialist: a bare "yes" takes it
    confirming: KnowledgeHit | None = None  # the near article the last line asked about (`confirmation.py`)

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

    def region_name(self, language: str | None = None) -> str:
        if not self.region_code:
            return ""
        return REGIONS_BY_CODE[self.region_code].name(language or self.lang)

    def fields(self) -> dict[str, Any]:
        """The turn fields every reply carries."""
        return {"state": self.state.value, "language": self.language, "region_code": self.region_code}

    def snapshot(self) -> dict[str, Any]:
        return {
            **self.fields(),
            "region_status": self.region_status,
            "region_name": self.region_name("ru"),
            "history": [dict(h) for h in self.history],
        }
