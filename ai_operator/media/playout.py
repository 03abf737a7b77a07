"""Outgoing audio: one call's playout stream (ONE pacing loop, `media/pacer.py`, sends its frames).

`PlayoutStream` (one per call, no timers) queues the bot's utterances as int16 8 kHz PCM, cuts them into
20 ms frames, encodes them and builds RTP (continuous sequence numbers, timestamps that follow wall time across
silent gaps, marker on the first packet of each talkspurt, random SSRC). It reports `started` when an
utterance's first frame goes out and `stopped` when its last one does, or at once on `flush` (barge-in). An
utterance can be queued held (`hold`): its first frame waits until the hold says go, checked at every tick and,
through `release`, right after the pacer's receive pass, so a hold that the caller's frame just ended does not
wait a whole frame more; and while one is held, its call's incoming frames are read (`read_first`) at the start
of every tick, before the sends, so the caller's frame that ends the hold lets it go in that very slot, on time.
"""

from __future__ import annotations

import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ai_operator.logs import get_logger
from ai_operator.media.codecs import Codec
from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.media.levels import frame_powers
from ai_operator.media.rtp import build_header

log = get_logger("media")

Hold = Callable[[float], bool]  # monotonic now -> True while an utterance's first frame must still wait

STARTED = "started"
STOPPED = "stopped"
_NO_SAMPLES = np.zeros(0, dtype=np.int16)


@dataclass(frozen=True)
class PlayoutEvent:
    """An utterance began or finished playing."""

    kind: str  # "started" | "stopped"
    utterance_id: str
    at: float  # monotonic
    interrupted: bool = False


class _Utterance:
    """Queued audio as ready-to-send frames: each whole 20 ms frame encoded once with its power (for the echo
    reference), so a tick only takes the next one. A streamed line's chunks rarely end on a frame boundary: the
    samples past the last whole frame wait in `carry` for the next chunk, or are padded with the codec's silence
    at the end of the line. Adding a chunk costs that chunk only, however much is still queued."""

    __slots__ = ("carry", "final", "hold", "id", "payloads", "powers", "started")

    def __init__(self, utterance_id: str, hold: Hold | None = None) -> None:
        self.id = utterance_id
        self.hold = hold  # its first frame waits while this says so (None: not held, or released)
        self.payloads: deque[bytes] = deque()
        self.powers: deque[float] = deque()
        self.carry = _NO_SAMPLES  # fewer than a frame's samples, waiting for the rest
        self.final = False
        self.started = False

    def add(self, pcm: np.ndarray, codec: Codec, pad: bytes, final: bool) -> None:
        """Append audio; with `final`, the line ends here (a partial last frame is padded)."""
        carry = self.carry
        arr = np.concatenate((carry, pcm)) if carry.size else pcm
        whole = arr.size // FRAME_SAMPLES * FRAME_SAMPLES
        if whole:
            encoded = codec.encode(arr[:whole])
            step = len(encoded) // (whole // FRAME_SAMPLES)
            self.payloads.extend(encoded[i : i + step] for i in range(0, len(encoded), step))
            self.powers.extend(frame_powers(arr[:whole], FRAME_SAMPLES).tolist())
        rest = arr[whole:]
        if final and rest.size:
            padded = np.zeros(FRAME_SAMPLES, dtype=np.int16)
            padded[: rest.size] = rest
            encoded = codec.encode(rest)
            self.payloads.append(encoded + pad[len(encoded) :])
            self.powers.append(float(frame_powers(padded, FRAME_SAMPLES)[0]))
            rest = _NO_SAMPLES
        self.carry = rest.copy() if rest.size else _NO_SAMPLES
        self.final = final


class PlayoutStats:
    """Counters of one stream."""

    __slots__ = ("callback_errors", "frames_sent", "send_failures", "underruns")

    def __init__(self) -> None:
        self.frames_sent = 0
        self.underruns = 0  # an unfinished utterance had no full frame ready at a tick
        self.send_failures = 0
        self.callback_errors = 0


def _as_pcm(pcm: np.ndarray) -> np.ndarray:
    arr = np.asarray(pcm)
    if arr.dtype != np.int16:
        raise TypeError(f"playout expects int16 PCM at 8 kHz, got dtype {arr.dtype}")
    if arr.ndim != 1:
        raise ValueError(f"playout expects mono (1-D) PCM, got shape {arr.shape}")
    return arr


