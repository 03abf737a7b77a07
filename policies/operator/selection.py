"""Choosing the language and the region (`Selection`): the steps of LANGUAGE_SELECTION and REGION_SELECTION,
the Almaty city/region question, explicit changes later on, and the handoff and closing replies. Pure.
"""

from __future__ import annotations

from ai_operator.dialogue import Reply
from policies.operator.actions import ToolActions
from policies.operator.catalog import bilingual
from policies.operator.facts import PRE_DIALOGUE, REGION_AMBIGUOUS
from policies.operator.regions import (
    RegionResult,
    resolve_almaty_answer,
    resolve_region,
)
from policies.operator.states import State


class Selection(ToolActions):
    """Language and region steps; a re-ask marks the turn as not understood."""

    # --- helpers ---------------------------------------------------------------------------------------------
    def _handoff_reply(self) -> Reply:
        already = self.state == State.HANDOFF
        call = self.handoff()
        if already:
            return self.reply(self.say("handoff_already"))
        if not call.allowed:
            key = "no_handoff" if self.state not in PRE_DIALOGUE else "denial"
            return self.reply(self.say(key))
        return self.reply(self.say("handoff"))

    def _close_reply(self) -> Reply:
        call = self.end_call()
        if not call.allowed:
            return self.reply(self.say("denial"))
        return self.reply(
            self.say("closing"), hang_up=True, hang_up_reason="caller_goodbye", disposition="completed"
        )

    def _language_chosen(self, lang: str, text: str = "") -> Reply:
        call = self.set_language(lang)
        if not call.allowed:
            return self.reply(bilingual("language_reask"), language="ru")
        region = resolve_region(text) if text else None  # "русский, я из Павлодара": both in one answer
        if region and (region.selected or region.almaty):
            return self._apply_region(region, prefix=self.say("language_changed"))
        return self.reply(f"{self.say('language_changed')} {self.say('region_prompt')}")

    def _language_changed(self, lang: str, text: str = "") -> Reply:
        call = self.set_language(lang)
        if not call.allowed:
            return self.reply(self.say("denial"))
        region = resolve_region(text) if text and self.state == State.REGION_SELECTION else None
        if region and (region.selected or region.almaty):
            return self._apply_region(region, prefix=self.say("language_changed"))
        if self.state == State.REGION_SELECTION or self.awaiting:
            key = "region_clarify_almaty" if self.awaiting == "almaty" else "region_prompt"
            return self.reply(f"{self.say('language_changed')} {self.say(key)}")
        return self.reply(f"{self.say('language_changed')} {self.say('ready', region=self.region_name())}")

    def _region_answer(self, text: str) -> Reply:
        result = resolve_almaty_answer(text) if self.awaiting == "almaty" else resolve_region(text)
        return self._apply_region(result)

    def _apply_region(self, result: RegionResult, prefix: str = "") -> Reply:
        lead = f"{prefix} " if prefix else ""
        if result.selected:
            call = self.set_region(result)
            if not call.allowed:
                return self.reply(self.say("denial"))
            return self.reply(lead + self.say("ready", region=self.region_name()))
        if result.almaty:
            self.awaiting = "almaty"
            if self.state == State.REGION_SELECTION:
                self.region_status = REGION_AMBIGUOUS
            return self.reply(lead + self.say("region_clarify_almaty"))
        self.machine.record("region", False, f"region {result.status}: {result.reason}")
        key = "region_clarify_almaty" if self.awaiting == "almaty" else "region_reask"
        self._reasked = True
        return self.reply(self.say(key))
