"""The policy ends the turn (`daemon/early_turn.py`), from the caller's side on the simulated PBX: real RTP, the
caller's voice from espeak-ng, webrtcvad. A short answer the state waits for is answered at the short pause, before
the end silence would have ended it; a caller who goes on after such a pause, before the reply is heard, gets
one answer to the whole sentence: the early decision is withdrawn (counted), nothing is said to them before they
finish and nothing is recorded twice.

The end silence is long here (2 s) so that "answered before it" is an ordering the daemon cannot reach by the
normal rule, however loaded the machine, not a race against it.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import numpy as np
import pytest

from ai_operator.daemon.services import DaemonOverrides
from policies.operator.catalog import say
from tests.support.daemon import Caller, bot_tts, caller_pcm, metric, stage_for, trim_leading_silence
from tests.support.wait import eventually

END_SILENCE_MS = 2000
EARLY = {"VAD_END_SILENCE_MS": END_SILENCE_MS, "VAD_EARLY_STT_MS": 240}
EARLY_TURNS = "ai_operator_early_turns_total"


class GatedTTS:
    """The bot's real TTS, except that a line containing `held` waits until the test opens the gate: the reply of
    an early decision is then certainly not heard before the caller goes on (on any machine)."""

    def __init__(self, inner: Any, held: str) -> None:
        self.inner = inner
        self.held = held
        self.waiting = asyncio.Event()
        self.gate = asyncio.Event()

    async def stream(self, text: str, language: str, *, cache: bool = True) -> AsyncIterator[np.ndarray]:
        if self.held in text:
            self.waiting.set()
            await self.gate.wait()
        async for chunk in self.inner.stream(text, language, cache=cache):
            yield chunk

    async def prewarm(self, lines: list[tuple[str, str]]) -> int:
        return int(await self.inner.prewarm(lines))


@pytest.mark.slow
async def test_a_short_answer_is_answered_at_the_pause_before_the_end_silence(daemon_base) -> None:
    async with stage_for(daemon_base, **EARLY) as stage:
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        replies_at: list[float] = []
        for line, turns in (("русский", 2), ("Караганда", 3)):
            start = await caller.say(line)
            await eventually(lambda t=turns: caller.turns() >= t, what=f"the answer to {line!r}")
            await eventually(lambda s=start: caller.frames_between(s), what=f"the reply to {line!r} heard")
            last_voiced = caller.speech_frames[-1]
            replies_at.append(caller.frames_between(start)[0] - last_voiced)
            await caller.quiet(min_turns=turns)
        await caller.sim.hangup()
        record = await caller.record()
        decided = metric(stage, EARLY_TURNS, {"outcome": "decided"})
        withdrawn = metric(stage, EARLY_TURNS, {"outcome": "withdrawn"})
    turns = [t for t in record["turns"] if t["caller_text"]]
    assert [t["caller_text"] for t in turns] == ["русский", "Караганда"]
    assert turns[0]["state"] == "REGION_SELECTION" and turns[1]["fields"]["region_code"] == "KZ-35"
    # the daemon ended each turn before its end silence could have (eou: last speech frame -> end of turn) ...
    assert all(t["timings"]["eou_ms"] < END_SILENCE_MS for t in turns)
    # our own share is judged against the pause that applied, not the full silence the turn never waited
    assert all(0 <= t["timings"]["bridge_ms"] < t["timings"]["first_rtp_ms"] - t["timings"]["eou_ms"] + 1
               for t in turns), [t["timings"] for t in turns]
    # ... and the caller heard each reply before their line had been silent that long
    assert all(gap < END_SILENCE_MS / 1000 for gap in replies_at), replies_at
    assert (decided, withdrawn) == (2.0, 0.0)
    assert record["summary"]["early_turns"] == {"decided": 2, "withdrawn": 0}


@pytest.mark.slow
async def test_a_caller_who_goes_on_after_the_pause_gets_one_answer_to_the_whole_sentence(daemon_base) -> None:
    tts = GatedTTS(bot_tts(daemon_base.state_dir), say("language_changed", "ru"))
    async with stage_for(daemon_base, overrides=DaemonOverrides(tts=tts), **EARLY) as stage:
        fake = stage.fake_openai
        assert fake is not None
        first = trim_leading_silence(await caller_pcm("русский", "ru"))
        second = await caller_pcm("нет лучше казахский", "ru")
        heard: list[int] = []

        def transcribe(wav: bytes, _fields: dict) -> str:  # the first request is of the audio up to the pause
            heard.append(len(wav))
            return "русский" if len(heard) == 1 else "нет лучше казахский"

        fake.transcripts = transcribe
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        n = len(caller.speech_frames)
        caller.sim.say(first)
        await caller.sim.wait_said(timeout=30)
        # the daemon ends the turn at the pause and decides; its reply is not out yet when the caller goes on
        await eventually(lambda: metric(stage, EARLY_TURNS, {"outcome": "decided"}) == 1, what="an early decision")
        await asyncio.wait_for(tts.waiting.wait(), timeout=30)
        caller.sim.say(second)
        await caller.sim.wait_said(timeout=30)
        finished_at = caller.speech_frames[-1]
        await eventually(lambda: metric(stage, EARLY_TURNS, {"outcome": "withdrawn"}) == 1, what="the withdrawal")
        tts.gate.set()
        await caller.quiet(min_turns=2)
        await eventually(lambda: caller.frames_between(finished_at), what="the answer to the whole sentence")
        await caller.quiet(min_turns=2)
        await caller.sim.hangup()
        record = await caller.record()
    turns = [t for t in record["turns"] if t["caller_text"]]
    assert [t["caller_text"] for t in turns] == ["русский нет лучше казахский"]  # one turn, no words lost
    assert turns[0]["fields"]["language"] == "kk" and turns[0]["state"] == "REGION_SELECTION"
    assert turns[0]["bot_text"].startswith(say("language_changed", "kk"))
    assert len(record["turns"]) == 2  # the greeting and that one: the withdrawn decision left no record
    assert caller.frames_between(caller.speech_frames[n], finished_at) == []  # nothing said before they finished
    summary = record["summary"]
    assert summary["early_turns"]["withdrawn"] == 1 and summary["early_turns"]["decided"] >= 1
    assert summary["early_stt"]["used"] >= 1


@pytest.mark.slow
async def test_with_an_early_reply_delay_a_300_ms_pause_mid_sentence_is_never_half_answered(daemon_base) -> None:
    """The issue's pause-in-the-middle caller, as they speak (no gate): "русский", 300 ms, "нет лучше казахский".
    With VAD_EARLY_REPLY_MS well past the pause, an early decision on "русский" (if its transcript came before
    the caller went on) is withdrawn before its reply starts: one answer, to the whole sentence."""
    async with stage_for(daemon_base, VAD_EARLY_REPLY_MS=1000, **EARLY) as stage:
        fake = stage.fake_openai
        assert fake is not None
        first = trim_leading_silence(await caller_pcm("русский", "ru"))
        second = await caller_pcm("нет лучше казахский", "ru")
        # the STT double hears what the audio holds (bytes: 2 per sample): the first word alone up to the pause
        # (with the segmenter's 200 ms before and after it), the rest alone after a withdrawal (with its 200 ms
        # before it and after it), or the whole sentence
        first_only = 2 * (len(first) + 3200 + 1600)
        rest_only = 2 * (len(second) + 3200 + 1600 + len(first) // 2)

        def transcribe(wav: bytes, _fields: dict) -> str:
            if len(wav) <= first_only:
                return "русский"
            return "нет лучше казахский" if len(wav) <= rest_only else "русский нет лучше казахский"

        fake.transcripts = transcribe
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        n = len(caller.speech_frames)
        caller.sim.say(np.concatenate((first, np.zeros(int(0.3 * 8000), dtype=np.int16), second)))
        await caller.sim.wait_said(timeout=30)
        finished_at = caller.speech_frames[-1]
        await caller.quiet(min_turns=2)
        await eventually(lambda: caller.frames_between(finished_at), what="the answer")
        await caller.quiet(min_turns=2)
        await caller.sim.hangup()
        record = await caller.record()
        decided = metric(stage, EARLY_TURNS, {"outcome": "decided"})
        withdrawn = metric(stage, EARLY_TURNS, {"outcome": "withdrawn"})
    assert caller.frames_between(caller.speech_frames[n], finished_at) == []  # nothing said before they finished
    said = [t["caller_text"] for t in record["turns"] if t["caller_text"]]
    # whole: withdrawn and carried ("русский" + the rest), or not ended early at all (heard whole)
    assert said == ["русский нет лучше казахский"]
    assert record["turns"][-1]["fields"]["language"] == "kk" and len(record["turns"]) == 2
    assert withdrawn <= 1 and decided - withdrawn <= 1