class PlayoutStream:
    """One call's outgoing audio. Driven by `Pacer.tick`; has no timers of its own."""

    def __init__(
        self,
        codec: Codec,
        send: Callable[[bytes], None],
        *,
        on_event: Callable[[PlayoutEvent], None] | None = None,
        ssrc: int | None = None,
        on_frame: Callable[[float, float], None] | None = None,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.codec = codec
        self._pad = codec.silence_payload()
        self._send = send
        self._on_event = on_event
        self._on_frame = on_frame  # gets each sent frame's mean power and send time (the echo reference)
        self._clock = clock
        self.ssrc = secrets.randbits(32) if ssrc is None else ssrc & 0xFFFFFFFF
        self._seq = secrets.randbits(16)
        self._ts_base = secrets.randbits(32)
        self._k0: int | None = None
        self._gap = True  # the next packet starts a talkspurt (marker bit)
        self._queue: deque[_Utterance] = deque()
        self._sent_slot: int | None = None  # the schedule slot of the last frame sent
        self.holding = False  # an utterance was queued held and has not started (or been flushed) since
        # while holding, the pacer calls this before its tick's sends: it reads this call's incoming frames (the
        # caller's frame that ends the hold may be waiting), so the held reply goes out on time in that slot
        self.read_first: Callable[[], object] | None = None
        self.current_utterance: str | None = None
        self.stats = PlayoutStats()

    @property
    def speaking(self) -> bool:
        """True between an utterance's `started` and its `stopped`."""
        return self.current_utterance is not None

    @property
    def frames_left(self) -> int:
        """Frames still to send of the utterance at the head of the queue (0 when none)."""
        return len(self._queue[0].payloads) if self._queue else 0

    @property
    def queued_utterances(self) -> int:
        return len(self._queue)

    def enqueue(self, pcm: np.ndarray, utterance_id: str, final: bool = True, *, hold: Hold | None = None) -> None:
        """Queue audio of `utterance_id`. Streamed TTS calls it with final=False, then final=True (may be empty).
        `hold` (given with an utterance's first audio): its first frame is not sent while `hold(now)` says so."""
        arr = _as_pcm(pcm)
        tail = self._queue[-1] if self._queue else None
        if tail is None or tail.id != utterance_id:
            tail = _Utterance(utterance_id, hold)
            self.holding = self.holding or hold is not None
            self._queue.append(tail)
        elif tail.final:
            raise ValueError(f"utterance {utterance_id!r} already ended (final=True was given)")
        tail.add(arr, self.codec, self._pad, final)

    def flush(self) -> str | None:
        """Barge-in: drop everything queued. Emits stopped(interrupted=True) for the utterance in progress and
        returns its id; queued utterances that never started are dropped without events."""
        current = self.current_utterance
        self._queue.clear()
        self.holding = False
        self._gap = True
        self.current_utterance = None
        if current is not None:
            self._emit(PlayoutEvent(STOPPED, current, self._clock(), interrupted=True))
        return current

    def _emit(self, event: PlayoutEvent) -> None:
        if self._on_event is None:
            return
        try:
            self._on_event(event)
        except Exception as exc:
            self._callback_failed("playout_event_callback_failed", exc, utterance_id=event.utterance_id)

    def _callback_failed(self, log_event: str, exc: Exception, **fields: object) -> None:
        """Count a failing callback; log only the stream's first such failure (never per frame)."""
        self.stats.callback_errors += 1
        if self.stats.callback_errors == 1:
            log.error(log_event, error=repr(exc), **fields)

    def tick(self, k: int, now: float, error_ms: float) -> None:
        """Send at most one frame for schedule slot `k` (called by the pacer; `error_ms`, how late the tick
        is, is the pacer's statistic, kept once per tick, not per stream)."""
        if self._k0 is None:
            self._k0 = k
        queue = self._queue
        while queue:
            utt = queue[0]
            if utt.payloads:
                if utt.hold is not None and utt.hold(now):  # held: the line stays quiet (no underrun)
                    self._gap = True
                    return
                self._send_frame(utt, k, now)
                return
            if not utt.final:
                self.stats.underruns += 1
                self._gap = True
                return
            queue.popleft()  # final with nothing left: it ended at the previous frame (or had no audio)
            if utt.started:
                self.current_utterance = None
                self._emit(PlayoutEvent(STOPPED, utt.id, now))
        self._gap = True

    def release(self, k: int, now: float) -> bool:
        """After slot `k`'s tick (the pacer's receive pass, which may have ended a hold): a held first frame whose
        hold is over goes out now, for slot `k`, if nothing was sent for it - not a whole frame later at the next
        tick. True when it went."""
        utt = self._queue[0] if self._queue else None
        if utt is None or utt.hold is None or not utt.payloads or self._sent_slot == k or utt.hold(now):
            return False
        self._send_frame(utt, k, now)
        return True

    def _send_frame(self, utt: _Utterance, k: int, now: float) -> None:
        self._sent_slot = k
        if utt.hold is not None:
            utt.hold = None
            self.holding = any(u.hold is not None for u in self._queue)
        payload = utt.payloads.popleft()
        power = utt.powers.popleft()
        marker = self._gap or not utt.started
        if not utt.started:
            utt.started = True
            self.current_utterance = utt.id
            self._emit(PlayoutEvent(STARTED, utt.id, now))
        ts = self._ts_base + (k - (self._k0 or 0)) * FRAME_SAMPLES
        packet = build_header(self.codec.payload_type, marker, self._seq, ts, self.ssrc) + payload
        self._seq = (self._seq + 1) & 0xFFFF
        self._gap = False
        try:
            self._send(packet)
        except Exception as exc:
            self.stats.send_failures += 1
            if self.stats.send_failures == 1:
                log.warning("playout_send_failed", error=repr(exc))
        self.stats.frames_sent += 1
        if self._on_frame is not None:
            try:
                self._on_frame(power, now)
            except Exception as exc:
                self._callback_failed("playout_frame_callback_failed", exc)
        if utt.final and not utt.payloads:
            self._queue.popleft()
            self.current_utterance = None
            self._emit(PlayoutEvent(STOPPED, utt.id, now))
