"""CachedTTS: canned lines synthesised once, served from memory and disk, surviving a new instance."""

from __future__ import annotations

import hashlib
import shutil
from collections.abc import AsyncIterator
from pathlib import Path

import numpy as np
import pytest

from ai_operator.sim.instant import InstantTTS
from ai_operator.speech.cache import CachedTTS
from ai_operator.speech.espeak import EspeakTTS
from ai_operator.speech.tts import SpeechError, synthesize


class FailingTTS(InstantTTS):
    """A real tone generator that fails for one text (to test partial prewarm)."""

    def __init__(self, bad: str) -> None:
        super().__init__(seconds_per_char=0.01)
        self.bad = bad

    async def stream(self, text: str, language: str) -> AsyncIterator[np.ndarray]:
        if text == self.bad:
            raise SpeechError("tts provider instant: refused")
        async for chunk in super().stream(text, language):
            yield chunk


async def test_second_call_served_without_inner_and_survives_new_instance(tmp_path: Path) -> None:
    inner = InstantTTS(seconds_per_char=0.01, tone_hz=500)
    tts = CachedTTS(inner, tmp_path)
    first = await synthesize(tts, "Добрый день!", "ru")
    assert inner.calls == 1
    second = await synthesize(tts, "Добрый день!", "ru")
    assert inner.calls == 1 and np.array_equal(first, second)
    digest = hashlib.sha256("Добрый день!".encode()).hexdigest()
    path = tmp_path / f"instant-tone500-ru-{digest}.pcm"
    assert path.is_file() and path.stat().st_size == 2 * first.size

    fresh_inner = InstantTTS(seconds_per_char=0.01, tone_hz=500)
    again = CachedTTS(fresh_inner, tmp_path)
    assert np.array_equal(await synthesize(again, "Добрый день!", "ru"), first)
    assert fresh_inner.calls == 0


async def test_voice_language_and_cache_flag_separate_entries(tmp_path: Path) -> None:
    inner = InstantTTS(seconds_per_char=0.01)
    tts = CachedTTS(inner, tmp_path)
    await synthesize(tts, "Salem", "ru")
    await synthesize(tts, "Salem", "kk")  # other voice -> other entry
    assert inner.calls == 2
    chunks = [c async for c in tts.stream("Salem", "kk", cache=False)]
    assert inner.calls == 3 and sum(c.size for c in chunks) == 400
    assert len(list(tmp_path.glob("*.pcm"))) == 2


async def test_prewarm_counts_only_new_lines_and_keeps_going_after_a_failure(tmp_path: Path) -> None:
    inner = FailingTTS(bad="broken")
    tts = CachedTTS(inner, tmp_path)
    lines = [("Привет", "ru"), ("Сәлем", "kk"), ("broken", "ru"), ("नमस्ते", "hi")]
    assert await tts.prewarm(lines) == 3
    assert len(tts.prewarm_errors) == 1 and "broken" in tts.prewarm_errors[0]
    calls = inner.calls
    assert await tts.prewarm(lines[:2]) == 0
    assert inner.calls == calls
    assert tts.is_cached("Сәлем", "kk") and not tts.is_cached("broken", "ru")


async def test_interrupted_stream_stores_nothing(tmp_path: Path) -> None:
    tts = CachedTTS(InstantTTS(seconds_per_char=0.1), tmp_path)
    gen = tts.stream("a long line that the caller interrupts", "ru")
    await gen.__anext__()
    await gen.aclose()  # barge-in
    assert not tts.is_cached("a long line that the caller interrupts", "ru")
    assert list(tmp_path.iterdir()) == []


async def test_damaged_file_is_resynthesised(tmp_path: Path) -> None:
    inner = InstantTTS(seconds_per_char=0.01)
    tts = CachedTTS(inner, tmp_path)
    good = await synthesize(tts, "line", "ru")
    path = tts.path_for("line", "ru")
    path.write_bytes(b"\x01\x02\x03")  # odd length: not int16 audio
    fresh = CachedTTS(inner, tmp_path)
    assert np.array_equal(await synthesize(fresh, "line", "ru"), good)
    assert inner.calls == 2
    assert path.stat().st_size == 2 * good.size


async def test_memory_lru_is_bounded(tmp_path: Path) -> None:
    inner = InstantTTS(fixed_s=0.5)  # 8000 bytes per line
    tts = CachedTTS(inner, tmp_path, memory_limit_bytes=20000)
    for i in range(5):
        await synthesize(tts, f"line {i}", "ru")
    assert len(tts._memory) == 2 and tts._memory_bytes <= 20000
    # evicted lines still come from disk, not from the inner TTS
    await synthesize(tts, "line 0", "ru")
    assert inner.calls == 5


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
async def test_espeak_lines_cached_per_voice(tmp_path: Path) -> None:
    tts = CachedTTS(EspeakTTS(), tmp_path)
    assert await tts.prewarm([("Здравствуйте", "ru"), ("नमस्ते", "hi")]) == 2
    names = sorted(p.name for p in tmp_path.glob("*.pcm"))
    assert [n.rsplit("-", 1)[0] for n in names] == ["espeak-hi-160", "espeak-ru-160"]
    audio = await synthesize(tts, "नमस्ते", "hi")
    assert audio.size > 2000 and tts.hits == 1
