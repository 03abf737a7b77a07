"""The digital-silence gate is exact: frames of digital silence handled by `feed_silent` (no decode, webrtcvad
skipped once it has settled), or skipped by `skip_silent` when nothing can happen, give the same events and the
same listener state as feeding the zero frames.

Real webrtcvad, real espeak-ng speech, real echo reference; streams are synthesized with seeds so a failure
is reproducible.
"""

from __future__ import annotations

import ctypes
import shutil
from dataclasses import fields, is_dataclass
from typing import Any

import numpy as np
import pytest
import webrtcvad

from ai_operator.media.bargein import BargeInDetector
from ai_operator.media.frames import FRAME_S, FRAME_SAMPLES
from ai_operator.media.listener import CallerListener
from ai_operator.media.vad import VAD_SETTLE_FRAMES, UtteranceSegmenter
from tests.test_media_speech import frames_of, noise, speak

ZERO = np.zeros(FRAME_SAMPLES, dtype=np.int16)
VAD_STATE_BYTES = 732  # webrtcvad's VadInstT up to (not including) its init flag: every field that changes


def vad_state(vad: webrtcvad.Vad) -> bytes:
    """The raw state of a webrtcvad instance (its C struct behind the capsule)."""
    api = ctypes.pythonapi
    api.PyCapsule_GetName.restype = ctypes.c_char_p
    api.PyCapsule_GetName.argtypes = [ctypes.py_object]
    api.PyCapsule_GetPointer.restype = ctypes.c_void_p
    api.PyCapsule_GetPointer.argtypes = [ctypes.py_object, ctypes.c_char_p]
    capsule = vad._vad
    return ctypes.string_at(api.PyCapsule_GetPointer(capsule, api.PyCapsule_GetName(capsule)), VAD_STATE_BYTES)


@pytest.mark.parametrize("aggressiveness", [0, 1, 2, 3])
def test_webrtcvad_state_is_a_fixed_point_after_the_settle_frames(aggressiveness: int) -> None:
    """The premise of the gate, checked on webrtcvad's own state: after VAD_SETTLE_FRAMES zero frames following
    any audio, one more zero frame changes no byte of it and is not speech."""
    rng = np.random.default_rng(aggressiveness)
    vad = webrtcvad.Vad(aggressiveness)
    for _ in range(150):
        for _ in range(int(rng.integers(1, 30))):
            amplitude = float(rng.choice([3.0, 60.0, 2000.0, 12000.0, 30000.0]))
            frame = np.clip(rng.standard_normal(FRAME_SAMPLES) * amplitude, -32768, 32767).astype(np.int16)
            vad.is_speech(frame.tobytes(), 8000)
        for _ in range(VAD_SETTLE_FRAMES):
            vad.is_speech(ZERO.tobytes(), 8000)
        before = vad_state(vad)
        for _ in range(3):
            assert not vad.is_speech(ZERO.tobytes(), 8000)
            assert vad_state(vad) == before


def listener() -> CallerListener:
    return CallerListener(UtteranceSegmenter(2, 60, 600, 8.0), BargeInDetector(200))


def same(a: Any, b: Any) -> bool:
    if isinstance(a, np.ndarray):
        return isinstance(b, np.ndarray) and a.dtype == b.dtype and np.array_equal(a, b)
    if is_dataclass(a) and not isinstance(a, type):
        return type(a) is type(b) and all(same(getattr(a, f.name), getattr(b, f.name)) for f in fields(a))
    if isinstance(a, list):
        return isinstance(b, list) and len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    return bool(a == b)


def state(lst: CallerListener) -> tuple[Any, ...]:
    seg, bi = lst.segmenter, lst.bargein
    return (seg.in_speech, seg.last_frame_speech, seg._run, seg._silence, len(seg._frames), seg._frames_seen,
            bi._count, bi._gap, bi._fired, lst._under_bot, lst._caller_frames, lst.echo._bot._sum, lst.echo._caller._sum,
            list(lst.echo._bot._values), list(lst.echo._caller._values))


