"""The externalMedia codecs: name -> payload type, frame size, and int16 PCM <-> payload bytes. Pure, no I/O.

`ulaw` (PT 0) and `alaw` (PT 8) are G.711; `slin` is 16-bit signed linear at 8 kHz, BIG-endian on the wire
(network byte order, as Asterisk's externalMedia sends it). Asterisk's static RTP table (main/rtp_engine.c)
maps ast_format_slin to PT 10 ("2 channels") and PT 11 ("1 channel"); its payload-code lookup returns the first
match, so Asterisk sends slin with PT 10. We send PT 10 and accept 10 or 11.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

import ai_operator.media.g711 as g711
from ai_operator.media.frames import FRAME_SAMPLES

PT_ULAW = 0
PT_ALAW = 8
PT_SLIN = 10  # Asterisk static table: ast_format_slin -> 10 (first match), 11 also maps to slin
PT_SLIN_ALT = 11
SLIN_BYTES_PER_SAMPLE = 2
_SLIN_WIRE = np.dtype(">i2")


@dataclass(frozen=True)
class Codec:
    """One codec at 8 kHz, 20 ms frames."""

    name: str
    payload_type: int
    bytes_per_frame: int
    accepted_payload_types: frozenset[int] = frozenset()

    def accepts(self, payload_type: int) -> bool:
        """True when an incoming packet's payload type belongs to this codec."""
        return payload_type == self.payload_type or payload_type in self.accepted_payload_types

    def decode(self, payload: bytes) -> np.ndarray:
        """Payload bytes -> int16 samples."""
        if self.name == "ulaw":
            return g711.ulaw_decode(payload)
        if self.name == "alaw":
            return g711.alaw_decode(payload)
        if len(payload) % SLIN_BYTES_PER_SAMPLE:
            raise ValueError(f"slin payload of {len(payload)} bytes is not a whole number of 16-bit samples")
        return np.frombuffer(payload, dtype=_SLIN_WIRE).astype(np.int16)

    def encode(self, pcm: np.ndarray) -> bytes:
        """int16 samples -> payload bytes."""
        if self.name == "ulaw":
            return g711.ulaw_encode(pcm)
        if self.name == "alaw":
            return g711.alaw_encode(pcm)
        arr = np.asarray(pcm)
        if arr.dtype != np.int16:
            raise TypeError(f"slin encode expects int16 samples, got {arr.dtype}")
        return arr.astype(_SLIN_WIRE).tobytes()

    def silence_payload(self) -> bytes:
        """One frame of silence in this codec."""
        return self.encode(np.zeros(FRAME_SAMPLES, dtype=np.int16))


CODECS: dict[str, Codec] = {
    "ulaw": Codec("ulaw", PT_ULAW, FRAME_SAMPLES),
    "alaw": Codec("alaw", PT_ALAW, FRAME_SAMPLES),
    "slin": Codec("slin", PT_SLIN, FRAME_SAMPLES * SLIN_BYTES_PER_SAMPLE, frozenset({PT_SLIN_ALT})),
}


def get_codec(name: str) -> Codec:
    """The codec called `name` (case-insensitive: ulaw, alaw, slin); unknown -> ValueError naming it."""
    codec = CODECS.get(name.strip().lower()) if isinstance(name, str) else None
    if codec is None:
        raise ValueError(f"unknown codec {name!r}: expected one of {', '.join(CODECS)}")
    return codec
