"""Provider connections kept across turns (`openai_client.py`, `providers/warm.py`), counted by the local server
(it numbers the TCP connections its requests came on): the STT, chat and TTS clients each keep one connection
across turns further apart than httpx's 5 s default would keep it (the gap skipped on the HTTP library's clock,
not slept), a client with none kept makes one when asked to warm (a free `GET /models`), and in a call the
caller's first words warm the route's STT so its transcription request finds the connection made."""

from __future__ import annotations

import time
from typing import Any

import httpcore2._async.http11 as http11  # the connection whose keep-alive expiry reads this module's clock
import numpy as np
import openai
import pytest

import ai_operator.openai_client as oc
from ai_operator.llm.chat import ChatModel
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.speech.openai_tts import OpenAITTS
from ai_operator.speech.stt import OpenAITranscriber
from tests.support.daemon import Caller
from tests.support.wait import eventually
from tests.test_daemon_provider_failures import provider_stage

TURN_GAP_S = 10.0  # a phone call's turns are 5-15 s apart: longer than httpx's default keep-alive (5 s)


class SkippedClock:
    """`time.monotonic` with seconds skipped on demand (a turn gap without sleeping through it)."""

    def __init__(self) -> None:
        self.skipped = 0.0

    def monotonic(self) -> float:
        return time.monotonic() + self.skipped


@pytest.fixture
def clock(monkeypatch: pytest.MonkeyPatch) -> SkippedClock:
    skipped = SkippedClock()
    monkeypatch.setattr(http11, "time", skipped)  # what the HTTP library's idle connections expire by
    monkeypatch.setattr(oc, "time", skipped)  # what our record of a client's last use is kept by
    return skipped


def paths_by_connection(fake: FakeOpenAI) -> dict[int, list[str]]:
    seen: dict[int, list[str]] = {}
    for r in fake.requests:
        seen.setdefault(r["connection"], []).append(r["path"])
    return seen


async def test_each_client_keeps_its_connection_across_turns_further_apart_than_httpx_keeps_them(
        clock: SkippedClock) -> None:
    async with FakeOpenAI() as fake:
        fake.transcripts = lambda _wav, _fields: "да"
        fake.chat_script = lambda _body: {"content": "Хорошо."}
        fake.speech_audio = lambda _text: np.zeros(2400, dtype=np.int16)
        where: dict[str, Any] = {"api_key": fake.api_key, "base_url": fake.base_url}
        stt = OpenAITranscriber(model="whisper-1", timeout_s=5, **where)
        model = ChatModel(model="gpt-4o-mini", timeout_s=5, **where)
        tts = OpenAITTS(model="tts", voice="alloy", timeout_s=5, **where)
        plain = openai.AsyncOpenAI(max_retries=0, **where)  # httpx's defaults: the control
        for _turn in range(3):
            assert await stt.transcribe(np.ones(8000, dtype=np.int16), "ru") == "да"
            assert await model.complete("system", [{"role": "user", "content": "да"}]) == "Хорошо."
            assert [chunk async for chunk in tts.stream("Хорошо.", "ru")]
            await plain.models.list()
            clock.skipped += TURN_GAP_S
        for client in (stt, model, tts):
            await client.aclose()
        await plain.close()
    by_connection = paths_by_connection(fake)
    assert sorted(by_connection.values()) == sorted([
        ["/v1/audio/transcriptions"] * 3, ["/v1/chat/completions"] * 3, ["/v1/audio/speech"] * 3,
        ["/v1/models"], ["/v1/models"], ["/v1/models"]])  # ours: one connection each; httpx's default: one a turn


async def test_warm_makes_a_connection_only_when_the_client_has_none_kept(clock: SkippedClock) -> None:
    async with FakeOpenAI(latency="cloud") as fake:
        fake.transcripts = lambda _wav, _fields: "да"
        stt = OpenAITranscriber(api_key=fake.api_key, base_url=fake.base_url, model="whisper-1", timeout_s=5)
        client = stt._client
        assert oc.warm(client)  # never used: a connection is made ahead
        assert not oc.warm(client)  # one is on its way
        await eventually(lambda: fake.requests and "answered" in fake.requests[-1], what="the warming request")
        assert not oc.warm(client)  # kept
        assert await stt.transcribe(np.ones(8000, dtype=np.int16), "ru") == "да"
        clock.skipped += oc.KEEPALIVE_EXPIRY_S  # idle past the expiry: the pool has let it go
        assert oc.warm(client)
        await eventually(lambda: len(fake.requests) == 3 and "answered" in fake.requests[-1], what="the second")
        await stt.aclose()
    assert [(r["path"], r["connection"], r["new_connection"]) for r in fake.requests] == [
        ("/v1/models", 1, True), ("/v1/audio/transcriptions", 1, False), ("/v1/models", 2, True)]
    assert fake.requests[0]["connect_s"] > 0  # the handshakes were paid by the free request, not the paid one
    assert oc.kept_connections(client) is not None and oc.kept_connections(client).warmed == 2  # type: ignore[union-attr]


async def test_the_callers_first_words_warm_the_routes_stt_before_its_request(daemon_base) -> None:
    async with FakeOpenAI(latency="cloud") as fake, provider_stage(daemon_base, fake) as stage:
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        spoke_at = await caller.say("По-русски, пожалуйста.")
        await caller.quiet(min_turns=2)
        await caller.sim.hangup()
        record = await caller.record()
    assert [t["caller_text"] for t in record["turns"]][:2] == [None, "По-русски, пожалуйста."]
    transcription = next(r for r in fake.requests if r["path"] == "/v1/audio/transcriptions")
    warming = [r for r in fake.requests if r["path"] == "/v1/models" and r["time"] >= spoke_at]
    assert not transcription["new_connection"]  # the turn's request did not wait for the handshakes
    assert transcription["connection"] in {r["connection"] for r in warming if r["new_connection"]}
