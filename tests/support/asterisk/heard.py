"""What the SIP caller heard, judged from the caller's side: voiced frames, talkspurts, waiting for the bot to
finish a reply, and whether a given line's audio is in what was heard. Pure functions over the RTP peer's
records (kernel receive times, CLOCK_REALTIME ns), plus `wait_reply`, which polls the peer. `voice_to_voice_ms` is
issue 26's caller-side figure, as the latency bench measures it: from the last voiced frame the caller sent to the
first voiced frame it received after it."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.media.levels import frame_powers, power_db
from tests.support.asterisk.rtp_peer import FRAME_NS, RtpPeer, Said
from tests.support.asterisk.speech import similarity
from tests.support.wait import eventually_sync

VOICED_DB = -45.0  # a frame above this level is voice, not the hiss or silence around it
SPURT_GAP_S = 0.3  # voiced frames further apart than this are separate talkspurts
QUIET_S = 1.5  # the bot has finished a reply when nothing voiced arrived for this long
HEARD_IN_FULL = 0.9  # `contains`: the line's first and last second are in what was heard (~1.0 when they are)
MORE_HEARD = 1.1  # `one_answer`: at most this share more voiced frames than the answer has
MORE_FRAMES = 10  # ... plus this many (frame alignment, the codec)
LESS_HEARD = 0.9  # ... and at least this share of them


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


def voice_to_voice_ms(peer: RtpPeer, said: Said, pcm: np.ndarray) -> float | None:
    """From the last voiced frame of the line `pcm` the caller said (`said`) to the first voiced frame it received
    after it, in ms (None: nothing voiced came back)."""
    padded = np.concatenate([pcm, np.zeros((-len(pcm)) % FRAME_SAMPLES, dtype=np.int16)])
    flags = voiced(padded)
    tail = len(flags) - 1 - int(np.flatnonzero(flags)[-1]) if flags.any() else 0  # quiet frames it ended on
    last_voiced_ns = said.last_ns - tail * FRAME_NS
    spurts = talkspurts(peer, last_voiced_ns)
    return (spurts[0].first_ns - last_voiced_ns) / 1e6 if spurts else None


def one_answer(peer: RtpPeer, line: tuple[int, int], until_ns: int | None, answer: np.ndarray) -> str | None:
    """What is wrong with what the caller heard for a line it said over `line` (first and last frame's ns), whose
    answer is `answer` (the bot line's audio), up to `until_ns`: the bot spoke before the line's end, the answer was
    not heard in full, or more or less than it was heard (`MORE_HEARD`, `MORE_FRAMES`, `LESS_HEARD`: voiced frames).
    None: that one answer, after it."""
    spurts = talkspurts(peer, line[0])
    if not spurts or spurts[0].first_ns <= line[1]:
        return "the bot spoke before the caller had finished the line" if spurts else "nothing heard"
    times, audio = peer.pcm(line[1])
    heard = audio[: (len(times) if until_ns is None else int(np.searchsorted(times, until_ns))) * FRAME_SAMPLES]
    if (match := contains(heard, answer)) <= HEARD_IN_FULL:
        return f"its answer was not heard in full ({match:.2f})"
    more, expected = int(voiced(heard).sum()), int(voiced(answer).sum())
    if not expected * LESS_HEARD <= more <= expected * MORE_HEARD + MORE_FRAMES:
        return f"{more} voiced frames heard, its answer has {expected}"
    return None


def voice_to_voice_report(call: str, figures: list[tuple[str, float | None]]) -> str:
    """One report line (`record_property("report", ...)`) of a call's voice-to-voice figures, per caller line."""
    shown = ", ".join(f"{line!r} {'-' if ms is None else f'{ms:.0f}'}" for line, ms in figures)
    return f"asterisk voice-to-voice at the caller, {call} (ms, last voiced frame sent -> first voiced back): {shown}"


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
