"""A question's model request sent ahead at a shorter pause (`daemon/model_prefetch.py`, `VAD_PREFETCH_MS`), from
the caller's side on the simulated PBX: real RTP, the caller's voice from espeak-ng, webrtcvad, real websockets to
the local server's Realtime transcription endpoint, the chat model over real HTTP (the registry's OpenAI adapter)
against the local server, whose model answers by repeating the question it was asked.

When the turn decided at its pause makes the very request sent ahead, that request's answer is the one the caller
hears: one chat request in all, the knowledge-base search not repeated. When the caller goes on after the shorter
pause, what was sent for the fragment is closed unused (counted as wasted) and the caller hears one answer: the
answer to the whole line; and when the caller hangs up before the turn takes it, it is closed with the call.
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.sim.openai_server import FakeOpenAI
from tests.support.daemon import SPEECH_LEVEL, Caller, caller_pcm, metric, runs, trim_leading_silence
from tests.support.wait import eventually
from tests.test_daemon_provider_failures import provider_stage

AHEAD: dict[str, Any] = {"STT_PROVIDER": "openai_realtime", "LLM_PROVIDER": "openai", "LLM_TIMEOUT_S": 10.0,
                         "VAD_END_SILENCE_MS": 1000, "VAD_EARLY_STT_MS": 240, "VAD_PREFETCH_MS": 120}
ONE_REPLY_GAP_S = 0.6  # a pause this long inside what the caller heard would be two replies
MID_PAUSE_S = 0.18  # longer than VAD_PREFETCH_MS, shorter than VAD_EARLY_STT_MS


def echo(body: dict[str, Any]) -> dict[str, Any]:
    """The chat double: an answer that says which question it answers."""
    question = next(str(m["content"]) for m in reversed(body["messages"]) if m.get("role") == "user")
    return {"content": f"Отвечаю на вопрос: {question}"}


def chat_questions(fake: FakeOpenAI) -> list[str]:
    """The question of every chat request the server got, in order."""
    return [next(str(m["content"]) for m in reversed(r["json"]["messages"]) if m.get("role") == "user")
            for r in fake.requests if r["path"] == "/v1/chat/completions"]


async def ready_to_help(caller: Caller) -> None:
    """Russian, a region: the caller may ask questions."""
    caller.sim.send_dtmf("1")
    await caller.quiet(min_turns=2)
    await caller.say("Я живу в Караганде.")
    await caller.quiet(min_turns=3)


@pytest.mark.slow
async def test_the_model_request_sent_ahead_is_the_one_the_caller_hears_and_is_asked_once(daemon_base) -> None:
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, **AHEAD) as stage:
        fake.chat_script = echo
        caller = await Caller.place(stage)
        await ready_to_help(caller)
        asked = await caller.say("Сколько стоит домашний интернет?")
        await caller.quiet(min_turns=4)
        heard = caller.frames_between(asked)
        await caller.sim.hangup()
        record = await caller.record()
        used = metric(stage, "ai_operator_prefetch_requests_total", {"request": "model", "outcome": "used"})
    turn = record["turns"][-1]
    assert turn["caller_text"] == "Сколько стоит домашний интернет?"
    assert turn["bot_text"] == "Отвечаю на вопрос: Сколько стоит домашний интернет?"
    assert chat_questions(fake) == ["Сколько стоит домашний интернет?"]  # asked once: ahead, and adopted
    assert record["summary"]["prefetch"] == {"kb_used": 1, "model_used": 1} and used == 1
    assert heard and len(runs(heard, gap_s=ONE_REPLY_GAP_S)) == 1


def _trimmed(pcm: np.ndarray) -> np.ndarray:
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > SPEECH_LEVEL)
    return pcm[: loud[-1] + 1] if loud.size else pcm


@pytest.mark.slow
async def test_a_request_sent_ahead_for_a_fragment_is_closed_and_the_caller_hears_the_answer_to_the_whole_line(
        daemon_base) -> None:
    fragment, whole = "Сколько стоит интернет", "Сколько стоит интернет для дома в Караганде?"
    first = _trimmed(trim_leading_silence(await caller_pcm(fragment, "ru")))
    rest = trim_leading_silence(await caller_pcm("для дома в Караганде?", "ru"))
    line = np.concatenate([first, np.zeros(int(MID_PAUSE_S * SAMPLE_RATE), dtype=np.int16), rest])
    # the recogniser hears the fragment until the caller goes on (the audio so far is longer than it and the pause)
    fragment_samples = len(first) + int((MID_PAUSE_S + 0.1) * SAMPLE_RATE)

    def transcripts(wav: bytes, _fields: dict[str, Any]) -> str:
        return whole if (len(wav) - 44) // 2 > fragment_samples else fragment

    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, **AHEAD) as stage:
        fake.chat_script = echo
        caller = await Caller.place(stage)
        await ready_to_help(caller)
        fake.transcripts = transcripts
        asked = len(caller.speech_frames)
        caller.sim.say(line)
        await caller.sim.wait_said(timeout=60)
        started = caller.speech_frames[asked]
        await caller.quiet(min_turns=4)
        heard = caller.frames_between(started)
        await caller.sim.hangup()
        record = await caller.record()
    turns = [t for t in record["turns"] if t["caller_text"]]
    assert turns[-1]["caller_text"] == whole and fragment not in [t["caller_text"] for t in turns]
    assert turns[-1]["bot_text"] == f"Отвечаю на вопрос: {whole}"  # the answer to what was said, whole
    assert set(chat_questions(fake)) <= {fragment, whole} and chat_questions(fake)[-1] == whole
    prefetch = record["summary"]["prefetch"]
    assert prefetch.get("kb_wasted", 0) + prefetch.get("model_wasted", 0) >= 1  # the fragment's, closed unused
    assert prefetch["model_used"] >= 1
    assert heard and len(runs(heard, gap_s=ONE_REPLY_GAP_S)) == 1  # one answer


@pytest.mark.slow
async def test_a_request_sent_ahead_and_not_taken_is_closed_with_the_call_when_the_caller_hangs_up(
        daemon_base) -> None:
    late_turn = {**AHEAD, "VAD_EARLY_STT_MS": 1500, "VAD_END_SILENCE_MS": 2000}  # the turn waits; the caller does not
    async with FakeOpenAI() as fake, provider_stage(daemon_base, fake, **late_turn) as stage:
        fake.chat_script = echo
        caller = await Caller.place(stage)
        await ready_to_help(caller)
        await caller.say("Сколько стоит домашний интернет?")
        await eventually(lambda: chat_questions(fake), what="the question's model request sent ahead")
        await caller.sim.hangup()  # before the turn's pause: nothing takes what was sent ahead
        record = await caller.record()
    assert chat_questions(fake) == ["Сколько стоит домашний интернет?"]
    assert "Сколько стоит домашний интернет?" not in [t["caller_text"] for t in record["turns"]]
    # counted in the call's own record: closed at its end (a timer after the hang-up would come too late for it;
    # on a box so slow that the hang-up takes longer than that timer, the timer closed it: counted the same)
    assert record["summary"]["prefetch"] == {"kb_wasted": 1, "model_wasted": 1}
