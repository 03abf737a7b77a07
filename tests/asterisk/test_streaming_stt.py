"""Streaming STT through a real Asterisk 22 (`STT_PROVIDER=openai_realtime`, `daemon/live_stt.py`): the daemon
process streams the caller's audio to the local server's Realtime transcription websocket while they speak.

1. One whole Russian operator call (language, region, a knowledge-base question, goodbye), judged at the SIP caller
(each answer heard, the goodbye in full, the BYE from the daemon) and from the record; the local server's own
record shows one websocket for the call, one stream per line on it, and the audio of each line arriving before
the caller had finished it. The question is asked with a
300 ms pause mid-sentence ("Как оплатить ... домашний интернет?"): the daemon commits at the pause and goes on
on the same stream, and the caller hears one answer, to the whole question, after it.
2. The same call in Kazakh (`қазақша`, a region, a knowledge-base question, goodbye): every reply heard in full in
the Kazakh voice, the answer's citation in it, one websocket for the call.

The two calls share one stack (its Asterisk + daemon start ~55 s); each call ~40 s. Each reports voice-to-voice at
the caller per line.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from typing import Any

import numpy as np
import pytest

from policies.operator.catalog import GREETING, say
from tests.support.asterisk import (
                                    Said,
                                    SipCaller,
                                    Stack,
                                    bot_line,
                                    contains,
                                    talkspurts,
                                    voice_to_voice_ms,
                                    voice_to_voice_report,
                                    wait_reply,
)
from tests.support.asterisk.heard import one_answer
from tests.support.asterisk.speech import LineRecogniser, similarity
from tests.support.asterisk.stack import clip
from tests.test_daemon_streaming_stt import utterances

pytestmark = pytest.mark.asterisk

HEARD_IN_FULL = 0.9
PAUSE_S = 0.3  # the caller's pause mid-question: longer than VAD_EARLY_STT_MS (240), shorter than the end (600)
LINES = ["По-русски, пожалуйста.", "Я живу в Караганде."]
QUESTION = ("Как оплатить", "домашний интернет?")
GOODBYE = "Спасибо, до свидания."


@pytest.fixture(scope="module")
def streaming_stack(asterisk_ready: None) -> Iterator[Stack]:
    stack = Stack.start(recogniser=LineRecogniser(), STT_PROVIDER="openai_realtime")
    try:
        yield stack
    finally:
        stack.stop()


def say_with_pause(stack: Stack, caller: SipCaller, parts: tuple[str, str], language: str) -> Said:
    """The caller says `parts` as one line with a `PAUSE_S` silence between them."""
    pause = np.zeros(int(PAUSE_S * 8000), dtype=np.int16)
    pcm = np.concatenate([clip(parts[0], language), pause, clip(parts[1], language)])
    stack.openai.recogniser.expect(" ".join(parts), pcm)
    return caller.say(pcm)


def realtime_sockets(stack: Stack, since: int = 0) -> list[dict[str, Any]]:
    """The local server's records of the Realtime websockets (from its `since`-th request on), in order."""
    return [r for r in list(stack.openai.server.requests)[since:] if r["path"] == "/v1/realtime"]


def event_times_ns(events: list[tuple[str, float]], kind: str, to_realtime_ns: float) -> list[int]:
    """When the server got each `kind` event of `events`, on the caller's clock (CLOCK_REALTIME ns)."""
    return [int(at * 1e9 + to_realtime_ns) for k, at in events if k == kind]


