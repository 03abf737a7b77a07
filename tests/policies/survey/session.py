"""`SurveySession`: greeting, one or two yes/no questions, thanks and goodbye. Pure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from ai_operator.dialogue import Reply, ToolCall

LINES = {
    "greeting": "Hello, this is a short survey. Were you satisfied with our service? Please say yes or no.",
    "q2": "Thank you. Would you recommend us to a friend?",
    "reask": "Sorry, please answer yes or no.",
    "thanks": "Thank you for your answers. Goodbye.",
    "idle": "Are you still there? Please say yes or no.",
    "not_heard": "Sorry, I did not catch that. Please say yes or no.",
    "shutdown": "Sorry, we have to end the survey now. Goodbye.",
    "max_call_length": "Sorry, we are out of time. Goodbye.",
}
_YES = re.compile(r"\b(yes|yeah|yep|sure|of course|definitely)\b")
_NO = re.compile(r"\b(no|nope|not really|never)\b")


class SurveySession:
    hold_s = 0.0

    def __init__(self, call_id: str, *, questions: int) -> None:
        self.call_id = call_id
        self.questions = questions
        self.answers: list[str] = []
        self.step = "start"
        self.ended_by: str | None = None

    @property
    def spoken_language(self) -> str:
        return "en"

    def _reply(self, key: str | None, **kw: Any) -> Reply:
        return Reply(text=LINES[key] if key else None, language="en", fields=self.snapshot(), **kw)

    def start(self) -> Reply:
        self.step = "q1"
        return self._reply("greeting")

    def on_utterance(self, text: str) -> Reply:
        if self.step not in ("q1", "q2"):
            return self._reply(None)
        words = text.lower()
        answer = "no" if _NO.search(words) else "yes" if _YES.search(words) else None
        if answer is None:
            return self._reply("reask")
        self.answers.append(answer)
        if self.step == "q1" and self.questions > 1:
            self.step = "q2"
            return self._reply("q2")
        self.step = "done"
        return self._reply("thanks", hang_up=True, hang_up_reason="survey_done", disposition="completed")

    def on_dtmf(self, digit: str) -> Reply:
        return self.on_utterance({"1": "yes", "2": "no"}.get(digit, ""))

    def on_silence(self) -> Reply:
        return self._reply("idle" if self.step in ("q1", "q2") else None)

    def on_not_heard(self) -> Reply:
        return self._reply("not_heard")

    def on_forced_end(self, reason: str) -> Reply:
        self.step = "done"
        key = reason if reason in LINES else "shutdown"
        return self._reply(key, hang_up=True, hang_up_reason=reason, disposition=reason)

    def on_effect_result(self, result: Any) -> Reply:
        return self._reply(None)

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolCall:
        return ToolCall(name, False, "the survey has no tools", dict(arguments))

    def utterance_may_continue(self, text: str) -> bool:
        return False

    def on_call_ended(self, ended_by: str) -> None:
        self.ended_by = self.ended_by or ended_by

    def snapshot(self) -> dict[str, Any]:
        return {"step": self.step, "answers": list(self.answers)}
