"""CachedTTS: canned lines synthesised once, served from memory and disk, surviving a new instance."""

from __future__ import annotations

import hashlib
import os
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


# ---- issue 11.5: the disk cache has a size bound -------------------------------------------------------------
LINE_BYTES = 8000  # InstantTTS(fixed_s=0.5): 4000 samples of int16


def cached_texts(tts: CachedTTS, texts: list[str], language: str = "ru") -> set[str]:
    return {t for t in texts if tts.path_for(t, language).is_file()}


async def test_disk_cache_is_bounded_least_recently_used_first_and_prewarmed_lines_stay(tmp_path: Path) -> None:
    inner = InstantTTS(fixed_s=0.5)
    tts = CachedTTS(inner, tmp_path, memory_limit_bytes=0, max_disk_bytes=5 * LINE_BYTES)
    greetings = ["Здравствуйте! Это AI-оператор.", "Сау болыңыз."]
    assert await tts.prewarm([(g, "ru") for g in greetings]) == 2
    answers = [f"ответ номер {i}" for i in range(8)]
    for text in answers[:3]:
        await synthesize(tts, text, "ru")
    await synthesize(tts, answers[0], "ru")  # heard again: now the most recently used answer
    for text in answers[3:5]:
        await synthesize(tts, text, "ru")
        assert sum(p.stat().st_size for p in tmp_path.glob("*.pcm")) <= 5 * LINE_BYTES
    # room for 3 answers beside the 2 pinned greetings: answers 1 and 2 (least recently used) went first
    assert cached_texts(tts, answers) == {answers[0], answers[3], answers[4]}
    assert cached_texts(tts, greetings) == set(greetings)
    calls = inner.calls
    await synthesize(tts, greetings[0], "ru")
    await synthesize(tts, answers[0], "ru")
    assert inner.calls == calls  # both still served from disk
    for text in answers[5:]:  # a long run of new lines never pushes out a prewarmed one
        await synthesize(tts, text, "ru")
    assert cached_texts(tts, greetings) == set(greetings)
    assert len(list(tmp_path.glob("*.pcm"))) == 5


async def test_a_new_instance_evicts_by_the_files_access_times(tmp_path: Path) -> None:
    first = CachedTTS(InstantTTS(fixed_s=0.5), tmp_path)
    texts = [f"строка {i}" for i in range(4)]
    for i, text in enumerate(texts):
        await synthesize(first, text, "ru")
        path = first.path_for(text, "ru")
        os.utime(path, (1_700_000_000 + [3, 1, 4, 2][i] * 3600, path.stat().st_mtime))  # last heard: 1, 3, 0, 2
    later = CachedTTS(InstantTTS(fixed_s=0.5), tmp_path, memory_limit_bytes=0, max_disk_bytes=3 * LINE_BYTES)
    await synthesize(later, "новая строка", "ru")  # 5 lines on disk, room for 3
    assert cached_texts(later, texts) == {texts[0], texts[2]}
    assert later.is_cached("новая строка", "ru")


async def test_the_bound_comes_from_tts_cache_max_mb(tmp_path: Path) -> None:
    from ai_operator.config import build_settings
    from ai_operator.providers import build_tts

    default = build_tts(build_settings([], environ={}), None, tmp_path)
    assert default.max_disk_bytes == 200 * 1024 * 1024
    small = build_tts(build_settings([], environ={"TTS_CACHE_MAX_MB": "3"}), None, tmp_path)
    assert small.max_disk_bytes == 3 * 1024 * 1024


async def test_prewarm_pins_within_its_share_of_the_bound_and_skips_the_rest(tmp_path: Path) -> None:
    inner = InstantTTS(fixed_s=0.5)
    tts = CachedTTS(inner, tmp_path, memory_limit_bytes=0, max_disk_bytes=10 * LINE_BYTES)  # pinned: 8 lines
    lines = [(f"строка номер {i:02d}", "ru") for i in range(20)]
    assert await tts.prewarm(lines) == 8
    assert tts.prewarm_counts == {"made": 8, "cached": 0, "failed": 0, "skipped": 12}
    assert inner.calls == 8  # a skipped line is never synthesised
    assert cached_texts(tts, [t for t, _ in lines]) == {t for t, _ in lines[:8]}  # the first (most urgent) ones
    for i in range(20, 30):  # lines made on use are evicted before any prewarmed one
        await synthesize(tts, f"строка номер {i:02d}", "ru")
    assert cached_texts(tts, [t for t, _ in lines]) == {t for t, _ in lines[:8]}
    again = await tts.prewarm(lines)  # found, pinned already: nothing made, the rest still does not fit
    assert again == 0 and tts.prewarm_counts == {"made": 0, "cached": 8, "failed": 0, "skipped": 12}