def test_a_call_streamed_to_the_stt_while_the_caller_speaks_through_a_real_asterisk(
        streaming_stack: Stack, record_property: Any) -> None:
    stack = streaming_stack
    since = len(stack.openai.server.requests)  # the stack is the module's: this call's requests come after these
    to_realtime_ns = time.time_ns() - time.monotonic() * 1e9  # the server's monotonic stamps -> the RTP peer's clock
    caller = stack.dial("100")
    call_id = caller.channel_id()
    caller.wait_media()
    wait_reply(caller.rtp, 0)
    assert contains(caller.rtp.pcm(0)[1], bot_line(GREETING.splitlines()[0], "ru")) > HEARD_IN_FULL

    said: list[Said] = []
    for text in LINES:
        said.append(stack.say(caller, text, "ru"))
        wait_reply(caller.rtp, said[-1].last_ns)
    question = say_with_pause(stack, caller, QUESTION, "ru")
    question_pcm = stack.openai.recogniser.armed[" ".join(QUESTION)]
    said.append(question)
    answer_spurts = wait_reply(caller.rtp, question.last_ns)
    heard_answer = caller.rtp.pcm(question.first_ns)[1]
    said.append(stack.say(caller, GOODBYE, "ru"))
    ending = caller.wait_ended()
    assert ending.how == "bye_received", f"the caller got no BYE ({ending}): {caller.failure()}"
    record = stack.record(call_id)

    # the caller's side: every line answered, one answer to the question, none during its pause
    turns = [t for t in record["turns"] if t["caller_text"]]
    asked = " ".join(QUESTION)
    assert [t["caller_text"] for t in turns] == [*LINES, asked, GOODBYE], record["turns"]
    assert turns[0]["fields"]["language"] == "ru" and turns[1]["fields"]["region_code"] == "KZ-35"
    answer = turns[2]
    citations = answer["fields"]["citations"]
    assert citations and citations[0]["title"] in answer["bot_text"], answer
    assert contains(heard_answer, bot_line(answer["bot_text"], "ru")) > HEARD_IN_FULL  # heard in full
    spurts = talkspurts(caller.rtp, question.first_ns)
    assert spurts[0].first_ns > question.last_ns, "the bot spoke in the caller's pause"
    assert answer_spurts[0].first_ns == spurts[0].first_ns  # the first thing heard after the question is its answer
    last = turns[-1]
    assert last["fields"]["hang_up"] is True and contains(caller.rtp.pcm(said[-1].first_ns)[1],
                                                          bot_line(last["bot_text"], "ru")) > HEARD_IN_FULL
    assert record["ended_by"] == "bot" and record["disposition"] == "completed", record

    # the STT's side: one websocket for the call, one stream per line on it, fed while the caller spoke, no upload
    sockets = realtime_sockets(stack, since)
    uploads = [r for r in stack.openai.server.requests[since:] if r["path"] == "/v1/audio/transcriptions"]
    assert not uploads, f"{len(uploads)} batch uploads with a streaming STT"
    assert len(sockets) == 1, f"{len(sockets)} websockets for one call"
    sessions = utterances(sockets[0])
    assert len(sessions) == len(said), [[k for k, _ in s] for s in sessions]
    for session, line in zip(sessions, said, strict=True):
        appends = event_times_ns(session, "input_audio_buffer.append", to_realtime_ns)
        assert appends and appends[0] < line.last_ns, "no audio reached the STT before the caller's line ended"
    commits = event_times_ns(sessions[2], "input_audio_buffer.commit", to_realtime_ns)
    assert len(commits) >= 2 and commits[0] < question.last_ns  # committed at the pause, the same stream went on
    early_stt = record["summary"].get("early_stt") or {}
    assert not early_stt.get("failed"), early_stt
    lead_ms = [(line.last_ns - event_times_ns(s, "input_audio_buffer.append", to_realtime_ns)[0]) / 1e6
               for s, line in zip(sessions, said, strict=True)]
    record_property("report", "asterisk streaming STT: first audio at the STT " + ", ".join(
        f"{ms:.0f}" for ms in lead_ms) + " ms before each line's end; question: "
        f"{len(commits)} commits, answer {(spurts[0].first_ns - question.last_ns) / 1e6:.0f} ms after it; "
        f"early_stt {early_stt}; its timings {answer['timings']}")
    pcms = [clip(text, "ru") for text in LINES] + [question_pcm, clip(GOODBYE, "ru")]
    record_property("report", voice_to_voice_report("streaming STT, ru", [
        (turn["caller_text"], voice_to_voice_ms(caller.rtp, line, pcm)) for turn, line, pcm in zip(
            turns, said, pcms, strict=True)]))


KK_LINES = ["қазақша", "мен астанада тұрамын", "үй интернеті қанша тұрады"]
KK_GOODBYE = "рахмет сау болыңыз"
KAZAKH_LETTERS = frozenset("әғқңөұүһі")  # not in Russian: a reply with none of them is not Kazakh


def test_a_kazakh_call_streamed_to_the_stt_through_a_real_asterisk(
        streaming_stack: Stack, record_property: Any) -> None:
    stack = streaming_stack
    since = len(stack.openai.server.requests)  # the stack is the module's: this call's requests come after these
    caller = stack.dial("100")
    call_id = caller.channel_id()
    caller.wait_media()
    wait_reply(caller.rtp, 0)
    said: list[Said] = []
    for text in [*KK_LINES, KK_GOODBYE]:
        said.append(stack.say(caller, text, "kk"))
        wait_reply(caller.rtp, said[-1].last_ns)
    ending = caller.wait_ended()
    assert ending.how == "bye_received", f"the caller got no BYE ({ending}): {caller.failure()}"
    record = stack.record(call_id)

    turns = [t for t in record["turns"] if t["caller_text"]]
    assert [t["caller_text"] for t in turns] == [*KK_LINES, KK_GOODBYE], record["turns"]
    assert turns[0]["fields"]["language"] == "kk" and turns[1]["fields"]["region_code"] == "KZ-71", turns[:2]
    for line, turn, after in zip(said, turns, [*said[1:], None], strict=True):  # each reply Kazakh, heard in full
        assert KAZAKH_LETTERS & set(turn["bot_text"].lower()), turn["bot_text"]
        problem = one_answer(caller.rtp, (line.first_ns, line.last_ns), after.first_ns if after else None,
                             bot_line(turn["bot_text"], "kk"))
        assert problem is None, f"{turn['caller_text']!r}: {problem}"
    answer = turns[2]
    citations = answer["fields"]["citations"]
    title = citations[0]["title"] if citations else None
    assert title and answer["bot_text"].startswith(say("answer", "kk", source=title, text="").rstrip()), answer
    # the citation heard: the answer's opening, as long as its cited source said alone, sample for sample
    opening = bot_line(answer["bot_text"], "kk")[: len(bot_line(say("answer", "kk", source=title, text=""), "kk"))]
    cited = similarity(caller.rtp.pcm(said[2].last_ns)[1], opening)
    assert cited > HEARD_IN_FULL, f"the citation «{title}» not heard ({cited:.2f})"
    assert turns[-1]["fields"]["hang_up"] is True and record["disposition"] == "completed", record

    sockets = realtime_sockets(stack, since)
    assert len(sockets) == 1, f"{len(sockets)} websockets for one call"
    assert len(utterances(sockets[0])) == len(said), [[k for k, _ in s] for s in utterances(sockets[0])]
    assert not [r for r in stack.openai.server.requests[since:] if r["path"] == "/v1/audio/transcriptions"]
    record_property("report", voice_to_voice_report("streaming STT, kk", [
        (text, voice_to_voice_ms(caller.rtp, line, clip(text, "kk"))) for text, line in zip(
            [*KK_LINES, KK_GOODBYE], said, strict=True)]) + f"; citation «{title}» heard {cited:.3f}")
