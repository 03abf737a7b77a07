"""Speculative turns (`daemon/early_turn.py`, `VAD_SPECULATE`), from the caller's side on the simulated PBX: real
RTP, the caller's voice from espeak-ng, webrtcvad. A question the policy calls neither complete nor dangling is
decided at the short pause - its knowledge-base search runs while the caller's line is still in its end
silence - but the caller hears the answer only once the end silence has passed, as before, only without waiting
for the search; a caller who goes on before then gets one answer to the whole utterance, and what the withdrawn
decision asked for (a search, a model request) is counted; a goodbye decided at the pause never hangs up on a
caller who goes on; once the answer is heard, barge-in is as ever. Batch and streaming STT.

The end silence is long (2 s): "decided before it" is an ordering the normal rule cannot produce on any machine.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from contextlib import asynccontextmanager
from typing import Any

import numpy as np
import pytest

from ai_operator.daemon.services import DaemonOverrides
from ai_operator.llm.chat import ChatModel
from ai_operator.media.codecs import FRAME_SAMPLES
from ai_operator.sim.openai_server import FakeOpenAI
from policies.operator.catalog import say
from tests.support.daemon import (
    Caller,
    bot_tts,
    caller_pcm,
    hangup_requests,
    metric,
    stage_for,
    trim_leading_silence,
)
from tests.support.wait import eventually
from tests.test_daemon_early_turn import GatedTTS
from tests.test_daemon_provider_failures import provider_stage

END_SILENCE_S = 2.0
EARLY: dict[str, Any] = {"VAD_END_SILENCE_MS": int(END_SILENCE_S * 1000), "VAD_EARLY_STT_MS": 240, "KB_SEARCH_TIMEOUT_S": 30.0}
SPECULATIVE = "ai_operator_speculative_turns_total"
WASTED = "ai_operator_early_turn_requests_wasted_total"
QUESTION = "какая погода будет завтра"  # no topic of the knowledge base: neither complete nor dangling
VAD_SLACK_S = 0.1  # the VAD's last speech frame may be a few frames before the last loud sample


class GatedKnowledge:
    """The daemon's knowledge base, except that the first search waits until the test opens the gate."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.searches: list[float] = []  # when each search was asked (monotonic)
        self.gate = asyncio.Event()

    async def search(self, *args: Any, **kwargs: Any) -> Any:
        self.searches.append(time.monotonic())
        if len(self.searches) == 1:
            await self.gate.wait()
        return await self.inner.search(*args, **kwargs)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)


def gate_knowledge(stage: Any) -> GatedKnowledge:
    gated = GatedKnowledge(stage.svc.knowledge)
    stage.svc.knowledge = gated  # the calls placed from now on search through it
    return gated


@asynccontextmanager
async def staged(daemon_base: Any, stt: str, **values: Any) -> AsyncIterator[Any]:
    if stt == "batch":
        async with stage_for(daemon_base, **EARLY, **values) as stage:
            yield stage
    else:
        async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, STT_PROVIDER="openai_realtime",
                                                         **EARLY, **values) as stage:
            yield stage


async def ready_to_help(caller: Caller) -> None:
    await caller.quiet(min_turns=1)
    for line, turns in (("русский", 2), ("Караганда", 3)):
        await caller.say(line)
        await caller.quiet(min_turns=turns)


