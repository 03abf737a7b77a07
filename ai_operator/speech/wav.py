"""RIFF/WAVE encoding and incremental header parsing for 16-bit PCM (pure, no I/O).

Streaming writers (espeak-ng --stdout) put a placeholder in the RIFF and data length fields (0, 0xFFFFFFFF or
0x7FFFxxxx); `parse_wav_header` reports such a length as unknown so the reader takes data until end of stream.
"""

from __future__ import annotations

import struct
from dataclasses import dataclass

import numpy as np

PCM_FORMAT = 1
EXTENSIBLE_FORMAT = 0xFFFE
STREAMING_LENGTH_FLOOR = 0x7FFF0000  # lengths at or above this are placeholders of a streaming writer
MAX_HEADER_BYTES = 64 * 1024


class WavError(ValueError):
    """Bytes that are not a 16-bit PCM WAV stream; the message says which field is wrong."""


@dataclass(frozen=True)
class WavHeader:
    rate: int
    channels: int
    bits: int
    data_offset: int  # byte offset of the first sample
    data_len: int | None  # None = unknown (streaming writer): read to end of stream


def encode_wav(pcm: np.ndarray, rate: int) -> bytes:
    """A complete mono 16-bit little-endian WAV file for int16 `pcm`."""
    data = np.asarray(pcm, dtype="<i2").tobytes()
    fmt = struct.pack("<HHIIHH", PCM_FORMAT, 1, rate, rate * 2, 2, 16)
    return (
        b"RIFF"
        + struct.pack("<I", 4 + (8 + len(fmt)) + (8 + len(data)))
        + b"WAVE"
        + b"fmt "
        + struct.pack("<I", len(fmt))
        + fmt
        + b"data"
        + struct.pack("<I", len(data))
        + data
    )


def parse_wav_header(buf: bytes) -> WavHeader | None:
    """Parse the header at the start of `buf`; None when more bytes are needed. Raises WavError when bad."""
    if len(buf) < 12:
        return None
    if buf[:4] != b"RIFF" or buf[8:12] != b"WAVE":
        raise WavError(f"not a RIFF/WAVE stream (starts with {buf[:12]!r})")
    pos = 12
    fmt: tuple[int, int, int, int] | None = None
    while True:
        if pos > MAX_HEADER_BYTES:
            raise WavError(f"no data chunk in the first {MAX_HEADER_BYTES} bytes")
        if len(buf) < pos + 8:
            return None
        cid = buf[pos : pos + 4]
        (size,) = struct.unpack("<I", buf[pos + 4 : pos + 8])
        body = pos + 8
        if cid == b"fmt ":
            if size < 16:
                raise WavError(f"fmt chunk too short ({size} bytes)")
            if len(buf) < body + 16:
                return None
            tag, channels, rate, _byte_rate, _align, bits = struct.unpack("<HHIIHH", buf[body : body + 16])
            if tag not in (PCM_FORMAT, EXTENSIBLE_FORMAT):
                raise WavError(f"fmt: format tag {tag} is not PCM")
            if bits != 16:
                raise WavError(f"fmt: {bits} bits per sample, expected 16")
            if channels < 1 or rate <= 0:
                raise WavError(f"fmt: bad channels={channels} rate={rate}")
            fmt = (rate, channels, bits, tag)
            pos = body + size + (size & 1)
        elif cid == b"data":
            if fmt is None:
                raise WavError("data chunk before fmt chunk")
            data_len: int | None = None if size == 0 or size >= STREAMING_LENGTH_FLOOR else size
            return WavHeader(rate=fmt[0], channels=fmt[1], bits=fmt[2], data_offset=body, data_len=data_len)
        else:
            if size >= STREAMING_LENGTH_FLOOR:
                raise WavError(f"chunk {cid!r} has a placeholder length before the data chunk")
            pos = body + size + (size & 1)


def decode_wav(buf: bytes) -> tuple[np.ndarray, int]:
    """A whole WAV file -> (mono int16 samples, rate). Multi-channel audio is reduced to its first channel."""
    header = parse_wav_header(buf)
    if header is None:
        raise WavError(f"truncated WAV header ({len(buf)} bytes)")
    end = len(buf) if header.data_len is None else min(len(buf), header.data_offset + header.data_len)
    raw = buf[header.data_offset : end]
    frame = 2 * header.channels
    raw = raw[: len(raw) - len(raw) % frame]
    samples = np.frombuffer(raw, dtype="<i2").astype(np.int16)
    if header.channels > 1:
        samples = samples.reshape(-1, header.channels)[:, 0].copy()
    return samples, header.rate
