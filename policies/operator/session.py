"""`OperatorSession`: one call of the Russian/Kazakh operator policy (seed 003), as a `PolicySession`. Pure.

A thin composition of the call's parts, each in a module of its own: what the call knows (`facts.py`), the
policy's tools through the permission gate (`actions.py`), the reply builder (`replies.py`), language and region
(`selection.py`), questions and the knowledge base (`questions.py`), handoff and the ways a call ends
(`endings.py`), and the caller's events routed to them (`turns.py`). The session implements the contract's events
by handing each to its part; no part knows the session.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ai_operator.dialogue import Reply, ToolCall
from policies.operator.actions import ToolActions
from policies.operator.catalog import GREETING
from policies.operator.completeness import utterance_complete
from policies.operator.endings import Endings
from policies.operator.facts import CallFacts
from policies.operator.machine import StateMachine
from policies.operator.questions import Questions
from policies.operator.replies import Replies
from policies.operator.selection import Selection
from policies.operator.states import Event, State
from policies.operator.turns import CallerTurns


class OperatorSession:
    """One conversation; see `ai_operator.dialogue.PolicySession` for the contract."""

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
        self.facts = CallFacts()
        self.actions = ToolActions(self.facts, handoff_available=handoff_available)
        self.replies = Replies(self.facts, self.actions)
        self.questions = Questions(self.facts, self.actions, self.replies, model_available=model_available)
        self.endings = Endings(self.facts, self.actions, self.replies)
        selection = Selection(self.facts, self.actions, self.replies)
        self.turns = CallerTurns(self.facts, self.replies, selection, self.questions, self.endings,
                                 max_misunderstood=max_misunderstood)

    # --- what the call knows, as tests and the self-test read it ----------------------------------------------
    @property
    def state(self) -> State:
        return self.facts.state

    @property
    def machine(self) -> StateMachine:
        return self.facts.machine

    @property
    def history(self) -> list[dict[str, Any]]:
        return self.facts.history

    @property
    def language(self) -> str:
        return self.facts.language

    @property
    def region_code(self) -> str:
        return self.facts.region_code

    @property
    def region_status(self) -> str:
        return self.facts.region_status

    @property
    def awaiting(self) -> str:
        return self.facts.awaiting

    @property
    def ended_by(self) -> str:
        return self.facts.ended_by

    @property
    def spoken_language(self) -> str:
        return self.facts.lang

    # --- the contract ---------------------------------------------------------------------------------------
    def start(self) -> Reply:
        if self.state != State.CALL_STARTED:
            self.machine.record("start", False, f"already started (state {self.state.value})")
            return self.replies.reply(None)
        self.machine.fire(Event.CALL_STARTED)
        self.machine.fire(Event.GREETING_PLAYED)
        return self.replies.reply(GREETING, language="ru")

    def on_utterance(self, text: str) -> Reply:
        return self.turns.utterance(text)

    def on_dtmf(self, digit: str) -> Reply:
        return self.turns.dtmf(digit)

    def on_silence(self) -> Reply:
        return self.turns.silence()

    def on_not_heard(self) -> Reply:
        return self.turns.not_heard()

    def on_forced_end(self, reason: str) -> Reply:
        return self.endings.forced_end(reason)

    def on_effect_result(self, result: Any) -> Reply:
        return self.questions.on_effect_result(result)

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolCall:
        """Check (and for policy-owned tools apply) a model's tool call. Denials leave the session unchanged."""
        return self.actions.call_tool(name, arguments)

    def utterance_may_continue(self, text: str) -> bool:
        return False

    def utterance_complete(self, text: str) -> bool | None:
        """Asked at a short pause: is `text` already a whole answer for this state (`completeness.py`)?"""
        return utterance_complete(self.facts, text)

    def on_call_ended(self, ended_by: str) -> None:
        if self.state != State.ENDED:
            self.facts.ended_by = ended_by
            self.questions.cancel()
            self.machine.fire(Event.CALL_ENDED)

    def snapshot(self) -> dict[str, Any]:
        return self.facts.snapshot()
