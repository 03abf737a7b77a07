"""Every ending ends (ARCHITECTURE.md "Ending lines"), from the caller's side on the simulated PBX.

For each line after which the call ends - the policy's closing line, its misunderstood goodbye, the line after a
handoff the PBX refused, a long
model-written goodbye (freight, through the local OpenAI-compatible server), the shutdown line (drain) and the
maximum-call-length line - the caller talks over it at its start (and keeps talking), in its middle (a question),
in its last 200 ms (an acknowledgement), or stays silent. The caller hears the whole line and nothing after it;
the BYE comes within 2 s of the line's last frame, measured on the simulated PBX's media timeline (the time each
RTP packet reached the caller, the time the hang-up reached the PBX); the record says the bot ended the call, with
the disposition the policy gave.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass
from typing import Any

import pytest

from ai_operator.callend import LINE_MARGIN_S, expected_line_s
from ai_operator.daemon.services import DaemonOverrides
from ai_operator.llm.chat import ChatModel
from ai_operator.media.frames import FRAME_S
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.sim.pbx.bridging import SimHttpError
from ai_operator.sim.stage import Stage
from policies.freight import lines as freight_lines
from policies.operator.catalog import say
from tests.support.daemon import Caller, caller_pcm, stage_for, synthesized_frames, trim_leading_silence
from tests.support.freight import DEAL_AT_QUOTE, LONG_MODEL_GOODBYE
from tests.support.wait import eventually

BYE_WITHIN_S = 2.0
ENDING_WATCHDOG_S = 30.0  # the hang-up watchdog in the ending-line tests: far past any line's end
# What the caller says over the line, by when: keeps talking from its start, a question in its middle, an
# acknowledgement in its last 200 ms, or nothing.
WORDS = {
    "ru": {"start": "Подождите, подождите, я ещё не договорил, у меня есть вопрос по оплате интернета и по тарифу",
           "middle": "А сколько стоит подключение?", "last_200ms": "Да, спасибо"},
    "hi": {"start": "अरे सुनिए मेरी बात, गाड़ी का भाड़ा और डीज़ल दोनों बढ़ गए हैं, और टोल भी लगता है",
           "middle": "पेमेंट कब मिलेगा?", "last_200ms": "ठीक है जी"},
}  # fmt: skip
TIMINGS = ["start", "middle", "last_200ms", "silent"]


@dataclass
class Ending:
    """How a test brings a call to one ending line, and what the record must say after it."""

    route: str
    text: str  # the ending line
    language: str
    disposition: str
    lead_in: Callable[[Stage, Caller], Awaitable[asyncio.Task | None]]  # up to the ending line (a drain task)
    settings: dict[str, Any]


async def _russian(stage: Stage, caller: Caller) -> None:
    caller.sim.send_dtmf("1")
    await caller.quiet(min_turns=2)


async def _says_goodbye(stage: Stage, caller: Caller) -> None:
    await _russian(stage, caller)
    await caller.say("Спасибо, до свидания.")


async def _misunderstood(stage: Stage, caller: Caller) -> None:
    await _russian(stage, caller)
    for _ in range(2):
        turns = caller.turns()
        await caller.say("бла бла бла")
        await caller.quiet(min_turns=turns + 1)
    await caller.say("бла бла бла")  # the third in a row: the misunderstood goodbye


async def _handoff_refused(stage: Stage, caller: Caller) -> None:
    await _russian(stage, caller)

    def refuse(_channel_id: str, _params: dict[str, Any]) -> None:
        raise SimHttpError(409, "Channel not in Stasis application")  # Asterisk's answer when the transfer fails

    stage.pbx.op_continue = refuse  # type: ignore[method-assign]
    await caller.say("Соедините с оператором.")


async def _drained(stage: Stage, caller: Caller) -> asyncio.Task:
    await _russian(stage, caller)
    assert stage.daemon.manager is not None
    return asyncio.get_running_loop().create_task(stage.manager.drain(0))  # as on SIGTERM


async def _runs_long(stage: Stage, caller: Caller) -> None:
    await _russian(stage, caller)  # then silence until MAX_CALL_S


async def _deal(stage: Stage, caller: Caller) -> None:
    await caller.quiet(min_turns=1)
    for line in DEAL_AT_QUOTE:
        turns = caller.turns()
        await caller.say(line, "hi")
        if line != DEAL_AT_QUOTE[-1]:
            await caller.quiet(min_turns=turns + 1)


ENDINGS = {
    "closing": Ending("test", say("closing", "ru"), "ru", "completed", _says_goodbye, {}),
    "misunderstood": Ending("test", say("misunderstood_goodbye", "ru"), "ru", "misunderstood", _misunderstood,
                            {"ROUTE_TEST_HANDOFF": ""}),
    "handoff_failed": Ending("test", say("no_handoff", "ru"), "ru", "handoff_failed", _handoff_refused, {}),
    "shutdown": Ending("test", say("shutdown", "ru"), "ru", "shutdown", _drained, {"DRAIN_TIMEOUT_S": 0}),
    "max_call_length": Ending("test", say("max_call_length", "ru"), "ru", "max_call_length", _runs_long,
                              {"MAX_CALL_S": 10, "IDLE_TIMEOUT_S": 60}),
    "model_goodbye": Ending("freight", LONG_MODEL_GOODBYE, "hi", "deal_at_quote", _deal, {}),
}
SHORT = {"misunderstood", "handoff_failed"}  # the same path as "closing": two timings each
CASES = [(e, t) for e in ENDINGS for t in TIMINGS if e not in SHORT or t in ("start", "silent")]


@asynccontextmanager
async def staged(daemon_base, ending: Ending) -> AsyncIterator[Stage]:
    """The stage for `ending`; the freight route gets a model: the local server, whose goodbye is long."""
    async with FakeOpenAI() as server:
        server.goodbye = LONG_MODEL_GOODBYE
        server.chat_script = lambda _body: {"content": ""}  # every other move: the policy's canned line
        model = ChatModel(api_key=server.api_key, base_url=server.base_url, model="gpt-4o-mini", timeout_s=5)
        overrides = DaemonOverrides(model=model) if ending.route == "freight" else DaemonOverrides()
        # the suite's 8 s watchdog would bound a long line that a loaded box plays late; these tests ask for the
        # end that follows the line's last frame (the watchdog has its own test below)
        settings = {"HANGUP_WATCHDOG_S": ENDING_WATCHDOG_S, **ending.settings}
        async with stage_for(daemon_base, overrides=overrides, **settings) as stage:
            yield stage


async def talk_over(caller: Caller, text: str, language: str, at: float) -> None:
    """The caller starts `text` when the PBX's clock reaches `at` (monotonic)."""
    pcm = trim_leading_silence(await caller_pcm(text, language))
    await asyncio.sleep(max(0.0, at - time.monotonic()))
    caller.sim.say(pcm)


