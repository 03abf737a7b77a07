"""`DispatchSession`: read the driver's first stop, ask whether they take today's stops, yes or no. Pure."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from policies.dispatch.stops import Stop

from ai_operator.dialogue import Reply, ToolCall

LINES = {
    "offer": "Hello {driver}, this is dispatch with {count} stops for you today. The first is {address} at {time}. "
             "Can you take them? Please say yes or no.",
    "reask": "Sorry, can you take today's stops? Please say yes or no.",
    "accepted": "Thank you, the stops are yours. Goodbye.",
    "declined": "Understood, we will reassign them. Goodbye.",
    "idle": "Are you still there? Can you take today's stops?",
    "no_answer": "I will call you back later. Goodbye.",
    "not_heard": "Sorry, I did not catch that. Please say yes or no.",
    "shutdown": "Sorry, dispatch has to end the call now. Goodbye.",
    "max_call_length": "Sorry, we are out of time. Goodbye.",
}
LANGUAGE = "en"
MAX_IDLE = 2
_NO = re.compile(r"\b(no|nope|nah|cannot|can't|cant|not today)\b")
_YES = re.compile(r"\b(yes|yeah|yep|sure|okay|ok|fine)\b")


class DispatchSession:
    hold_s = 0.0

    def __init__(self, call_id: str, stops: tuple[Stop, ...]) -> None:
        self.call_id = call_id
        self.stops = stops
        self.state = "start"
        self.idle = 0
        self.ended_by: str | None = None

    @property
    def spoken_language(self) -> str:
        return LANGUAGE

    def _reply(self, key: str | None, **kw: Any) -> Reply:
        first = self.stops[0]
        text = LINES[key].format(driver=first.driver, count=len(self.stops), address=first.address,
                                 time=first.time) if key else None
        return Reply(text=text, language=LANGUAGE, fields=self.snapshot(), **kw)

    def _end(self, key: str, reason: str) -> Reply:
        self.state = "done"
        return self._reply(key, hang_up=True, hang_up_reason=reason, disposition=reason)

    def start(self) -> Reply:
        self.state = "offer"
        return self._reply("offer")

    def on_utterance(self, text: str) -> Reply:
        if self.state != "offer":
            return self._reply(None)
        words = text.lower()
        if _NO.search(words):  # "yeah no i cant" is a no
            return self._end("declined", "declined")
        if _YES.search(words):
            return self._end("accepted", "accepted")
        return self._reply("reask")

    def on_dtmf(self, digit: str) -> Reply:
        return self.on_utterance({"1": "yes", "2": "no"}.get(digit, ""))

    def on_silence(self) -> Reply:
        if self.state != "offer":
            return self._reply(None)
        self.idle += 1
        return self._end("no_answer", "no_answer") if self.idle > MAX_IDLE else self._reply("idle")

    def on_not_heard(self) -> Reply:
        return self._reply("not_heard" if self.state == "offer" else None)

    def on_forced_end(self, reason: str) -> Reply:
        return self._end(reason if reason in LINES else "shutdown", reason)

    def on_effect_result(self, result: Any) -> Reply:
        return self._reply(None)

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolCall:
        if name == "end_call":
            return ToolCall(name, True, "the driver asked to hang up", dict(arguments), result="ok")
        return ToolCall(name, False, f"dispatch has no tool {name!r}", dict(arguments))

    def utterance_may_continue(self, text: str) -> bool:
        return False

    def on_call_ended(self, ended_by: str) -> None:
        self.ended_by = self.ended_by or ended_by

    def snapshot(self) -> dict[str, Any]:
        return {"state": self.state, "stops": len(self.stops)}
