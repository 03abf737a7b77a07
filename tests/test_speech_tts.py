"""Text-to-speech adapters: real espeak-ng voices, streamed OpenAI speech over real HTTP, instant tone."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from ai_operator.sim.instant import InstantTTS
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.speech.espeak import EspeakTTS
from ai_operator.speech.openai_tts import OpenAITTS
from ai_operator.speech.tts import SpeechError, TextToSpeech, synthesize
from ai_operator.speech.wav import decode_wav

KEY = "test-key-tts"
LINES = {
    "ru": "Здравствуйте, вы позвонили оператору связи.",
    "kk": "Сәлеметсіз бе, сіз байланыс операторына қоңырау шалдыңыз.",
    "hi": "नमस्ते, मैं माल ढुलाई की दर के बारे में बात करना चाहता हूँ।",
}

needs_espeak = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")


def tone24k(hz: float, seconds: float) -> np.ndarray:
    t = np.arange(int(24000 * seconds)) / 24000
    return (8000 * np.sin(2 * np.pi * hz * t)).astype(np.int16)


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAI]:
    async with FakeOpenAI(api_key=KEY) as srv:
        yield srv


@needs_espeak
@pytest.mark.parametrize("language", ["ru", "kk", "hi"])
async def test_espeak_speaks_each_language_at_8k(language: str) -> None:
    tts = EspeakTTS()
    assert isinstance(tts, TextToSpeech)
    chunks = [c async for c in tts.stream(LINES[language], language)]
    assert all(c.dtype == np.int16 and c.ndim == 1 for c in chunks)
    audio = np.concatenate(chunks)
    seconds = audio.size / 8000
    assert 1.5 < seconds < 8.0
    assert np.sqrt(np.mean(audio.astype(np.float64) ** 2)) > 500  # not silence
    # same voice straight from espeak-ng at its native rate: our length must be its length at 8 kHz
    raw = subprocess.run(
        ["espeak-ng", "-v", language, "-s", "160", "-b", "1", "--stdout", "--stdin"],
        input=LINES[language].encode(),
        capture_output=True,
        check=True,
    ).stdout
    native, rate = decode_wav(raw)
    assert rate == 22050
    assert abs(audio.size - native.size * 8000 / rate) < 50
    # and nothing above 4 kHz could exist; check the energy is in the speech band
    spectrum = np.abs(np.fft.rfft(audio.astype(np.float64)))
    freqs = np.fft.rfftfreq(audio.size, 1 / 8000)
    assert spectrum[(freqs > 100) & (freqs < 3400)].sum() > 0.9 * spectrum.sum()


@needs_espeak
async def test_espeak_available_voices_and_errors() -> None:
    assert EspeakTTS().available_voices(["ru", "kk", "hi", "en", "zz"]) == {"ru", "kk", "hi", "en"}
    assert EspeakTTS(voices={"xx": "no-such-voice"}).available_voices(["ru", "xx"]) == {"ru"}
    with pytest.raises(SpeechError, match="no-such-voice"):
        await synthesize(EspeakTTS(voices={"xx": "no-such-voice"}), "test", "xx")
    with pytest.raises(SpeechError, match="has no voice 'zz'"):
        await synthesize(EspeakTTS(), "Hallo", "zz")


async def test_espeak_missing_binary_names_the_voice() -> None:
    tts = EspeakTTS(binary="/nonexistent/espeak-ng")
    assert tts.available_voices(["ru"]) == set()
    with pytest.raises(SpeechError, match=r"not installed \(voice 'ru'\)"):
        await synthesize(tts, "привет", "ru")


@needs_espeak
async def test_espeak_text_starting_with_dash_is_spoken_not_an_option() -> None:
    audio = await synthesize(EspeakTTS(), "--help минус", "ru")
    assert audio.size > 4000


async def test_openai_tts_streams_first_chunk_before_server_finishes(server: FakeOpenAI) -> None:
    server.speech_audio = lambda text: tone24k(1000, 1.0)
    server.speech_chunk_bytes = 4800  # 100 ms per chunk
    server.speech_chunk_interval_s = 0.05  # whole answer takes ~0.5 s to send
    tts = OpenAITTS(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini-tts", voice="nova")
    first_at = None
    chunks = []
    async for chunk in tts.stream("Здравствуйте", "ru"):
        if first_at is None:
            first_at = time.monotonic()
        chunks.append(chunk)
    log = server.speech_log[-1]
    assert first_at is not None and first_at < log["finished"] - 0.2
    body = server.requests[-1]["json"]
    assert body["response_format"] == "pcm" and body["voice"] == "nova" and body["input"] == "Здравствуйте"
    audio = np.concatenate(chunks)
    assert abs(audio.size - 8000) <= 4  # 1 s at 24 kHz -> 1 s at 8 kHz
    spectrum = np.abs(np.fft.rfft(audio.astype(np.float64)))
    assert abs(np.argmax(spectrum) * 8000 / audio.size - 1000) < 5


@needs_espeak
async def test_openai_tts_real_speech_from_server(server: FakeOpenAI) -> None:
    tts = OpenAITTS(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini-tts", voice="alloy")
    audio = await synthesize(tts, LINES["hi"], "hi")
    assert 1.5 < audio.size / 8000 < 8.0
    assert np.sqrt(np.mean(audio.astype(np.float64) ** 2)) > 500


async def test_openai_tts_http_error_and_timeout(server: FakeOpenAI) -> None:
    server.speech_audio = lambda text: tone24k(440, 0.2)
    server.fail_next = 1
    tts = OpenAITTS(api_key=KEY, base_url=server.base_url, voice="alloy", timeout_s=0.4, model="gpt-4o-mini-tts")
    with pytest.raises(SpeechError, match=r"openai.*voice alloy.*HTTP 500"):
        await synthesize(tts, "hello", "ru")
    server.delay_s = 3.0
    started = time.monotonic()
    with pytest.raises(SpeechError, match="timeout"):
        await synthesize(tts, "hello", "ru")
    assert time.monotonic() - started < 1.2


async def test_openai_tts_stall_mid_stream_times_out(server: FakeOpenAI) -> None:
    server.speech_audio = lambda text: tone24k(440, 1.0)
    server.speech_chunk_interval_s = 2.0
    tts = OpenAITTS(api_key=KEY, base_url=server.base_url, timeout_s=0.3, model="gpt-4o-mini-tts", voice="alloy")
    got = []
    started = time.monotonic()
    with pytest.raises(SpeechError, match="timeout"):
        async for chunk in tts.stream("hello", "ru"):
            got.append(chunk)
    assert got, "the first chunk should have arrived before the stall"
    assert time.monotonic() - started < 1.5


async def test_instant_tts_duration_and_tone() -> None:
    tts = InstantTTS(seconds_per_char=0.01)
    audio = await synthesize(tts, "x" * 50, "ru")
    assert audio.size == 4000
    assert np.abs(audio).max() > 1000
    fixed = await synthesize(InstantTTS(fixed_s=0.2), "anything at all", "hi")
    assert fixed.size == 1600


def espeak_children() -> list[int]:
    """Live espeak-ng processes whose parent is this test process (read from /proc)."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)
            comm = fields[0].split("(", 1)[1]
            state, ppid = fields[1].split()[0:2]
        except (OSError, IndexError):
            continue
        if comm.startswith("espeak") and int(ppid) == os.getpid() and state != "Z":
            found.append(int(stat.parent.name))
    return found


@needs_espeak
async def test_espeak_barge_in_closes_the_stream_and_ends_the_process() -> None:
    tts = EspeakTTS()
    gen = tts.stream(LINES["ru"] * 20, "ru")  # long enough that espeak-ng is still running
    first = await gen.__anext__()
    assert first.size > 0
    await gen.aclose()
    assert espeak_children() == []


async def test_openai_tts_barge_in_closes_cleanly(server: FakeOpenAI) -> None:
    server.speech_audio = lambda text: tone24k(440, 2.0)
    server.speech_chunk_interval_s = 0.05
    tts = OpenAITTS(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini-tts", voice="alloy")
    gen = tts.stream("long line", "ru")
    assert (await gen.__anext__()).size > 0
    await gen.aclose()
    # the client is still usable for the next line
    server.speech_chunk_interval_s = 0.0
    assert (await synthesize(tts, "next", "ru")).size == 16000
