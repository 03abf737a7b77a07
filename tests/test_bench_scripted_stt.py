"""The benchmark's STT double recognises which scripted caller line was said from the audio the daemon gets
(espeak-ng lines through the u-law codec, wrapped in the VAD's pre- and post-roll), lines sharing their first
words included; audio of no line transcribes as empty."""

from __future__ import annotations

import numpy as np
import pytest

from ai_operator.media.codecs import get_codec
from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.sim.instant import ScriptedSTT, tone
from benchmarks.plan import _caller_line

LINES = {  # (text, voice): two Kazakh lines that start alike, Russian ones, one said twice in the script
    ("қазақша", "kk"), ("қазақша сөйлейік", "kk"), ("ну по-русски давайте", "ru"), ("я живу в караганде", "ru"),
    ("спасибо пока", "ru"),
}


async def _received() -> dict[str, np.ndarray]:
    codec = get_codec("ulaw")
    return {text: codec.decode(codec.encode(await _caller_line(text, lang))) for text, lang in LINES}


def _utterance(pcm: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """What the segmenter hands over: a few frames of line noise before and after the line's frames."""
    pre = rng.integers(-40, 40, FRAME_SAMPLES * 10).astype(np.int16)
    post = rng.integers(-40, 40, FRAME_SAMPLES * 10).astype(np.int16)
    return np.concatenate([pre, pcm, post])


async def test_each_line_is_recognised_from_its_received_audio() -> None:
    lines = await _received()
    stt = ScriptedSTT(lines)
    rng = np.random.default_rng(7)
    for text, pcm in lines.items():
        assert await stt.transcribe(_utterance(pcm, rng), "ru") == text
    assert stt.unrecognised == 0


async def test_a_truncated_line_is_still_recognised_and_foreign_audio_is_not() -> None:
    lines = await _received()
    stt = ScriptedSTT(lines)
    pcm = lines["я живу в караганде"]
    assert await stt.transcribe(pcm[: len(pcm) // 2 // FRAME_SAMPLES * FRAME_SAMPLES], "ru") == "я живу в караганде"
    assert await stt.transcribe(tone(1.0), "ru") == ""
    assert await stt.transcribe(np.zeros(8000, dtype=np.int16), None) == ""
    assert stt.unrecognised == 2 and stt.calls == 3


@pytest.mark.parametrize("shift", [1, 80])
async def test_audio_not_on_the_frame_grid_is_not_matched(shift: int) -> None:
    # the daemon receives whole 20 ms frames; a shifted copy is not what a caller's RTP can produce
    lines = await _received()
    stt = ScriptedSTT(lines)
    pcm = lines["спасибо пока"]
    assert await stt.transcribe(np.concatenate([np.zeros(shift, dtype=np.int16), pcm]), "ru") == ""
