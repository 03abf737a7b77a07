"""The `operator` policy: a Russian/Kazakh telecom AI operator (seed 003 with TZ-07..TZ-11).

Greeting -> language (ru/kk) -> region (20 regions, ISO 3166-2:KZ) -> questions answered from the knowledge
base, with a hard code gate: no knowledge-base search before language and region are selected, whatever a
model asks. Modules: states/machine (transition table, history), permissions (the one tool matrix, guardrail),
tools (the model's tool schemas), knowledge (its knowledge base: languages, region scope, lexicon.py), catalog
(messages), voicing (which voice reads which line), grammar and the nlu_* detectors behind
language/regions/region_data/intents, followups (repeat, yes/no), prompt (model prompt fragments), answers (the
relevance gate and spoken answers). `OperatorSession` (session) is a thin composition of parts, one a module:
facts (what the call knows), actions (the policy's own tools through the gate), replies (the reply builder),
selection (language and region), questions (a question, its search or model turn, the answer), endings (handoff
and the ways a call ends), turns (the caller's events routed to those parts); selftest/checks.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from ai_operator.dialogue import (
    CheckResult,
    KnowledgeHit,
    KnowledgeProfile,
    PolicyDefinition,
    RouteOption,
    RouteView,
    SelfTestCase,
    SessionOptions,
    ToolSpec,
)
from policies.operator import fixed_replies as ahead
from policies.operator.catalog import GREETING, say
from policies.operator.kb_query import knowledge_search
from policies.operator.knowledge import KNOWLEDGE
from policies.operator.language import LANGUAGES
from policies.operator.session import OperatorSession
from policies.operator.tools import TOOL_SPECS
from policies.operator.voicing import voice_segments


class OperatorPolicy:
    """`POLICY` of `policies/operator/` (see `ai_operator.dialogue.PolicyDefinition`)."""

    name = "operator"
    languages: tuple[str, ...] = LANGUAGES
    state_field = "state"
    turn_fields: tuple[str, ...] = ("state", "language", "region_code")
    tools: tuple[ToolSpec, ...] = tuple(TOOL_SPECS.values())
    route_options: Mapping[str, RouteOption] = {}
    # ru/kk entries by region, the telecom lexicon (knowledge.py), asked as a call asks (kb_query.py)
    knowledge: KnowledgeProfile = replace(KNOWLEDGE, asks=knowledge_search)
    demo_caller: tuple[tuple[str, str], ...] = (
        ("ru", "По-русски, пожалуйста."),
        ("ru", "Я живу в Караганде."),
        ("ru", "Как оплатить интернет?"),
        ("ru", "Спасибо, до свидания."),
    )

    def new_session(self, call_id: str, route: RouteView, options: SessionOptions) -> OperatorSession:
        """A fresh session. Without a knowledge base the runtime answers the search effect with None and the
        session says so."""
        return OperatorSession(
            call_id,
            model_available=options.model_available,
            handoff_available=options.handoff_available,
            max_misunderstood=options.max_misunderstood_turns,
        )

    def voice_segments(self, text: str, language: str) -> list[tuple[str, str]]:
        return voice_segments(text, language)

    def canned_lines(self, route: RouteView) -> list[tuple[str, str]]:
        lines = voice_segments(GREETING, "ru")
        for key in ("shutdown", "max_call_length", "closing"):
            lines += [(say(key, lang), lang) for lang in LANGUAGES]
        return lines

    def fixed_replies(self, route: RouteView) -> list[tuple[str, str]]:
        return ahead.fixed_replies()

    def knowledge_replies(self, entry: KnowledgeHit) -> list[tuple[str, str]]:
        return ahead.knowledge_replies(entry)

    def self_test(self) -> list[SelfTestCase]:
        from policies.operator.selftest import cases

        return cases()

    def doctor_checks(self) -> list[CheckResult]:
        from policies.operator.checks import doctor_checks

        return doctor_checks()


POLICY: PolicyDefinition = OperatorPolicy()
