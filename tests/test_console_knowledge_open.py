"""`ai-operator call` opens the knowledge base before the caller's first question (issue 27, a blind suite's
flake): starting an embedded PostgreSQL takes seconds, and inside the first search it spent the search's budget
(KB_SEARCH_TIMEOUT_S), so on a loaded machine the first question got "I can't look that up". A route whose policy
has no knowledge base opens nothing; a knowledge base that cannot be opened is not fatal: the question is then
answered "I can't look that up" by the policy, as a failed search is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ai_operator import wiring
from ai_operator.config import load_settings
from tests.support.policies import freight_route, operator_route

REPO = Path(__file__).resolve().parents[1]


@pytest.fixture
def opened(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The order of events: the knowledge base opened, turns taken (no real database is started)."""
    events: list[str] = []

    async def fake_open(self: wiring.LazyKnowledge) -> Any:
        events.append("open")
        raise OSError("no database here")

    monkeypatch.setattr(wiring.LazyKnowledge, "open", fake_open)
    return events


def _settings(tmp_path: Path) -> Any:
    return load_settings(REPO / "etc" / "ai-operator.env.example", environ={}).with_values(STATE_DIR=str(tmp_path))


async def test_the_operator_console_opens_the_knowledge_base_before_the_first_turn(tmp_path: Path,
                                                                                 opened: list[str]) -> None:
    async with wiring.open_conversation(_settings(tmp_path), operator_route()) as conv:
        assert opened == ["open"]  # before any turn
        await conv.start()
        await conv.utterance("русский")
        await conv.utterance("караганда")
        outcome = await conv.utterance("сколько стоит интернет")
    assert opened == ["open", "open"]  # the search tried again, and failed like a search
    assert outcome.reply.fields.get("answer") == "kb_unavailable"
    assert any(isinstance(e, str) and e.startswith("kb:") for e in outcome.errors)


async def test_a_policy_without_a_knowledge_base_opens_none(tmp_path: Path, opened: list[str]) -> None:
    route = freight_route(REPO / "policies" / "freight" / "sample_load.json")
    async with wiring.open_conversation(_settings(tmp_path), route) as conv:
        await conv.start()
    assert opened == []
