"""`Replies`: how every reply of an operator call is built. Pure.

A reply carries the turn's tool decisions and the transfer or hang-up one of them asked for (`ToolActions`), the
turn fields (`CallFacts.fields`), and the voice: the caller's language, Russian before a choice (how a reply's
lines are then given voices is `voicing.py`). Catalog lines are said in the caller's language, both languages
before a choice. The last line spoken is kept, so "say that again" repeats it word for word.
"""

from __future__ import annotations

from typing import Any

from ai_operator.dialogue import Reply
from policies.operator.actions import ToolActions
from policies.operator.catalog import bilingual, say
from policies.operator.facts import CallFacts


class Replies:
    """The reply builder of one call."""

    def __init__(self, facts: CallFacts, actions: ToolActions) -> None:
        self.facts = facts
        self.actions = actions

    def reply(self, text: str | None, *, language: str | None = None, **kw: Any) -> Reply:
        """Build a reply carrying this turn's tool decisions, fields, and a pending transfer or hang-up."""
        calls, transfer, hangup = self.actions.take_turn()
        if transfer:
            kw.setdefault("transfer", True)
        if hangup and not kw.get("hang_up"):
            reason, disposition = hangup
            kw.update(hang_up=True, hang_up_reason=reason, disposition=disposition)
        voice = language or self.facts.lang
        if text:
            self.facts.last_said = (text, voice)
        return Reply(text=text, language=voice, tool_calls=calls, fields=self.facts.fields(), **kw)

    def say(self, key: str, **values: str) -> str:
        """A catalog line in the caller's language, or both languages before a language is chosen."""
        language = self.facts.language
        return say(key, language, **values) if language else bilingual(key, **values)

    def repeat(self) -> Reply:
        """The last line again, word for word (no new search); the offer it made, if any, still stands."""
        assert self.facts.last_said is not None
        text, voice = self.facts.last_said
        reply = self.reply(text, language=voice)
        reply.fields["answer"] = "repeat"
        return reply
