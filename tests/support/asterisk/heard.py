"""What the SIP caller heard, judged from the caller's side: voiced frames, talkspurts, waiting for the bot to
finish a reply, and whether a given line's audio is in what was heard. Pure functions over the RTP peer's
records (kernel receive times, CLOCK_REALTIME ns), plus `wait_reply`, which polls the peer."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.media.levels import frame_powers, power_db
from tests.support.asterisk.rtp_peer import RtpPeer
from tests.support.asterisk.speech import similarity
from tests.support.wait import eventually_sync

VOICED_DB = -45.0  # a frame above this level is voice, not the hiss or silence around it
SPURT_GAP_S = 0.3  # voiced frames further apart than this are separate talkspurts
QUIET_S = 1.5  # the bot has finished a reply when nothing voiced arrived for this long


@dataclass(frozen=True)
class Spurt:
    first_ns: int  # arrival of its first and last voiced frame
    last_ns: int
    frames: int  # frames received from the first voiced one to the last
    audio: np.ndarray


def voiced(audio: np.ndarray) -> np.ndarray:
    """Per 20 ms frame of `audio`: is it voiced."""
    n = len(audio) // FRAME_SAMPLES
    powers = frame_powers(audio[: n * FRAME_SAMPLES], FRAME_SAMPLES)
    return np.array([power_db(float(p)) > VOICED_DB for p in powers], dtype=bool)


def talkspurts(peer: RtpPeer, since_ns: int = 0, gap_s: float = SPURT_GAP_S) -> list[Spurt]:
    """The voiced stretches the caller received since `since_ns`, in order."""
    times, audio = peer.pcm(since_ns)
    is_voiced = voiced(audio)
    out: list[Spurt] = []
    start: int | None = None
    prev: int | None = None
    for i in map(int, np.flatnonzero(is_voiced)):
        if start is not None and prev is not None and times[i] - times[prev] > gap_s * 1e9:
            out.append(_spurt(times, audio, start, prev))
            start = None
        start = i if start is None else start
        prev = i
    if start is not None and prev is not None:
        out.append(_spurt(times, audio, start, prev))
    return out


def _spurt(times: np.ndarray, audio: np.ndarray, a: int, b: int) -> Spurt:
    return Spurt(int(times[a]), int(times[b]), b - a + 1, audio[a * FRAME_SAMPLES : (b + 1) * FRAME_SAMPLES])


def last_voiced_ns(peer: RtpPeer, since_ns: int = 0) -> int | None:
    spurts = talkspurts(peer, since_ns)
    return spurts[-1].last_ns if spurts else None


def wait_reply(peer: RtpPeer, after_ns: int, *, quiet_s: float = QUIET_S, timeout: float = 60.0) -> list[Spurt]:
    """Until the caller has heard something voiced after `after_ns` and then nothing voiced for `quiet_s`
    (by the wall clock); the talkspurts of that reply."""
    def complete_reply() -> list[Spurt] | None:
        spurts = talkspurts(peer, after_ns)
        return spurts if spurts and time.time_ns() - spurts[-1].last_ns > quiet_s * 1e9 else None

    try:
        return eventually_sync(complete_reply, timeout, poll_s=0.05)
    except AssertionError:
        heard = talkspurts(peer, after_ns)
        raise AssertionError(f"no complete reply within {timeout:g} s (talkspurts since: {len(heard)})") from None


def contains(heard: np.ndarray, line: np.ndarray, window_s: float = 1.0) -> float:
    """How surely `line`'s audio is in `heard`: the worst match of its first and last `window_s` (1.0: both
    sample for sample). Both ends must be heard for a line heard in full."""
    n = int(window_s * 8000)
    if len(line) <= n:
        return similarity(heard, line)
    return min(similarity(heard, line[:n]), similarity(heard, line[-n:]))
