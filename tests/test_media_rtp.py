"""RTP parse/serialize (RFC 3550): round trips, exact wire bytes, malformed input, fuzz."""

from __future__ import annotations

import struct

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ai_operator.media.rtp import RTP_HEADER_SIZE, RtpError, RtpPacket, build_header


def test_plain_packet_wire_bytes_match_rfc_layout() -> None:
    pkt = RtpPacket(payload_type=8, sequence_number=0x1234, timestamp=0xDEADBEEF, ssrc=0x01020304, payload=b"\xd5" * 4)
    data = pkt.serialize()
    assert data[:RTP_HEADER_SIZE] == bytes.fromhex("80081234deadbeef01020304")
    assert data[RTP_HEADER_SIZE:] == b"\xd5" * 4
    assert RtpPacket.parse(data) == pkt


def test_marker_bit_is_top_bit_of_second_byte() -> None:
    data = RtpPacket(0, 1, 2, 3, b"x", marker=True).serialize()
    assert data[1] == 0x80
    assert RtpPacket.parse(data).marker is True
    assert RtpPacket.parse(RtpPacket(0, 1, 2, 3, b"x").serialize()).marker is False


def test_round_trip_with_csrc_extension_padding_and_marker() -> None:
    pkt = RtpPacket(
        payload_type=96,
        sequence_number=65535,
        timestamp=4294967295,
        ssrc=7,
        payload=b"hello",
        marker=True,
        csrc=[1, 2, 0xFFFFFFFF],
        extension_profile=0xBEDE,
        extension=b"\x10\xff\x00\x00\x21\x01\x02\x00",
        padding=3,
    )
    data = pkt.serialize()
    assert data[0] == 0x80 | 0x20 | 0x10 | 3
    assert data[-1] == 3 and data[-3:-1] == b"\x00\x00"
    assert len(data) == 12 + 3 * 4 + 4 + 8 + 5 + 3
    parsed = RtpPacket.parse(data)
    assert parsed == pkt
    assert parsed.payload == b"hello"


def test_build_header_equals_serialize_of_plain_packet() -> None:
    for marker in (False, True):
        hdr = build_header(0, marker, 70000, 2**32 + 5, 0xCAFEBABE)
        expected = RtpPacket(0, 70000 & 0xFFFF, 5, 0xCAFEBABE, marker=marker).serialize()
        assert hdr == expected


@pytest.mark.parametrize(
    ("data", "reason"),
    [
        (b"", "too short"),
        (b"\x80\x00\x00", "too short"),
        (bytes([0x40]) + bytes(11), "bad version 1"),
        (bytes([0x00]) + bytes(11), "bad version 0"),
        (bytes([0x82]) + bytes(11) + bytes(4), "CSRC list overrun"),
        (bytes([0x90]) + bytes(11) + b"\x00\x01", "extension header overrun"),
        (bytes([0x90]) + bytes(11) + b"\xbe\xde\x00\x02" + bytes(4), "extension overrun"),
        (bytes([0xA0]) + bytes(11) + b"ab\x00", "padding count is 0"),
        (bytes([0xA0]) + bytes(11) + b"a\x09", "padding overrun"),
        (bytes([0xA1]) + bytes(11) + b"a\x02", "CSRC list overrun"),
    ],
)
def test_malformed_packets_raise_rtp_error_naming_the_problem(data: bytes, reason: str) -> None:
    with pytest.raises(RtpError, match=reason):
        RtpPacket.parse(data)


def test_padding_larger_than_body_is_an_overrun() -> None:
    data = bytes([0xA0]) + bytes(11) + b"ab\x10"  # says 16 padding bytes, only 3 after the header
    with pytest.raises(RtpError, match="overrun"):
        RtpPacket.parse(data)


def test_serialize_rejects_fields_that_do_not_fit() -> None:
    with pytest.raises(RtpError, match="payload type"):
        RtpPacket(128, 0, 0, 0).serialize()
    with pytest.raises(RtpError, match="CSRC"):
        RtpPacket(0, 0, 0, 0, csrc=list(range(16))).serialize()
    with pytest.raises(RtpError, match="multiple of 4"):
        RtpPacket(0, 0, 0, 0, extension_profile=1, extension=b"abc").serialize()


@settings(max_examples=400, deadline=None)
@given(st.binary(max_size=200))
def test_fuzz_parse_raises_only_rtp_error(data: bytes) -> None:
    try:
        pkt = RtpPacket.parse(data)
    except RtpError:
        return
    assert pkt.version == 2
    assert RtpPacket.parse(pkt.serialize()) == pkt


@settings(max_examples=200, deadline=None)
@given(
    pt=st.integers(0, 127),
    seq=st.integers(0, 0xFFFF),
    ts=st.integers(0, 0xFFFFFFFF),
    ssrc=st.integers(0, 0xFFFFFFFF),
    payload=st.binary(max_size=64),
    marker=st.booleans(),
    csrc=st.lists(st.integers(0, 0xFFFFFFFF), max_size=15),
    ext=st.one_of(st.none(), st.tuples(st.integers(0, 0xFFFF), st.binary(max_size=16).map(lambda b: b[: len(b) // 4 * 4]))),
    padding=st.integers(0, 255),
)
def test_fuzz_round_trip(pt, seq, ts, ssrc, payload, marker, csrc, ext, padding) -> None:
    pkt = RtpPacket(
        pt, seq, ts, ssrc, payload, marker, csrc,
        extension_profile=None if ext is None else ext[0],
        extension=b"" if ext is None else ext[1],
        padding=padding,
    )
    assert RtpPacket.parse(pkt.serialize()) == pkt


def test_truncated_valid_packets_never_parse_to_garbage() -> None:
    data = RtpPacket(0, 1, 2, 3, b"abcd", csrc=[9], extension_profile=1, extension=bytes(8)).serialize()
    header_len = 12 + 4 + 4 + 8
    for cut in range(header_len):
        with pytest.raises(RtpError):
            RtpPacket.parse(data[:cut])
    assert struct.unpack("!I", data[12:16])[0] == 9
