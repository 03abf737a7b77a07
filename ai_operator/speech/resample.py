"""Sample-rate conversion to the daemon's 8 kHz int16 mono (pure; uses libsoxr through `soxr`).

`resample` converts a whole buffer; `StreamResampler` converts a stream chunk by chunk with soxr's streaming
state, so there are no clicks at chunk boundaries and the anti-alias low-pass is the real one (energy above the
output Nyquist is removed, not folded back).
"""

from __future__ import annotations

import numpy as np
import soxr

from ai_operator.media.frames import SAMPLE_RATE

SOXR_QUALITY = "HQ"


def _as_int16(pcm: np.ndarray) -> np.ndarray:
    arr = np.asarray(pcm)
    if arr.ndim != 1:
        raise ValueError(f"resample: expected mono 1-D audio, got shape {arr.shape}")
    if arr.dtype != np.int16:
        if np.issubdtype(arr.dtype, np.floating):
            arr = np.clip(np.round(arr), -32768, 32767)
        arr = arr.astype(np.int16)
    return arr


def _check_rates(in_rate: int, out_rate: int) -> None:
    if in_rate <= 0 or out_rate <= 0:
        raise ValueError(f"resample: rates must be positive, got in_rate={in_rate} out_rate={out_rate}")


def resample(pcm: np.ndarray, in_rate: int, out_rate: int = SAMPLE_RATE) -> np.ndarray:
    """Convert int16 mono `pcm` from `in_rate` to `out_rate` (one shot); returns int16."""
    _check_rates(in_rate, out_rate)
    arr = _as_int16(pcm)
    if in_rate == out_rate or arr.size == 0:
        return arr.copy()
    return np.asarray(soxr.resample(arr, in_rate, out_rate, quality=SOXR_QUALITY), dtype=np.int16)


class StreamResampler:
    """Chunked int16 mono resampling that keeps filter state across chunks; call `flush()` at the end."""

    def __init__(self, in_rate: int, out_rate: int = SAMPLE_RATE) -> None:
        _check_rates(in_rate, out_rate)
        self.in_rate = in_rate
        self.out_rate = out_rate
        self._passthrough = in_rate == out_rate
        self._stream = (
            None
            if self._passthrough
            else soxr.ResampleStream(in_rate, out_rate, 1, dtype="int16", quality=SOXR_QUALITY)
        )
        self._flushed = False

    def process(self, chunk: np.ndarray) -> np.ndarray:
        """Feed one chunk; returns whatever output is ready (may be empty)."""
        if self._flushed:
            raise RuntimeError("StreamResampler: process() after flush()")
        arr = _as_int16(chunk)
        if self._stream is None:
            return arr.copy()
        return np.asarray(self._stream.resample_chunk(arr, last=False), dtype=np.int16)

    def flush(self) -> np.ndarray:
        """End of stream: returns the samples still held in the filter."""
        if self._flushed:
            return np.zeros(0, dtype=np.int16)
        self._flushed = True
        if self._stream is None:
            return np.zeros(0, dtype=np.int16)
        return np.asarray(self._stream.resample_chunk(np.zeros(0, dtype=np.int16), last=True), dtype=np.int16)