@pytest.mark.slow
@pytest.mark.parametrize(("name", "timing"), CASES)
async def test_an_ending_line_is_heard_whole_and_the_bye_follows_its_last_frame(daemon_base, name: str,
                                                                                timing: str) -> None:
    ending = ENDINGS[name]
    async with staged(daemon_base, ending) as stage:
        caller = await Caller.place(stage, route=ending.route)
        call = stage.call_of(caller.sim)
        drain = await ending.lead_in(stage, caller)
        await eventually(lambda: call.callend.armed, 60, what="the ending line decided")
        armed_at = call.callend.armed_at
        line_frames = await synthesized_frames(stage.svc.tts_for(call.route), ending.text, ending.language,
                                               call.route.policy)
        first = await eventually(lambda: next((t for t, _ in caller.sim.received if t >= armed_at), None), 30,
                                 what="the ending line's first frame at the caller")
        words = WORDS[ending.language].get(timing)
        if words is not None:
            offset = {"start": 0.0, "middle": line_frames * FRAME_S / 2, "last_200ms": line_frames * FRAME_S - 0.2}
            await talk_over(caller, words, ending.language, first + offset[timing])
        await caller.sim.wait_hangup(timeout=30)
        record = await caller.record()
        if drain is not None:
            await drain

    heard = [t for t, _ in caller.sim.received if t >= first]
    assert caller.sim.hung_up_by == "app"
    assert len(heard) >= line_frames - 1, f"the line was cut: {len(heard)} of {line_frames} frames"
    assert len(heard) <= line_frames + 1, "the bot said something after the ending line"
    assert caller.ended_at is not None
    gap = caller.ended_at - heard[-1]
    caller_gap = caller.ended_at - caller.speech_frames[-1] if words is not None else None
    print(f"ENDING_GAP {name} {timing} last_bot_frame->bye={gap:.3f}s caller_last_word->bye="
          f"{'-' if caller_gap is None else f'{caller_gap:.3f}s'}")
    assert 0 < gap <= BYE_WITHIN_S, f"BYE {gap:.2f} s after the line's last frame"
    turns = record["turns"]
    assert turns[-1]["bot_text"] == ending.text and turns[-1]["fields"]["hang_up"] is True, turns[-1]
    assert record["ended_by"] == "bot" and record["disposition"] == ending.disposition, record
    assert record["summary"]["end_fired"] == "grace"


