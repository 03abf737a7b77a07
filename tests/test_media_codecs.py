"""G.711 against values of the standard, round-trip error bounds, slin byte order, codec lookup."""

from __future__ import annotations

import numpy as np
import pytest

from ai_operator.media import g711
from ai_operator.media.codecs import get_codec
from ai_operator.media.frames import FRAME_SAMPLES, SAMPLE_RATE

ALL_SAMPLES = np.arange(-32768, 32768, dtype=np.int32).astype(np.int16)


def test_ulaw_decode_known_values() -> None:
    out = g711.ulaw_decode(bytes([0xFF, 0x7F, 0x00, 0x80, 0xFE, 0x7E, 0xF0, 0x70]))
    assert out.dtype == np.int16
    # 0xFF/0x7F: +/-0; 0x00/0x80: full scale -/+32124; 0xFE/0x7E: +/-8; 0xF0: 120 (segment 0, step 8)
    assert out.tolist() == [0, 0, -32124, 32124, 8, -8, 120, -120]


def test_alaw_decode_known_values() -> None:
    out = g711.alaw_decode(bytes([0xD5, 0x55, 0x2A, 0xAA, 0xD4, 0x54]))
    # 0xD5/0x55: +/-8 (smallest step); 0xAA/0x2A: +/-32256 (full scale); 0xD4: 24
    assert out.tolist() == [8, -8, -32256, 32256, 24, -24]


def test_encode_known_values() -> None:
    pcm = np.array([0, -1, 32767, -32768, 8, 1000], dtype=np.int16)
    assert g711.ulaw_encode(pcm) == bytes([0xFF, 0x7E, 0x80, 0x00, 0xFE, 0xCE])  # -1 -> 0x7E (decodes to -8)
    assert g711.alaw_encode(pcm) == bytes([0xD5, 0x55, 0xAA, 0x2A, 0xD5, 0xFA])


@pytest.mark.parametrize(("enc", "dec"), [(g711.ulaw_encode, g711.ulaw_decode), (g711.alaw_encode, g711.alaw_decode)])
def test_decode_then_encode_is_identity_on_codewords(enc, dec) -> None:
    words = bytes(range(256))
    again = enc(dec(words))
    if enc is g711.ulaw_encode:  # mu-law has two zeros (0xFF, 0x7F); both encode to +0
        assert again == words.replace(b"\x7f", b"\xff")
    else:
        assert again == words


@pytest.mark.parametrize(("enc", "dec"), [(g711.ulaw_encode, g711.ulaw_decode), (g711.alaw_encode, g711.alaw_decode)])
def test_round_trip_quantisation_error_is_within_half_a_step(enc, dec) -> None:
    x = ALL_SAMPLES.astype(np.int32)
    y = dec(enc(ALL_SAMPLES)).astype(np.int32)
    err = np.abs(y - x)
    small = np.abs(x) < 64
    assert err[small].max() <= 8  # finest step is 16 (A-law) / 8 (mu-law)
    big = np.abs(x) < 31000  # below clipping, error <= half the top segment step (1024 / 2 + bias)
    assert err[big].max() <= 1024
    rel = err[np.abs(x) > 256] / np.abs(x[np.abs(x) > 256])
    assert rel.max() < 0.07  # logarithmic companding: relative error bounded by ~1/32 per half-step
    assert np.all(np.sign(y[np.abs(x) > 16]) == np.sign(x[np.abs(x) > 16]))


def test_encode_is_monotonic_in_decoded_value() -> None:
    for enc, dec in ((g711.ulaw_encode, g711.ulaw_decode), (g711.alaw_encode, g711.alaw_decode)):
        y = dec(enc(ALL_SAMPLES)).astype(np.int32)
        assert np.all(np.diff(y) >= 0)


def test_encode_rejects_non_int16() -> None:
    with pytest.raises(TypeError, match="int16"):
        g711.ulaw_encode(np.zeros(4, dtype=np.float32))


def test_codec_table() -> None:
    assert (SAMPLE_RATE, FRAME_SAMPLES) == (8000, 160)
    ulaw, alaw, slin = get_codec("ulaw"), get_codec("ALAW"), get_codec("slin")
    assert (ulaw.payload_type, ulaw.bytes_per_frame) == (0, 160)
    assert (alaw.payload_type, alaw.bytes_per_frame) == (8, 160)
    assert (slin.payload_type, slin.bytes_per_frame) == (10, 320)
    assert slin.accepts(10) and slin.accepts(11) and not slin.accepts(0)
    assert ulaw.accepts(0) and not ulaw.accepts(8)


def test_unknown_codec_names_it() -> None:
    with pytest.raises(ValueError, match="'opus'"):
        get_codec("opus")


def test_slin_is_big_endian_on_the_wire() -> None:
    slin = get_codec("slin")
    pcm = np.array([1, -2, 0x1234, -32768], dtype=np.int16)
    wire = slin.encode(pcm)
    assert wire == bytes.fromhex("0001fffe12348000")
    back = slin.decode(wire)
    assert back.dtype == np.int16 and back.tolist() == pcm.tolist()
    with pytest.raises(ValueError, match="16-bit"):
        slin.decode(b"\x00\x01\x02")


def test_codec_frame_round_trip_and_silence() -> None:
    rng = np.random.default_rng(1)
    frame = rng.integers(-20000, 20000, FRAME_SAMPLES).astype(np.int16)
    for name in ("ulaw", "alaw", "slin"):
        codec = get_codec(name)
        payload = codec.encode(frame)
        assert len(payload) == codec.bytes_per_frame
        decoded = codec.decode(payload)
        assert decoded.shape == (FRAME_SAMPLES,)
        assert np.abs(decoded.astype(int) - frame.astype(int)).max() <= (0 if name == "slin" else 1024)
        assert np.abs(codec.decode(codec.silence_payload())).max() <= 8
