"""OpenAITranscriber against the local OpenAI-compatible server over real HTTP on 127.0.0.1."""

from __future__ import annotations

import time
from collections.abc import AsyncIterator

import numpy as np
import pytest

from ai_operator.sim.instant import InstantSTT
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.speech.stt import OpenAITranscriber, SpeechError, SpeechToText
from ai_operator.speech.wav import decode_wav
from tests.support.ports import closed_tcp_port

KEY = "sk-test-0123456789abcdef"


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAI]:
    async with FakeOpenAI(api_key=KEY) as srv:
        yield srv


def speech_like(seconds: float = 0.5) -> np.ndarray:
    t = np.arange(int(8000 * seconds)) / 8000
    return (6000 * np.sin(2 * np.pi * 300 * t) * np.sin(2 * np.pi * 3 * t)).astype(np.int16)


async def test_language_hint_and_valid_8k_wav_reach_the_server(server: FakeOpenAI) -> None:
    server.transcripts = ["сәлеметсіз бе"]
    stt = OpenAITranscriber(api_key=KEY, base_url=server.base_url, model="whisper-large", timeout_s=8.0)
    assert isinstance(stt, SpeechToText)
    audio = speech_like()
    assert await stt.transcribe(audio, "kk") == "сәлеметсіз бе"
    req = server.requests[-1]
    assert req["path"] == "/v1/audio/transcriptions"
    assert req["form"]["language"] == "kk"
    assert req["form"]["model"] == "whisper-large"
    assert "authorization" not in {k.lower() for k in req["headers"]}
    pcm, rate = decode_wav(req["file"])
    assert rate == 8000
    assert np.array_equal(pcm, audio)


async def test_no_language_hint_sends_none(server: FakeOpenAI) -> None:
    seen: list[dict] = []

    def by_audio(wav: bytes, fields: dict) -> str:
        seen.append(fields)
        return f"{len(decode_wav(wav)[0])} samples"

    server.transcripts = by_audio
    stt = OpenAITranscriber(api_key=KEY, base_url=server.base_url, model="whisper-1", timeout_s=8.0)
    assert await stt.transcribe(speech_like(0.25), None) == "2000 samples"
    assert "language" not in seen[0]


async def test_retries_on_500_then_succeeds(server: FakeOpenAI) -> None:
    server.transcripts = ["नमस्ते"]
    server.fail_next = 1
    stt = OpenAITranscriber(api_key=KEY, base_url=server.base_url, retries=1, model="whisper-1", timeout_s=8.0)
    assert await stt.transcribe(speech_like(), "hi") == "नमस्ते"
    assert [r["path"] for r in server.requests].count("/v1/audio/transcriptions") == 2


async def test_persistent_500_raises_speech_error_naming_status(server: FakeOpenAI) -> None:
    server.fail_next = 5
    stt = OpenAITranscriber(api_key=KEY, base_url=server.base_url, retries=2, model="whisper-1", timeout_s=8.0)
    with pytest.raises(SpeechError, match=r"openai.*HTTP 500.*3 attempt"):
        await stt.transcribe(speech_like(), "ru")
    assert len(server.requests) == 3


async def test_timeout_is_bounded(server: FakeOpenAI) -> None:
    server.delay_s = 5.0
    server.transcripts = ["never"]
    timeout_s, retries = 0.3, 1
    stt = OpenAITranscriber(api_key=KEY, base_url=server.base_url, timeout_s=timeout_s, retries=retries, model="whisper-1")
    started = time.monotonic()
    with pytest.raises(SpeechError, match="timeout"):
        await stt.transcribe(speech_like(), "ru")
    elapsed = time.monotonic() - started
    assert elapsed < timeout_s * (retries + 1) + 0.5
    assert len(server.requests) == retries + 1


async def test_bad_key_is_not_retried_and_never_shown(server: FakeOpenAI) -> None:
    wrong = "sk-wrong-secret-key-999999"
    stt = OpenAITranscriber(api_key=wrong, base_url=server.base_url, retries=3, model="whisper-1", timeout_s=8.0)
    with pytest.raises(SpeechError, match="HTTP 401") as info:
        await stt.transcribe(speech_like(), "ru")
    assert wrong not in str(info.value)
    assert len(server.requests) == 1


async def test_unreachable_server_is_a_speech_error() -> None:
    stt = OpenAITranscriber(api_key=KEY, base_url=f"http://127.0.0.1:{closed_tcp_port()}/v1", timeout_s=1.0, retries=0,
                            model="whisper-1")
    with pytest.raises(SpeechError, match="connection failed"):
        await stt.transcribe(speech_like(), "ru")


async def test_empty_audio_is_empty_text_without_a_request(server: FakeOpenAI) -> None:
    stt = OpenAITranscriber(api_key=KEY, base_url=server.base_url, model="whisper-1", timeout_s=8.0)
    assert await stt.transcribe(np.zeros(0, dtype=np.int16), "ru") == ""
    assert server.requests == []


async def test_instant_stt_scripted_and_exhausted() -> None:
    stt = InstantSTT(["один", "два"])
    assert isinstance(stt, SpeechToText)
    assert await stt.transcribe(speech_like(), "ru") == "один"
    assert await stt.transcribe(speech_like(), "kk") == "два"
    assert stt.languages == ["ru", "kk"]
    with pytest.raises(SpeechError, match="exhausted"):
        await stt.transcribe(speech_like(), "ru")
    by_len = InstantSTT(lambda pcm: str(pcm.size))
    assert await by_len.transcribe(speech_like(0.1), None) == "800"


def test_scrub_removes_keys_from_upstream_messages() -> None:
    from ai_operator.openai_client import scrub

    upstream = (
        "Incorrect API key provided: sk-proj-abc1********************wxyz. You can find your API key at ..."
    )
    assert "abc1" not in scrub(upstream)
    assert "my-secret-value" not in scrub("echo my-secret-value here", "my-secret-value")
