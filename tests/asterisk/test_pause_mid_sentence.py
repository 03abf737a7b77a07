"""A caller who pauses 300 ms mid-sentence, through a real Asterisk 22 and the real daemon process with the turn
settings as shipped (`VAD_EARLY_STT_MS` 240, `VAD_EARLY_REPLY_MS` 320, `VAD_SPECULATE` on, `VAD_END_SILENCE_MS`
600): issue 26 §3.

One Russian call on the shared stack: language, region, two knowledge-base questions each said with 300 ms of
silence mid-sentence - after a fragment that looks whole ("сколько стоит роуминг | за границей": complete at the
pause) and after a preposition ("сколько стоит тариф на | домашний интернет": dangling, the turn waits) - and a
goodbye. Whether the transcript asked for at the 240 ms pause is back before the caller goes on (60 ms later)
depends on the box, so this test does not require a decision at the pause (`test_early_turn.py` makes one
certain and withdraws it); it requires what must hold either way: the caller hears nothing until it has finished
the line, then one answer, to the whole line - a decision taken at the pause is held for 320 ms of the caller's
own frames and withdrawn when the speech goes on. Judged at the SIP caller (talkspurts, the answer heard in full
and nothing more) and from the record (one turn per line with the whole line's text; the call's early and
speculative counts are the decisions the daemon logged, and those not withdrawn are the turns answered early).
Reports voice-to-voice at the caller per line and the decisions taken and withdrawn per line. One call (~70 s).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from tests.support.asterisk import Stack, voice_to_voice_report, wait_reply
from tests.support.asterisk.early import (
    Line,
    counted,
    early_events,
    one_turn_and_answer_per_line,
    summary_counts,
    voice_to_voice,
)

pytestmark = pytest.mark.asterisk

PAUSE_S = 0.3  # mid-sentence: longer than VAD_EARLY_STT_MS (240), shorter than VAD_EARLY_REPLY_MS (320)
LOOKS_WHOLE = ("сколько стоит роуминг", "за границей")
DANGLES = ("сколько стоит тариф на", "домашний интернет")
LINES = [("по-русски пожалуйста",), ("я живу в караганде",), LOOKS_WHOLE, DANGLES, ("спасибо до свидания",)]


def test_a_caller_who_pauses_300_ms_mid_sentence_hears_one_answer_to_the_whole_line(
        stack: Stack, record_property: Any) -> None:
    caller = stack.dial("100")
    call_id = caller.channel_id()
    caller.wait_media()
    wait_reply(caller.rtp, 0)
    pause = np.zeros(round(PAUSE_S * 8000), dtype=np.int16)
    lines: list[Line] = []
    try:
        for pieces in LINES:
            before = len(early_events(stack, call_id))
            clips = stack.arm_pieces(pieces, "ru")  # the STT hears what was said so far
            pcm = np.concatenate([part for i, c in enumerate(clips) for part in ((pause, c) if i else (c,))])
            said = caller.say(pcm)
            wait_reply(caller.rtp, said.last_ns)
            lines.append(Line(" ".join(pieces), said, said, pcm, early_events(stack, call_id)[before:]))
        ending = caller.wait_ended()
    finally:
        stack.openai.recogniser.expect_pieces([])  # the shared stack's STT as it was
    assert ending.how == "bye_received", f"{ending}: {caller.failure()}"
    record, turns = one_turn_and_answer_per_line(stack, call_id, caller.rtp, lines, "ru")
    assert lines[3].count("early_turn_withdrawn") == 0  # dangling at the pause: nothing decided there
    assert lines[2].count("early_turn_withdrawn") <= 1
    # the call's counts are the decisions the daemon logged; those not withdrawn are the turns answered early
    assert summary_counts(record) == counted(lines), (record["summary"], [line.events for line in lines])
    answered_early = [t for t in turns if "release_ms" in t["timings"]]
    assert len(answered_early) == sum(line.count("early_turn") - line.count("early_turn_withdrawn") for line in lines)

    summary = record["summary"]
    record_property("report", voice_to_voice_report("300 ms pause mid-sentence, shipped settings",
                                                    voice_to_voice(caller.rtp, lines)))
    record_property("report", "asterisk 300 ms pause mid-sentence: decided early / withdrawn per line " + ", ".join(
        f"{line.text!r} {line.count('early_turn')}/{line.count('early_turn_withdrawn')}" for line in lines)
        + f"; summary {summary_counts(record)}, wasted {summary.get('early_turns_wasted')}, early_stt "
        f"{summary.get('early_stt')}")