def stream(seed: int, speech: list[np.ndarray]) -> list[tuple[np.ndarray, bool, float | None]]:
    """(caller frame, bot speaking, bot frame power or None) per 20 ms: speech, digital silence of every length
    (a single zero frame inside speech, a gap shorter than the VAD's hangover, long pauses), faint noise, loud
    bursts, with the bot talking over some of it."""
    rng = np.random.default_rng(seed)
    out: list[tuple[np.ndarray, bool, float | None]] = []
    bot_on = False
    for _ in range(40):
        kind = rng.choice(["speech", "zeros", "zeros", "noise", "burst", "zero1"])
        if kind == "speech":
            chunk = frames_of(speech[int(rng.integers(len(speech)))])
        elif kind == "zeros":
            chunk = [ZERO] * int(rng.choice([2, 5, 9, 15, 16, 17, 30, 80]))
        elif kind == "zero1":
            chunk = [ZERO]
        elif kind == "noise":
            chunk = frames_of(noise(int(rng.integers(1, 40)) * FRAME_SAMPLES, amplitude=20, seed=seed))
        else:
            chunk = frames_of(noise(int(rng.integers(1, 8)) * FRAME_SAMPLES, amplitude=9000, seed=seed + 1))
        if rng.random() < 0.4:
            bot_on = not bot_on
        for frame in chunk:
            power = float(rng.choice([0.0, 1e-4, 0.02])) if bot_on else None
            out.append((frame, bot_on, power))
    return out


@pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")
@pytest.mark.parametrize("seed", range(6))
def test_gated_and_fed_streams_give_identical_events_and_state(seed: int) -> None:
    speech = [speak("Здравствуйте, я хотел бы узнать баланс"), speak("да", "ru"), speak("One two three", "en")]
    fed, gated = listener(), listener()
    gated_frames = skipped_frames = skipped_under_bot = 0
    for i, (frame, bot_speaking, bot_power) in enumerate(stream(seed, speech)):
        t = 500.0 + i * FRAME_S
        if bot_power is not None:
            fed.note_bot_power(bot_power, t)
            gated.note_bot_power(bot_power, t)
        expected = fed.feed(frame, t, bot_speaking)
        if frame is ZERO:  # the daemon's way: skip when nothing can happen, else the gate
            skipped = gated.skip_silent(bot_speaking)
            got = [] if skipped else gated.feed_silent(t, bot_speaking)
            gated_frames += 1
            skipped_frames += skipped
            skipped_under_bot += skipped and bot_speaking
        else:
            got = gated.feed(frame, t, bot_speaking)
        assert same(expected, got), f"frame {i}: {expected} != {got}"
        for each in (fed, gated):  # the bot's reference as the next frame reads it (a skip leaves its decay to then)
            each.echo.bot_active(t + FRAME_S)
        assert state(fed) == state(gated), f"frame {i}"
    assert gated_frames > 200  # the gate was exercised, settled runs included
    assert 0 < skipped_frames < gated_frames  # and so was the skip, but not for every silent frame
    assert skipped_under_bot > 0  # the caller listening to the bot: its silent frames skipped too



@pytest.mark.parametrize("seed", range(4))
def test_power_ring_skips_only_silence_that_changes_nothing(seed: int) -> None:
    """`push_zeros` stops once the ring is all silence; its mean stays bit-identical to pushing every zero."""
    from ai_operator.media.levels import _PowerRing

    rng = np.random.default_rng(seed)
    ring, values, total = _PowerRing(20), [0.0] * 20, 0.0
    for _ in range(3000):
        if rng.random() < 0.5:
            count = int(rng.choice([1, 3, 19, 20, 21, 200]))
            ring.push_zeros(count)
            pushed = [0.0] * count
        else:
            pushed = [float(rng.choice([0.0, 1e-9, 3e-3, 0.4]))]
            ring.push(pushed[0])
        for p in pushed:  # the reference: every frame pushed, oldest out
            total += p - values[0]
            values = [*values[1:], p]
        assert ring.mean() == max(0.0, total) / 20