async def test_an_ending_line_that_cannot_be_spoken_ends_the_call_at_once(daemon_base) -> None:
    """The TTS fails on the goodbye (nothing audible comes out): the call ends at once, by the bot, not at a
    deadline or the watchdog."""
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        call = stage.call_of(caller.sim)
        await _russian(stage, caller)
        tts = call.speaker.tts
        real_stream = tts.stream

        def failing(text: str, voice: str, *, cache: bool):
            if text == say("closing", "ru"):
                raise RuntimeError("TTS down")
            return real_stream(text, voice, cache=cache)

        tts.stream = failing
        try:
            await caller.say("Спасибо, до свидания.")
            await caller.sim.wait_hangup(timeout=30)
        finally:
            tts.stream = real_stream
        record = await caller.record()
    said_at = caller.speech_frames[-1]
    assert caller.sim.hung_up_by == "app"
    assert caller.ended_at is not None and caller.ended_at - said_at <= BYE_WITHIN_S + 3.0  # STT + the turn
    assert not caller.frames_between(said_at), "no line was playable, yet the caller heard one"
    assert record["ended_by"] == "bot" and record["disposition"] == "completed"
    assert record["summary"]["end_fired"] == "grace"


def test_every_ending_line_fits_the_cases() -> None:
    """The parametrisation covers every ending line and timing; the freight model goodbye passes the policy's
    own check (otherwise the canned goodbye would be spoken and the test would not be about a model line)."""
    from policies.freight.prompts import check_model_output

    assert check_model_output(LONG_MODEL_GOODBYE, freight_lines.GOODBYE) is None
    assert {e for e, _ in CASES} == set(ENDINGS)
    assert all(set(words) == set(TIMINGS) - {"silent"} for words in WORDS.values())


async def test_a_caller_who_hangs_up_during_the_goodbye_keeps_the_calls_outcome(daemon_base) -> None:
    """The record is truthful: the caller ended the call, and what the call achieved is still what it achieved."""
    async with stage_for(daemon_base) as stage:
        caller = await Caller.place(stage)
        call = stage.call_of(caller.sim)
        await _says_goodbye(stage, caller)
        await eventually(lambda: call.callend.armed, 30, what="the goodbye decided")
        armed_at = call.callend.armed_at
        await eventually(lambda: any(t >= armed_at for t, _ in caller.sim.received), 30, what="the goodbye playing")
        await caller.sim.hangup()
        record = await caller.record()
    assert record["ended_by"] == "caller" and record["disposition"] == "completed", record


async def test_an_ending_line_that_never_stops_ends_at_its_own_deadline_not_the_watchdog(daemon_base) -> None:
    """The goodbye's TTS stream stalls after its first chunk (no end, no error): the call ends at the armed end's
    own deadline (the line's expected length + LINE_MARGIN_S after its first frame), long before the watchdog."""
    async with stage_for(daemon_base, HANGUP_WATCHDOG_S=60) as stage:
        caller = await Caller.place(stage)
        call = stage.call_of(caller.sim)
        await _russian(stage, caller)
        tts = call.speaker.tts
        real_stream = tts.stream

        async def stalling(text: str, voice: str, *, cache: bool):
            async for chunk in real_stream(text, voice, cache=cache):
                yield chunk
                if text == say("closing", "ru"):
                    await asyncio.Event().wait()  # never another chunk, never the end

        tts.stream = stalling
        try:
            await caller.say("Спасибо, до свидания.")
            await caller.sim.wait_hangup(timeout=60)
        finally:
            tts.stream = real_stream
        record = await caller.record()
    first = next(t for t, _ in caller.sim.received if t >= call.callend.armed_at)
    expected = expected_line_s(say("closing", "ru")) + LINE_MARGIN_S
    assert caller.ended_at is not None and caller.ended_at - first < 60 / 2  # not the watchdog
    assert caller.ended_at - first >= expected - 0.1
    assert record["ended_by"] == "bot" and record["summary"]["end_fired"] == "line_deadline", record