def last_voiced(caller: Caller, n: int, pcm: np.ndarray) -> float:
    """When the caller sent the last loud frame of `pcm`, queued from frame `n` on."""
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > 300)
    return caller.speech_frames[n + int(loud[-1]) // FRAME_SAMPLES]


def summary_turns(record: dict[str, Any]) -> Iterator[str]:
    return (t["caller_text"] for t in record["turns"] if t["caller_text"])


@pytest.mark.slow
@pytest.mark.parametrize("stt", ["batch", "stream"])
async def test_a_question_is_decided_at_the_pause_and_heard_when_the_end_silence_has_passed(daemon_base,
                                                                                              stt: str) -> None:
    async with staged(daemon_base, stt) as stage:
        gated = gate_knowledge(stage)
        caller = await Caller.place(stage)
        await ready_to_help(caller)
        pcm = trim_leading_silence(await caller_pcm(QUESTION, "ru"))
        n = len(caller.speech_frames)
        if stage.transcripts is not None:
            stage.transcripts.current = QUESTION
        caller.sim.say(pcm)
        await caller.sim.wait_said(timeout=60)
        finished = last_voiced(caller, n, pcm)
        await eventually(lambda: gated.searches, what="the knowledge-base search")
        searched_after_s = gated.searches[0] - finished
        gated.gate.set()
        await eventually(lambda: caller.frames_between(finished), what="the answer")
        heard_after_s = caller.frames_between(finished)[0] - finished
        await caller.quiet(min_turns=4)
        await caller.sim.hangup()
        record = await caller.record()
    # the search was asked while the caller's line was still in its end silence: the turn was decided at the pause
    assert searched_after_s < END_SILENCE_S
    # and the caller heard the answer only when the end silence had passed, as without speculation
    assert heard_after_s >= END_SILENCE_S - VAD_SLACK_S
    assert list(summary_turns(record)) == ["русский", "Караганда", QUESTION]
    question = record["turns"][-1]
    assert question["timings"]["eou_ms"] < END_SILENCE_S * 1000 and question["bot_text"]
    assert record["summary"]["speculative_turns"] == {"decided": 1, "withdrawn": 0}
    assert record["summary"]["early_turns"] == {"decided": 2, "withdrawn": 0}
    assert "early_turns_wasted" not in record["summary"]
    assert len(gated.searches) == 1


@pytest.mark.slow
async def test_a_caller_who_goes_on_gets_one_answer_to_the_whole_and_the_wasted_search_is_counted(daemon_base) -> None:
    async with stage_for(daemon_base, **EARLY) as stage:
        fake = stage.fake_openai
        assert fake is not None
        gated = gate_knowledge(stage)
        caller = await Caller.place(stage)
        await ready_to_help(caller)
        first = trim_leading_silence(await caller_pcm("какая погода", "ru"))
        second = trim_leading_silence(await caller_pcm("будет завтра", "ru"))
        asked: list[int] = []

        def transcribe(_wav: bytes, _fields: dict) -> str:  # the first request is of the audio up to the pause
            asked.append(1)
            return "какая погода" if len(asked) == 1 else "будет завтра"

        fake.transcripts = transcribe
        n = len(caller.speech_frames)
        caller.sim.say(first)
        await caller.sim.wait_said(timeout=30)
        # decided at the pause: its search is under way (held at the gate) when the caller goes on
        await eventually(lambda: gated.searches, what="the speculative decision's search")
        n2 = len(caller.speech_frames)
        caller.sim.say(second)
        await caller.sim.wait_said(timeout=30)
        finished = last_voiced(caller, n2, second)
        gated.gate.set()
        await eventually(lambda: metric(stage, SPECULATIVE, {"outcome": "withdrawn"}) == 1, what="the withdrawal")
        await eventually(lambda: caller.frames_between(finished), what="the answer to the whole question")
        await caller.quiet(min_turns=4)
        await caller.sim.hangup()
        record = await caller.record()
        wasted = metric(stage, WASTED, {"request": "kb"})
    assert caller.frames_between(caller.speech_frames[n], finished) == []  # nothing said before they finished
    assert list(summary_turns(record)) == ["русский", "Караганда", QUESTION]  # one turn, no words lost
    assert len(record["turns"]) == 4  # the greeting, the two answers and that one: nothing recorded twice
    assert record["summary"]["speculative_turns"]["withdrawn"] == 1
    assert record["summary"]["early_turns_wasted"] == {"kb": 1, "model": 0}
    assert wasted == 1.0 and len(gated.searches) == 2


MODEL_ANSWER = "Погоду я не подскажу, но расскажу о тарифах и услугах."


async def go_on_while_held(stage: Any, caller: Any, tts: GatedTTS, first_text: str,
                           second_text: str, counted: str = SPECULATIVE) -> tuple[int, Any]:
    """The caller says `first_text`; once its reply (decided at the pause) waits for its voice, they go on with
    `second_text`. Waits for the withdrawal (counted in `counted`), lets the voice go and for the answer to the
    whole line. Returns the caller's frame index before the first line and the last voiced frame of the second."""
    fake = stage.fake_openai
    assert fake is not None
    first = trim_leading_silence(await caller_pcm(first_text, "ru"))
    second = trim_leading_silence(await caller_pcm(second_text, "ru"))
    asked: list[int] = []

    def transcribe(_wav: bytes, _fields: dict) -> str:
        asked.append(1)
        return first_text if len(asked) == 1 else second_text

    fake.transcripts = transcribe
    n = len(caller.speech_frames)
    caller.sim.say(first)
    await caller.sim.wait_said(timeout=30)
    await asyncio.wait_for(tts.waiting.wait(), timeout=30)
    n2 = len(caller.speech_frames)
    caller.sim.say(second)
    await caller.sim.wait_said(timeout=30)
    finished = last_voiced(caller, n2, second)
    await eventually(lambda: metric(stage, counted, {"outcome": "withdrawn"}) == 1, what="the withdrawal")
    tts.gate.set()
    await eventually(lambda: caller.frames_between(finished), what="the answer to the whole line")
    return n, finished


@pytest.mark.slow
async def test_a_withdrawn_model_turn_is_never_heard_and_its_model_request_is_counted(daemon_base) -> None:
    async with FakeOpenAI() as llm:
        llm.chat_script = lambda _body: {"content": MODEL_ANSWER}
        model = ChatModel(api_key=llm.api_key, base_url=llm.base_url, model="gpt-test", timeout_s=20)
        tts = GatedTTS(bot_tts(daemon_base.state_dir), "Погоду")
        async with stage_for(daemon_base, overrides=DaemonOverrides(model=model, tts=tts), **EARLY) as stage:
            caller = await Caller.place(stage)
            await ready_to_help(caller)
            # decided at the pause: the model answered and its first sentence waits for its voice
            n, finished = await go_on_while_held(stage, caller, tts, "какая погода", "будет завтра")
            await caller.quiet(min_turns=4)
            await caller.sim.hangup()
            record = await caller.record()
            wasted = {r: metric(stage, WASTED, {"request": r}) for r in ("kb", "model")}
    chats = [r for r in llm.requests if r["path"] == "/v1/chat/completions"]
    assert caller.frames_between(caller.speech_frames[n], finished) == []  # nothing said before they finished
    assert list(summary_turns(record)) == ["русский", "Караганда", QUESTION]
    assert record["turns"][-1]["bot_text"] == MODEL_ANSWER
    assert record["summary"]["early_turns_wasted"] == {"kb": 1, "model": 1}
    assert wasted == {"kb": 1.0, "model": 1.0} and len(chats) == 2  # one wasted, one answered


@pytest.mark.slow
async def test_a_caller_who_speaks_after_the_answer_started_barges_in_as_ever(daemon_base) -> None:
    async with stage_for(daemon_base, **EARLY) as stage:
        caller = await Caller.place(stage)
        await ready_to_help(caller)
        start = await caller.say(QUESTION)
        await eventually(lambda: caller.frames_between(start), what="the answer")
        await caller.say("повторите пожалуйста")  # over the answer, once it is heard
        await caller.quiet(min_turns=5)
        await caller.sim.hangup()
        record = await caller.record()
    # the answer was not withdrawn: it stays recorded, and what the caller said over it is a turn of its own
    assert list(summary_turns(record)) == ["русский", "Караганда", QUESTION, "повторите пожалуйста"]
    assert record["summary"]["speculative_turns"] == {"decided": 1, "withdrawn": 0}
    assert record["summary"].get("early_turns", {}).get("withdrawn", 0) == 0


@pytest.mark.slow
async def test_a_goodbye_decided_at_the_pause_never_hangs_up_on_a_caller_who_goes_on(daemon_base) -> None:
    tts = GatedTTS(bot_tts(daemon_base.state_dir), say("closing", "ru"))
    async with stage_for(daemon_base, overrides=DaemonOverrides(tts=tts), **EARLY) as stage:
        caller = await Caller.place(stage)
        await ready_to_help(caller)
        # the goodbye, decided at the pause, waits to be said while the caller goes on
        n, finished = await go_on_while_held(stage, caller, tts, "всё понятно спасибо",
                                             "а ещё вопрос сколько стоит роуминг")
        await caller.quiet(min_turns=4)
        hung_up_by_bot = hangup_requests(stage, caller.sim.channel_id)
        await caller.sim.hangup()
        record = await caller.record()
    assert hung_up_by_bot == [] and caller.frames_between(caller.speech_frames[n], finished) == []
    assert list(summary_turns(record))[-1] == "всё понятно спасибо а ещё вопрос сколько стоит роуминг"
    last = record["turns"][-1]
    assert not last["fields"]["hang_up"] and last["state"] == "READY_TO_HELP" and last["bot_text"]  # it goes on
    assert record["summary"]["speculative_turns"]["withdrawn"] == 1
