"""Resampling to 8 kHz: pass band kept, no aliasing, streaming equals one-shot, no clicks at chunk boundaries."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ai_operator.speech.resample import StreamResampler, resample
from ai_operator.speech.wav import WavError, decode_wav, encode_wav, parse_wav_header

AMP = 10000


def tone(hz: float, rate: int, seconds: float = 1.0, amp: float = AMP) -> np.ndarray:
    t = np.arange(int(rate * seconds)) / rate
    return (amp * np.sin(2 * np.pi * hz * t)).astype(np.int16)


def rms(x: np.ndarray) -> float:
    x = x.astype(np.float64)
    edge = len(x) // 10  # skip filter warm-up at both ends
    return float(np.sqrt(np.mean(x[edge:-edge] ** 2)))


def streamed(pcm: np.ndarray, in_rate: int, sizes: list[int]) -> np.ndarray:
    rs = StreamResampler(in_rate)
    out, pos, i = [], 0, 0
    while pos < len(pcm):
        n = sizes[i % len(sizes)]
        out.append(rs.process(pcm[pos : pos + n]))
        pos += n
        i += 1
    out.append(rs.flush())
    return np.concatenate(out)


def test_pass_band_tone_survives_24k_to_8k() -> None:
    out = resample(tone(3500, 24000), 24000, 8000)
    assert out.dtype == np.int16
    assert abs(len(out) - 8000) <= 2
    ratio_db = 20 * np.log10(rms(out) / rms(tone(3500, 24000)))
    assert ratio_db > -1.0
    spectrum = np.abs(np.fft.rfft(out.astype(np.float64)))
    assert abs(np.argmax(spectrum) * 8000 / len(out) - 3500) < 5


def test_tone_above_nyquist_is_removed_not_aliased() -> None:
    src = tone(6000, 24000)  # would fold to 2 kHz without a low-pass
    out = resample(src, 24000, 8000)
    assert 20 * np.log10(max(rms(out), 1e-9) / rms(src)) < -40


def test_espeak_rate_22050_keeps_speech_band() -> None:
    out = resample(tone(1000, 22050), 22050)
    assert abs(len(out) - 8000) <= 2
    assert rms(out) == pytest.approx(rms(tone(1000, 22050)), rel=0.05)


@settings(max_examples=25, deadline=None)
@given(sizes=st.lists(st.integers(min_value=1, max_value=3000), min_size=1, max_size=8))
def test_streaming_equals_one_shot(sizes: list[int]) -> None:
    rng = np.random.default_rng(7)
    src = (tone(700, 24000, 0.5) + rng.normal(0, 500, 12000)).astype(np.int16)
    one = resample(src, 24000)
    many = streamed(src, 24000, sizes)
    assert abs(len(one) - len(many)) <= 2
    n = min(len(one), len(many))
    assert np.max(np.abs(one[:n].astype(int) - many[:n].astype(int))) <= 2


def test_no_discontinuity_at_chunk_boundaries() -> None:
    src = tone(1000, 24000, 1.0)
    out = streamed(src, 24000, [480])  # 20 ms chunks
    body = out[400:-400].astype(np.float64)
    # a 1 kHz sine at 8 kHz changes by at most 2*pi*f/fs*A per sample; a click would far exceed it
    assert np.max(np.abs(np.diff(body))) < 1.1 * 2 * np.pi * 1000 / 8000 * AMP


def test_same_rate_is_passthrough_and_bad_input_is_named() -> None:
    x = tone(440, 8000, 0.1)
    assert np.array_equal(resample(x, 8000), x)
    rs = StreamResampler(8000)
    assert np.array_equal(rs.process(x), x)
    with pytest.raises(ValueError, match="mono"):
        resample(np.zeros((10, 2), dtype=np.int16), 24000)
    with pytest.raises(ValueError, match="rates must be positive"):
        StreamResampler(0)
    rs2 = StreamResampler(24000)
    rs2.flush()
    with pytest.raises(RuntimeError, match="after flush"):
        rs2.process(x)


def test_wav_round_trip_and_streaming_placeholder_lengths() -> None:
    x = tone(440, 8000, 0.1)
    wav = encode_wav(x, 8000)
    header = parse_wav_header(wav)
    assert header is not None and (header.rate, header.channels, header.bits) == (8000, 1, 16)
    assert header.data_len == 2 * len(x)
    pcm, rate = decode_wav(wav)
    assert rate == 8000 and np.array_equal(pcm, x)
    streaming = bytearray(wav)
    streaming[40:44] = b"\xff\xff\xff\xff"  # data length unknown, as espeak-ng --stdout writes it
    h2 = parse_wav_header(bytes(streaming))
    assert h2 is not None and h2.data_len is None
    assert np.array_equal(decode_wav(bytes(streaming))[0], x)
    assert parse_wav_header(wav[:30]) is None  # needs more bytes
    with pytest.raises(WavError, match="RIFF"):
        parse_wav_header(b"ID3" + b"\x00" * 40)
