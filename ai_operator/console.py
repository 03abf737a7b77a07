"""`ai-operator call`: a conversation with a route's policy in the terminal, text in place of speech.

The same code path a phone call takes (policy -> effects -> reply), minus audio. Interactive without
`--script`; with a script, each non-empty line is one caller utterance. A line `+SECONDS text` arrives that
many seconds after the previous one on a virtual clock (no real waiting); a plain line arrives 3 s later.
Bracketed lines are events: `[dtmf 1]`, `[silence]` (idle timeout), `[not-heard]` (STT failure).
With `--json`, one JSON object per turn on stdout; the first is the greeting (`caller` null).
"""

from __future__ import annotations

import asyncio
import json
import re
import sys
from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from typing import Any, TextIO

from ai_operator.config import Route, Settings
from ai_operator.conversation import Conversation, TurnOutcome
from ai_operator.turn_driver import Turn, TurnDriver

DEFAULT_GAP_S = 3.0
_TIMED_RE = re.compile(r"^\+(\d+(?:\.\d+)?)\s+(.*)$")
_EVENT_RE = re.compile(r"^\[(dtmf\s+[0-9*#]|silence|not-heard)\]$", re.IGNORECASE)


@dataclass(frozen=True)
class ScriptLine:
    """One caller line of a script: when it arrives (virtual seconds) and what it is."""

    at: float
    text: str
    event: str | None = None  # "dtmf", "silence", "not-heard"
    line: int = 0


def parse_script(lines: Iterable[str]) -> Iterator[ScriptLine]:
    """Turn script lines into timed caller lines on a virtual clock."""
    now = 0.0
    for lineno, raw in enumerate(lines, start=1):
        text = raw.strip()
        if not text:
            continue
        gap = DEFAULT_GAP_S
        m = _TIMED_RE.match(text)
        if m:
            gap, text = float(m.group(1)), m.group(2).strip()
        now += gap
        ev = _EVENT_RE.match(text)
        if ev:
            kind = ev.group(1).lower()
            if kind.startswith("dtmf"):
                yield ScriptLine(now, kind.split()[1], "dtmf", lineno)
            else:
                yield ScriptLine(now, "", kind, lineno)
        else:
            yield ScriptLine(now, text, None, lineno)


def turn_object(caller: str | None, outcome: TurnOutcome, at: float) -> dict[str, Any]:
    """The per-turn JSON object of `--json`."""
    reply = outcome.reply
    obj: dict[str, Any] = {"at": round(at, 3), "caller": caller, "reply": reply.text}
    obj.update(reply.fields)
    obj["tool_calls"] = [c.as_dict() for c in outcome.tool_calls]
    obj["hang_up"] = reply.hang_up
    obj["transfer"] = reply.transfer
    obj.setdefault("disposition", reply.disposition)
    if outcome.errors:
        obj["errors"] = outcome.errors
    return obj


class ConsoleCall:
    """Drives a `Conversation` through the shared `TurnDriver` from script lines or the keyboard; prints turns."""

    def __init__(self, conversation: Conversation, out: TextIO, *, as_json: bool) -> None:
        self.conversation = conversation
        self.driver = TurnDriver(conversation)
        self.out = out
        self.as_json = as_json
        self.ended = False

    def _emit(self, turn: Turn | None) -> None:
        if turn is None or self.ended:
            return
        outcome = turn.outcome
        if self.as_json:
            self.out.write(json.dumps(turn_object(turn.caller, outcome, turn.at), ensure_ascii=False) + "\n")
        else:
            state = " ".join(f"{k}={v}" for k, v in outcome.reply.fields.items() if v is not None)
            if turn.caller is not None:
                self.out.write(f"caller> {turn.caller}\n")
            denied = [c.name for c in outcome.tool_calls if not c.allowed]
            extra = f"  (denied: {', '.join(denied)})" if denied else ""
            self.out.write(f"bot   > {outcome.reply.text or ''}\n        [{state}]{extra}\n")
            if outcome.reply.transfer:
                self.out.write("        [transfer to a human requested]\n")
            if outcome.reply.hang_up:
                self.out.write(f"        [hang up: {outcome.reply.hang_up_reason or ''}]\n")
        self.out.flush()
        if outcome.reply.hang_up:
            self.ended = True
            self.conversation.session.on_call_ended("bot")

    async def start(self) -> None:
        self._emit(await self.driver.start(0.0))

    async def feed(self, line: ScriptLine) -> None:
        """One caller line at its virtual time."""
        for turn in await self.driver.due(line.at):
            self._emit(turn)
        if self.ended:
            return
        if line.event == "dtmf":
            self._emit(await self.driver.dtmf(line.text, line.at))
        elif line.event == "silence":
            self._emit(await self.driver.silence(line.at))
        elif line.event == "not-heard":
            self._emit(await self.driver.not_heard(line.at))
        else:
            for turn in await self.driver.heard(line.text, line.at):
                self._emit(turn)

    async def finish(self, at: float) -> None:
        deadline = self.driver.deadline()
        for turn in await self.driver.flush(deadline if deadline is not None else at):
            self._emit(turn)
        if not self.ended:
            self.conversation.session.on_call_ended("caller")

    async def run_script(self, lines: Iterable[str]) -> None:
        await self.start()
        at = 0.0
        for line in parse_script(lines):
            if self.ended:
                break
            at = line.at
            await self.feed(line)
        await self.finish(at)

    async def run_interactive(self, stdin: TextIO) -> None:
        await self.start()
        loop = asyncio.get_running_loop()
        at = 0.0
        while not self.ended:
            if not self.as_json:
                self.out.write("you   > ")
                self.out.flush()
            raw = await loop.run_in_executor(None, stdin.readline)
            if not raw:
                break
            for line in parse_script([raw]):
                at += line.at  # each typed line is one default gap later
                await self.feed(ScriptLine(at, line.text, line.event, line.line))
        await self.finish(at)


async def run_console(
    settings: Settings,
    route: Route,
    *,
    script: Iterable[str] | None,
    as_json: bool,
    use_knowledge: bool = True,
    out: TextIO | None = None,
    files: Mapping[str, Any] | None = None,
) -> int:
    """Hold one console conversation on `route` (`files`: the policy's file options given, already read)."""
    from ai_operator.wiring import open_conversation

    out = out or sys.stdout
    async with open_conversation(settings, route, use_knowledge=use_knowledge, files=files) as conv:
        console = ConsoleCall(conv, out, as_json=as_json)
        if script is not None:
            await console.run_script(script)
        else:
            await console.run_interactive(sys.stdin)
    return 0
