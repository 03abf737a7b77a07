"""A real-Asterisk call's early and speculative turn decisions (issue 26 §3), as the daemon logs them
(`early_turn`, `early_turn_withdrawn`, each with `speculative`), per caller line: what the tests compare with the
call's record (its summary's `early_turns` / `speculative_turns`) and with what the caller heard."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

from tests.support.asterisk.heard import one_answer, voice_to_voice_ms
from tests.support.asterisk.rtp_peer import RtpPeer, Said
from tests.support.asterisk.stack import Stack, bot_line

EARLY_EVENTS = ("early_turn", "early_turn_withdrawn")
SUMMARY_KEYS = {False: "early_turns", True: "speculative_turns"}  # by the decision's `speculative`


@dataclass(frozen=True)
class Line:
    """A caller line, said in one part or two, and the daemon's early-turn log lines while it was said and answered."""

    text: str
    first: Said  # the part said first (the whole line when it was said in one)
    last: Said  # the part said last
    last_pcm: np.ndarray  # what `last` said
    events: list[dict[str, Any]]

    def kinds(self) -> list[tuple[str, bool]]:
        return [(e["event"], e["speculative"]) for e in self.events]

    def count(self, event: str) -> int:
        return sum(e["event"] == event for e in self.events)


def early_events(stack: Stack, call_id: str) -> list[dict[str, Any]]:
    """The daemon's early-turn log lines of the call so far, in order."""
    assert stack.daemon is not None
    return [e for e in stack.daemon.events(call_id=call_id) if e["event"] in EARLY_EVENTS]


def counted(lines: list[Line]) -> dict[str, dict[str, int]]:
    """What the call's summary must say of its decisions: the logged ones, by kind (a kind never decided is absent)."""
    events = [e for line in lines for e in line.events]
    out: dict[str, dict[str, int]] = {}
    for speculative, key in SUMMARY_KEYS.items():
        counts = {outcome: sum(e["event"] == event and e["speculative"] is speculative for e in events)
                  for outcome, event in zip(("decided", "withdrawn"), EARLY_EVENTS, strict=True)}
        if counts["decided"]:
            out[key] = counts
    return out


def summary_counts(record: dict[str, Any]) -> dict[str, dict[str, int]]:
    summary = record["summary"]
    return {key: summary[key] for key in SUMMARY_KEYS.values() if key in summary}


def one_answer_each(peer: RtpPeer, lines: list[Line], turns: list[dict[str, Any]], language: str) -> None:
    """Each line's turn's answer, and only it, heard after the caller had finished the line (`heard.one_answer`)."""
    for line, turn, after in zip(lines, turns, [*lines[1:], None], strict=True):
        problem = one_answer(peer, (line.first.first_ns, line.last.last_ns), after.first.first_ns if after else None,
                             bot_line(turn["bot_text"], language))
        assert problem is None, f"{line.text!r}: {problem}"


def one_turn_and_answer_per_line(stack: Stack, call_id: str, peer: RtpPeer, lines: list[Line],
                                 language: str) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The call's record and its caller turns: one turn per line with the whole line's text (and the greeting: no
    turn of a withdrawn decision), each line's answer heard once after the caller had finished it."""
    record = stack.record(call_id)
    turns = [t for t in record["turns"] if t["caller_text"]]
    assert [t["caller_text"] for t in turns] == [line.text for line in lines], record["turns"]
    assert len(record["turns"]) == len(lines) + 1
    one_answer_each(peer, lines, turns, language)
    return record, turns


def voice_to_voice(peer: RtpPeer, lines: list[Line]) -> list[tuple[str, float | None]]:
    return [(line.text, voice_to_voice_ms(peer, line.last, line.last_pcm)) for line in lines]
