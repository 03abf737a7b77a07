"""RTP packets (RFC 3550): parse and serialize, plus a fast header builder for the sender. Pure, no I/O.

Owns the wire format only: the 12-byte fixed header, CSRC list, header extension (profile + length in 32-bit
words) and padding (last byte holds the pad count). Anything that does not fit raises `RtpError` with a message
saying what is wrong, so a transport can drop and count it.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass, field

RTP_VERSION = 2
RTP_HEADER_SIZE = 12
CSRC_SIZE = 4
EXTENSION_HEADER_SIZE = 4
MAX_CSRC = 15
MAX_PAYLOAD_TYPE = 127
SEQ_MOD = 1 << 16
TS_MOD = 1 << 32

_HEADER = struct.Struct("!BBHII")
_EXT_HEADER = struct.Struct("!HH")
_VERSION_BYTE = RTP_VERSION << 6
_MARKER_BIT = 0x80


class RtpError(ValueError):
    """A datagram that is not a valid RTP packet; the message says why."""


@dataclass(slots=True)
class RtpPacket:
    """One RTP packet. `padding` is the number of padding bytes (0 = no padding bit)."""

    payload_type: int
    sequence_number: int
    timestamp: int
    ssrc: int
    payload: bytes = b""
    marker: bool = False
    csrc: list[int] = field(default_factory=list)
    extension_profile: int | None = None
    extension: bytes = b""
    padding: int = 0
    version: int = RTP_VERSION

    @classmethod
    def parse(cls, data: bytes) -> RtpPacket:
        """Parse one datagram; raises `RtpError` on anything malformed."""
        size = len(data)
        if size < RTP_HEADER_SIZE:
            raise RtpError(f"RTP packet too short: {size} bytes, header needs {RTP_HEADER_SIZE}")
        first, second, seq, ts, ssrc = _HEADER.unpack_from(data, 0)
        version = first >> 6
        if version != RTP_VERSION:
            raise RtpError(f"RTP bad version {version}, expected {RTP_VERSION}")
        has_padding = bool(first & 0x20)
        has_extension = bool(first & 0x10)
        cc = first & 0x0F
        pos = RTP_HEADER_SIZE
        end = size
        if has_padding:
            padding = data[-1]
            if padding == 0:
                raise RtpError("RTP padding bit set but padding count is 0")
            if padding > size - RTP_HEADER_SIZE:
                raise RtpError(f"RTP padding overrun: {padding} padding bytes, only {size - RTP_HEADER_SIZE} after the header")
            end = size - padding
        else:
            padding = 0
        csrc_end = pos + cc * CSRC_SIZE
        if csrc_end > end:
            raise RtpError(f"RTP CSRC list overrun: {cc} CSRCs need {csrc_end} bytes, packet has {end}")
        csrc = list(struct.unpack_from(f"!{cc}I", data, pos)) if cc else []
        pos = csrc_end
        extension_profile: int | None = None
        extension = b""
        if has_extension:
            if pos + EXTENSION_HEADER_SIZE > end:
                raise RtpError(f"RTP extension header overrun at byte {pos}, packet has {end}")
            extension_profile, words = _EXT_HEADER.unpack_from(data, pos)
            pos += EXTENSION_HEADER_SIZE
            ext_end = pos + words * 4
            if ext_end > end:
                raise RtpError(f"RTP extension overrun: {words} words need {ext_end} bytes, packet has {end}")
            extension = bytes(data[pos:ext_end])
            pos = ext_end
        return cls(
            payload_type=second & 0x7F,
            sequence_number=seq,
            timestamp=ts,
            ssrc=ssrc,
            payload=bytes(data[pos:end]),
            marker=bool(second & _MARKER_BIT),
            csrc=csrc,
            extension_profile=extension_profile,
            extension=extension,
            padding=padding,
            version=version,
        )

    def serialize(self) -> bytes:
        """The wire bytes; raises `RtpError` when a field does not fit its width."""
        if len(self.csrc) > MAX_CSRC:
            raise RtpError(f"RTP too many CSRCs: {len(self.csrc)} > {MAX_CSRC}")
        if not 0 <= self.payload_type <= MAX_PAYLOAD_TYPE:
            raise RtpError(f"RTP payload type {self.payload_type} outside 0..{MAX_PAYLOAD_TYPE}")
        if not 0 <= self.padding <= 255:
            raise RtpError(f"RTP padding {self.padding} outside 0..255")
        if len(self.extension) % 4:
            raise RtpError(f"RTP extension length {len(self.extension)} is not a multiple of 4")
        has_ext = self.extension_profile is not None
        first = (
            (self.version << 6)
            | (0x20 if self.padding else 0)
            | (0x10 if has_ext else 0)
            | len(self.csrc)
        )
        second = (_MARKER_BIT if self.marker else 0) | self.payload_type
        parts = [_HEADER.pack(first, second, self.sequence_number & 0xFFFF, self.timestamp & 0xFFFFFFFF, self.ssrc & 0xFFFFFFFF)]
        if self.csrc:
            parts.append(struct.pack(f"!{len(self.csrc)}I", *self.csrc))
        if has_ext:
            parts.append(_EXT_HEADER.pack(self.extension_profile, len(self.extension) // 4))
            parts.append(self.extension)
        parts.append(self.payload)
        if self.padding:
            parts.append(bytes(self.padding - 1) + bytes([self.padding]))
        return b"".join(parts)


def build_header(payload_type: int, marker: bool, seq: int, ts: int, ssrc: int) -> bytes:
    """The 12-byte header of a plain packet (no CSRC, extension or padding): the sender's fast path."""
    return _HEADER.pack(
        _VERSION_BYTE,
        (_MARKER_BIT if marker else 0) | payload_type,
        seq & 0xFFFF,
        ts & 0xFFFFFFFF,
        ssrc & 0xFFFFFFFF,
    )
