"""Choosing the language and the region (`Selection`): the steps of LANGUAGE_SELECTION and REGION_SELECTION,
the Almaty city/region question, and explicit changes later on. Pure.
"""

from __future__ import annotations

from ai_operator.dialogue import Reply
from policies.operator.actions import ToolActions
from policies.operator.catalog import bilingual
from policies.operator.facts import REGION_AMBIGUOUS, CallFacts
from policies.operator.regions import (
    RegionResult,
    resolve_almaty_answer,
    resolve_region,
)
from policies.operator.replies import Replies
from policies.operator.states import State


class Selection:
    """Language and region steps, applied through the tools; a re-ask marks the turn as not understood."""

    def __init__(self, facts: CallFacts, actions: ToolActions, replies: Replies) -> None:
        self.facts = facts
        self.actions = actions
        self.replies = replies

    def language_chosen(self, lang: str, text: str = "") -> Reply:
        """LANGUAGE_SELECTION answered (by voice or key); a region named in the same answer is taken too."""
        r = self.replies
        call = self.actions.set_language(lang)
        if not call.allowed:
            return r.reply(bilingual("language_reask"), language="ru")
        region = resolve_region(text) if text else None  # "русский, я из Павлодара": both in one answer
        if region and (region.selected or region.almaty):
            return self.apply_region(region, prefix=r.say("language_changed"))
        return r.reply(f"{r.say('language_changed')} {r.say('region_prompt')}")

    def language_changed(self, lang: str, text: str = "") -> Reply:
        """An explicit change of language later on; the question that was open is asked again in it."""
        r, f = self.replies, self.facts
        call = self.actions.set_language(lang)
        if not call.allowed:
            return r.reply(r.say("denial"))
        region = resolve_region(text) if text and f.state == State.REGION_SELECTION else None
        if region and (region.selected or region.almaty):
            return self.apply_region(region, prefix=r.say("language_changed"))
        if f.state == State.REGION_SELECTION or f.awaiting:
            key = "region_clarify_almaty" if f.awaiting == "almaty" else "region_prompt"
            return r.reply(f"{r.say('language_changed')} {r.say(key)}")
        return r.reply(f"{r.say('language_changed')} {r.say('ready', region=f.region_name())}")

    def region_answer(self, text: str) -> Reply:
        """The answer to a region question (or to the Almaty city/region question)."""
        result = resolve_almaty_answer(text) if self.facts.awaiting == "almaty" else resolve_region(text)
        return self.apply_region(result)

    def apply_region(self, result: RegionResult, prefix: str = "") -> Reply:
        r, f = self.replies, self.facts
        lead = f"{prefix} " if prefix else ""
        if result.selected:
            call = self.actions.set_region(result)
            if not call.allowed:
                return r.reply(r.say("denial"))
            return r.reply(lead + r.say("ready", region=f.region_name()))
        if result.almaty:
            f.awaiting = "almaty"
            if f.state == State.REGION_SELECTION:
                f.region_status = REGION_AMBIGUOUS
            return r.reply(lead + r.say("region_clarify_almaty"))
        f.machine.record("region", False, f"region {result.status}: {result.reason}")
        key = "region_clarify_almaty" if f.awaiting == "almaty" else "region_reask"
        f.reasked = True
        return r.reply(r.say(key))
