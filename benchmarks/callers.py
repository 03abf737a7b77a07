"""The simulated callers of the media benchmark and what they measure at the caller side.

Caller pattern: a pre-synthesised espeak-ng clip of about 2 s of speech, then silence, repeating every
`period_s` (5 s). The analysis functions are pure: RTP arrival records in, figures out.
- `stream_quality`: frames received, lost (sequence gaps) and late (inter-arrival above `LATE_MS` inside a
  talkspurt) in a time window;
- `turn_latencies`: caller speech end to the first bot frame of the next talkspurt, minus the configured
  end-of-utterance silence.
"""

from __future__ import annotations

import asyncio
import bisect
import time
from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import webrtcvad

from ai_operator.media.codecs import FRAME_SAMPLES

SAMPLE_RATE = 8000
SPEECH_S = 2.0
PERIOD_S = 5.0
LATE_MS = 40.0
SEQ_MOD = 1 << 16
MAX_TURN_WAIT_S = 4.0  # a bot frame later than this after speech end is not this turn's reply
CALLER_TEXT = "Алло, здравствуйте, я хочу узнать про домашний интернет и тарифы"
CALLER_LANGUAGE = "ru"
VAD_MODE = 2


@dataclass(frozen=True)
class Arrival:
    """One RTP packet as the caller received it."""

    at: float
    seq: int
    marker: bool


def arrivals_of(received: Sequence[tuple[float, object]]) -> list[Arrival]:
    """`SimCall.received` as `Arrival`s."""
    return [Arrival(t, p.sequence_number, p.marker) for t, p in received]  # type: ignore[attr-defined]


def stream_quality(arrivals: Sequence[Arrival], t0: float, t1: float) -> dict[str, int]:
    """Frames received in [t0, t1), frames lost (sequence gaps) and frames late (> LATE_MS after the previous
    frame of the same talkspurt)."""
    frames = lost = late = 0
    prev: Arrival | None = None
    for a in arrivals:
        if a.at < t0 or a.at >= t1:
            prev = a if a.at < t0 else prev
            continue
        frames += 1
        if prev is not None:
            step = (a.seq - prev.seq) % SEQ_MOD
            if 0 < step <= SEQ_MOD // 2:  # 0: duplicate, larger: reordered; neither is a loss
                lost += step - 1
                if step == 1 and not a.marker and (a.at - prev.at) * 1000 > LATE_MS:
                    late += 1
        prev = a
    return {"frames": frames, "lost": lost, "late": late}


def turn_latencies(speech_ends: Sequence[float], arrivals: Sequence[Arrival], end_silence_ms: float) -> list[float]:
    """For each caller speech end: ms to the first talkspurt-starting bot frame after it, minus `end_silence_ms`."""
    starts = [a.at for a in arrivals if a.marker]
    out: list[float] = []
    for end in speech_ends:
        i = bisect.bisect_right(starts, end)
        if i < len(starts) and starts[i] - end <= MAX_TURN_WAIT_S:
            out.append((starts[i] - end) * 1000 - end_silence_ms)
    return out


def percentile(values: Sequence[float], p: float) -> float | None:
    """The p-th percentile (0..100), None for no values."""
    return float(np.percentile(np.asarray(values, dtype=np.float64), p)) if len(values) else None


def speech_clip(pcm: np.ndarray, speech_s: float = SPEECH_S) -> np.ndarray:
    """Trim synthetic speech to at most `speech_s`, starting and ending on frames webrtcvad calls speech, so the
    time the last frame is sent is the end of speech as the daemon's VAD sees it."""
    vad = webrtcvad.Vad(VAD_MODE)
    n = len(pcm) // FRAME_SAMPLES
    frames = [pcm[i * FRAME_SAMPLES : (i + 1) * FRAME_SAMPLES] for i in range(n)]
    voiced = [i for i, f in enumerate(frames) if vad.is_speech(f.tobytes(), SAMPLE_RATE)]
    if not voiced:
        raise ValueError("caller clip: espeak-ng produced no frame that webrtcvad calls speech")
    first = voiced[0]
    limit = first + int(speech_s * 1000 / 20)
    last = max(i for i in voiced if i < limit)
    return np.concatenate(frames[first : last + 1]).astype(np.int16)


async def make_clip() -> np.ndarray:
    """The caller's voice: espeak-ng, cut to about 2 s of speech."""
    from ai_operator.sim.stage import espeak_pcm

    return speech_clip(await espeak_pcm(CALLER_TEXT, CALLER_LANGUAGE))


async def caller(sim: object, clip: np.ndarray, first_at: float, stop_at: float, speech_ends: list[float],
                 period_s: float = PERIOD_S) -> None:
    """Say `clip` at first_at, first_at + period_s, ... until stop_at; record when each utterance ended."""
    t = first_at
    clip_s = len(clip) / SAMPLE_RATE
    while t + clip_s < stop_at and not sim.ended:  # type: ignore[attr-defined]
        await asyncio.sleep(max(0.0, t - time.monotonic()))
        if sim.ended:  # type: ignore[attr-defined]
            break
        sim.say(clip)  # type: ignore[attr-defined]
        await asyncio.sleep(clip_s + 0.1)
        try:
            await sim.wait_said(timeout=period_s)  # type: ignore[attr-defined]
        except TimeoutError:
            break
        if sim.speech_ended_at is not None:  # type: ignore[attr-defined]
            speech_ends.append(sim.speech_ended_at)  # type: ignore[attr-defined]
        t += period_s
