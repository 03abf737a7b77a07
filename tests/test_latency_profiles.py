"""Provider-shaped latency profiles of the local OpenAI server: the figures, the seeded jitter, the streamed chat
through the real `openai` client, and waits that are never shorter than the profile says (lower bounds only: a
loaded machine can make a wait longer, never shorter)."""

from __future__ import annotations

import statistics
import time
from dataclasses import replace

import numpy as np
import openai
import pytest

from ai_operator.sim import latency_profiles as lp
from ai_operator.sim.openai_server import FakeOpenAI, _audio_seconds
from ai_operator.speech.openai_realtime_stt import OpenAIRealtimeSTT
from ai_operator.speech.wav import encode_wav

KEY = "test-key"
EXACT_CLOUD = lp.LatencyProfile("exact", lp.STT_BASE_S, lp.STT_PER_AUDIO_S, lp.CHAT_TTFT_S, lp.CHAT_TOKENS_PER_S,
                                lp.TTS_TTFB_S, lp.TTS_REALTIME_FACTOR)  # the cloud figures without jitter


def client(server: FakeOpenAI) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key=KEY, base_url=server.base_url, max_retries=0)


def test_profiles_are_the_issue_figures_and_slow_doubles_them() -> None:
    cloud, slow, instant = lp.profile("cloud"), lp.profile("slow"), lp.profile("instant")
    assert (cloud.stt_base_s, cloud.stt_per_audio_s, cloud.chat_ttft_s) == (0.3, 0.06, 0.45)
    assert (cloud.chat_tokens_per_s, cloud.tts_ttfb_s, cloud.tts_realtime_factor) == (40.0, 0.3, 3.0)
    assert slow.stt_base_s == 0.6 and slow.chat_ttft_s == 0.9 and slow.chat_tokens_per_s == 20.0
    assert slow.tts_ttfb_s == 0.6 and slow.tts_realtime_factor == 1.5 and slow.tail_p > 0
    assert (instant.connect_s, cloud.connect_s, slow.connect_s) == (0.0, 0.1, 0.2)
    sampler = lp.ProviderLatency(instant)
    assert sampler.stt_s(5.0) == sampler.chat_first_token_s() == sampler.tts_first_byte_s() == 0.0
    assert sampler.tts_audio_s(3.0) == sampler.chat_tokens_s(100) == sampler.connect_s() == 0.0
    with pytest.raises(ValueError, match="choose one of instant, cloud, slow"):
        lp.profile("fast")


def test_jitter_is_seeded_centred_on_the_figure_and_slow_has_a_heavy_tail() -> None:
    a, b, c = lp.ProviderLatency("cloud", 7), lp.ProviderLatency("cloud", 7), lp.ProviderLatency("cloud", 8)
    draws_a = [a.stt_s(2.0) for _ in range(2000)]
    assert draws_a == [b.stt_s(2.0) for _ in range(2000)]
    assert draws_a != [c.stt_s(2.0) for _ in range(2000)]
    assert statistics.median(draws_a) == pytest.approx(0.3 + 0.06 * 2.0, rel=0.05)
    cloud_ttft = [a.chat_first_token_s() for _ in range(4000)]
    slow = lp.ProviderLatency("slow", 7)
    slow_ttft = [slow.chat_first_token_s() for _ in range(4000)]
    assert statistics.median(slow_ttft) == pytest.approx(2 * statistics.median(cloud_ttft), rel=0.1)
    tail = np.percentile(slow_ttft, 99.5) / statistics.median(slow_ttft)
    assert tail > 2 * np.percentile(cloud_ttft, 99.5) / statistics.median(cloud_ttft)
    assert max(slow_ttft) <= 0.9 * lp.SLOW_TAIL_CAP * np.exp(5 * lp.JITTER_SIGMA)


def test_audio_seconds_of_an_upload() -> None:
    assert _audio_seconds(encode_wav(np.zeros(16000 * 3, dtype=np.int16), 16000)) == pytest.approx(3.0)
    assert _audio_seconds(b"not a wav file") == 0.0


async def test_streamed_chat_reassembles_to_the_scripted_answer_and_tool_call() -> None:
    async with FakeOpenAI(api_key=KEY, latency="cloud", seed=1) as server:
        server.chat_script = [{"content": "Тариф стоит 5000 тенге в месяц. Подключить?"},
                              {"tool_calls": [{"name": "search_knowledge_base", "arguments": {"query": "тариф"}}]}]
        c = client(server)
        stream = await c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}],
                                                 stream=True)
        pieces = [chunk.choices[0].delta.content async for chunk in stream if chunk.choices[0].delta.content]
        assert len(pieces) > 3 and "".join(pieces) == "Тариф стоит 5000 тенге в месяц. Подключить?"
        stream = await c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}],
                                                 stream=True)
        chunks = [chunk async for chunk in stream]
        calls = [tc for ch in chunks for tc in ch.choices[0].delta.tool_calls or []]
        assert [(tc.function.name, tc.function.arguments) for tc in calls if tc.function] == [
            ("search_knowledge_base", '{"query": "тариф"}')]
        assert chunks[-1].choices[0].finish_reason == "tool_calls"


async def test_every_answer_waits_at_least_what_the_profile_says() -> None:
    async with FakeOpenAI(api_key=KEY, latency=lp.ProviderLatency(EXACT_CLOUD)) as server:
        server.transcripts = ["да"]
        server.chat_script = [{"content": "x" * 400}]  # 100 tokens: first token, then 99 at 40 per second
        server.speech_audio = lambda _text: np.zeros(24000 * 3, dtype=np.int16)  # 3 s of audio
        c = client(server)
        wav = encode_wav(np.zeros(16000 * 5, dtype=np.int16), 16000)
        await c.audio.transcriptions.create(model="whisper-1", file=("a.wav", wav, "audio/wav"))
        await c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
        async with c.audio.speech.with_streaming_response.create(model="t", voice="alloy", input="hi",
                                                                 response_format="pcm") as speech:
            await speech.read()
        took = [r["answered"] - r["time"] for r in server.requests]
        assert took[0] >= 0.3 + 0.06 * 5
        assert took[1] >= 0.45 + 99 / 40
        assert took[2] >= 0.3 + (3.0 - 0.1) / 3  # the last 100 ms chunk leaves 2.9 s of audio after the first


async def test_a_new_connection_pays_the_handshakes_before_its_first_request_and_a_kept_one_does_not() -> None:
    with_connect = replace(EXACT_CLOUD, connect_s=lp.CONNECT_S)
    async with FakeOpenAI(api_key=KEY, latency=lp.ProviderLatency(with_connect)) as server:
        c = client(server)
        t0 = time.monotonic()
        await c.models.list()  # a new connection: the handshakes first
        first_s = time.monotonic() - t0
        await c.models.list()  # the same connection, kept alive by the client
        await client(server).models.list()  # another client: its own connection
        stream = await OpenAIRealtimeSTT(api_key=KEY, base_url=server.base_url, model="m", timeout_s=5).open("ru")
        await stream.aclose()  # a websocket upgrade on a new connection pays them too
        await c.close()
    assert [r["new_connection"] for r in server.requests] == [True, False, True, True]
    assert [r["connection"] for r in server.requests] == [1, 1, 2, 3] and server.connections == 3
    assert [r.get("connect_s") for r in server.requests] == [lp.CONNECT_S, None, lp.CONNECT_S, lp.CONNECT_S]
    assert first_s >= lp.CONNECT_S
    assert all(r["answered"] >= r["time"] for r in server.requests)  # timed from after the handshakes
