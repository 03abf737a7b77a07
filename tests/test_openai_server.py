"""The local OpenAI-compatible test server, checked with the real `openai` client and raw HTTP."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import aiohttp
import numpy as np
import openai
import pytest

from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.speech.wav import decode_wav

KEY = "test-key"


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAI]:
    async with FakeOpenAI(api_key=KEY) as srv:
        yield srv


def client(server: FakeOpenAI, key: str = KEY) -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(api_key=key, base_url=server.base_url, max_retries=0)


async def test_binds_loopback_and_checks_the_bearer_key(server: FakeOpenAI) -> None:
    assert server.base_url.startswith("http://127.0.0.1:") and server.base_url.endswith("/v1")
    with pytest.raises(openai.AuthenticationError) as info:
        await client(server, "wrong").models.list()
    assert info.value.status_code == 401
    assert info.value.body["code"] == "invalid_api_key"  # type: ignore[index]
    async with aiohttp.ClientSession() as http, http.get(f"{server.base_url}/models") as resp:
        assert resp.status == 401
        body = await resp.json()
        assert set(body["error"]) == {"message", "type", "param", "code"}
    models = await client(server).models.list()
    assert "whisper-1" in [m.id for m in models.data]


async def test_requests_recorded_without_secrets(server: FakeOpenAI) -> None:
    server.chat_script = [{"content": "ok"}]
    await client(server).chat.completions.create(model="m", messages=[{"role": "user", "content": "hi"}])
    rec = server.requests[-1]
    assert rec["path"] == "/v1/chat/completions" and rec["method"] == "POST"
    assert rec["json"]["messages"] == [{"role": "user", "content": "hi"}]
    assert not {"authorization", "cookie"} & {k.lower() for k in rec["headers"]}
    assert KEY not in repr(rec)


async def test_chat_response_format_for_text_and_tool_calls(server: FakeOpenAI) -> None:
    server.chat_script = [
        {"tool_calls": [{"name": "set_language", "arguments": {"language": "kk"}}]},
        {"content": "Сәлем"},
    ]
    c = client(server)
    first = await c.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
    assert first.choices[0].finish_reason == "tool_calls"
    call = first.choices[0].message.tool_calls[0]  # type: ignore[index]
    assert call.function.name == "set_language" and call.function.arguments == '{"language": "kk"}'
    assert first.id.startswith("chatcmpl-") and first.usage is not None and first.usage.total_tokens > 0
    second = await c.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])
    assert second.choices[0].finish_reason == "stop" and second.choices[0].message.content == "Сәлем"
    assert second.id != first.id
    with pytest.raises(openai.InternalServerError, match="exhausted"):
        await c.chat.completions.create(model="gpt-4o-mini", messages=[{"role": "user", "content": "x"}])


async def test_a_long_goodbye_answers_every_request_for_a_goodbye(server: FakeOpenAI) -> None:
    from policies.freight.prompts import build_model_messages
    from tests.support.freight import LOAD, LONG_MODEL_GOODBYE

    server.goodbye = LONG_MODEL_GOODBYE
    server.chat_script = [{"content": "ठीक है"}]  # anything else keeps its script
    system, messages = build_model_messages("goodbye", load=LOAD, history=[], utterance="ठीक है जी, धन्यवाद")
    c = client(server)
    bye = await c.chat.completions.create(model="m", messages=[{"role": "system", "content": system}, *messages])
    assert bye.choices[0].message.content == LONG_MODEL_GOODBYE
    other = await c.chat.completions.create(model="m", messages=[{"role": "user", "content": "quote?"}])
    assert other.choices[0].message.content == "ठीक है"


async def test_fail_next_and_delay(server: FakeOpenAI) -> None:
    server.chat_script = [{"content": "a"}, {"content": "b"}]
    server.fail_next = 2
    c = client(server)
    for _ in range(2):
        with pytest.raises(openai.InternalServerError):
            await c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    server.delay_s = 0.3
    started = time.monotonic()
    r = await c.chat.completions.create(model="m", messages=[{"role": "user", "content": "x"}])
    assert r.choices[0].message.content == "a"  # failures consumed no script item
    assert time.monotonic() - started >= 0.3


async def test_embeddings_deterministic_dimensioned_and_meaningful(server: FakeOpenAI) -> None:
    c = client(server)
    texts = ["тариф интернет Алматы", "интернет тариф Астана", "погода завтра"]
    a = await c.embeddings.create(model="text-embedding-3-small", input=texts, dimensions=64)
    b = await c.embeddings.create(
        model="text-embedding-3-small", input=texts, dimensions=64, encoding_format="float"
    )
    va = np.array([d.embedding for d in a.data])
    vb = np.array([d.embedding for d in b.data])
    assert va.shape == (3, 64)
    assert np.allclose(va, vb, atol=1e-6)  # base64 (client default) and float agree
    assert np.allclose(np.linalg.norm(va, axis=1), 1.0, atol=1e-5)
    assert va[0] @ va[1] > va[0] @ va[2]
    default = await c.embeddings.create(model="text-embedding-3-small", input="x")
    assert len(default.data[0].embedding) == 1536
    with pytest.raises(openai.BadRequestError, match="input"):
        await c.embeddings.create(model="m", input=[])


async def test_speech_is_chunked_pcm_or_wav(server: FakeOpenAI) -> None:
    server.speech_audio = lambda text: np.arange(24000, dtype=np.int16)
    server.speech_chunk_bytes = 1000
    payload = {"model": "gpt-4o-mini-tts", "voice": "alloy", "input": "hello", "response_format": "pcm"}
    headers = {"Authorization": f"Bearer {KEY}"}
    async with aiohttp.ClientSession() as http:
        async with http.post(f"{server.base_url}/audio/speech", json=payload, headers=headers) as resp:
            assert resp.status == 200 and resp.headers.get("Transfer-Encoding") == "chunked"
            data = await resp.read()
        assert np.array_equal(np.frombuffer(data, dtype="<i2"), np.arange(24000, dtype=np.int16))
        async with http.post(
            f"{server.base_url}/audio/speech", json={**payload, "response_format": "wav"}, headers=headers
        ) as resp:
            pcm, rate = decode_wav(await resp.read())
        assert rate == 24000 and pcm.size == 24000
        async with http.post(
            f"{server.base_url}/audio/speech", json={**payload, "response_format": "mp3"}, headers=headers
        ) as resp:
            assert resp.status == 400 and "mp3" in (await resp.json())["error"]["message"]


async def test_bad_json_and_unknown_path_answer_in_openai_error_format(server: FakeOpenAI) -> None:
    headers = {"Authorization": f"Bearer {KEY}", "Content-Type": "application/json"}
    async with aiohttp.ClientSession() as http:
        async with http.post(
            f"{server.base_url}/chat/completions", data=b"{not json", headers=headers
        ) as resp:
            assert resp.status == 400 and "parse the JSON" in (await resp.json())["error"]["message"]
        async with http.post(f"{server.base_url}/nothing", json={}, headers=headers) as resp:
            assert resp.status == 404 and "error" in await resp.json()


async def test_transcription_response_formats(server: FakeOpenAI) -> None:
    server.transcripts = ["один", "два"]
    c = client(server)
    wav = ("a.wav", b"RIFF0000WAVEdata", "audio/wav")
    as_text = await c.audio.transcriptions.create(file=wav, model="whisper-1", response_format="text")
    assert str(as_text).strip() == "один"
    verbose = await c.audio.transcriptions.create(
        file=wav, model="whisper-1", response_format="verbose_json", language="ru"
    )
    assert verbose.text == "два" and verbose.language == "ru"
