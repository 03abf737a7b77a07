"""Outgoing audio: per-call playout streams and ONE pacing loop that sends a 20 ms RTP frame for every stream.

`PlayoutStream` (one per call, no timers) queues the bot's utterances as int16 8 kHz PCM, cuts them into
20 ms frames, encodes them and builds RTP (continuous sequence numbers, timestamps that follow wall time across
silent gaps, marker on the first packet of each talkspurt, random SSRC). It reports `started` when an
utterance's first frame goes out and `stopped` when its last one does, or at once on `flush` (barge-in).

`Pacer` is the only timer: one asyncio task ticks on an absolute schedule t0 + k * 20 ms, so it does not drift;
when it falls more than a few frames behind it skips ahead (counted in `late_ticks`) instead of bursting.
It is also the clock of the receive side: after sending a tick's frames it calls `receive` (the daemon's: read
every call's socket), so all calls' incoming RTP is handled once per tick, and never ahead of a due frame; then
`after_tick` (the daemon's: a garbage-collection pass when one is due, `ops/gc_tuning.py`), with the rest of the
tick ahead of it.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np

from ai_operator.logs import get_logger
from ai_operator.media.codecs import Codec
from ai_operator.media.frames import FRAME_MS, FRAME_SAMPLES
from ai_operator.media.levels import frame_powers
from ai_operator.media.rtp import build_header
from ai_operator.media.timing import ErrorStats

log = get_logger("media")

OVERRUNS_KEPT = 64  # the last steps that overran their slot, kept for diagnosis
LATE_SKIP_FRAMES = 3  # further behind than this: skip ahead instead of sending a burst
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

    __slots__ = ("carry", "final", "id", "payloads", "powers", "started")

    def __init__(self, utterance_id: str) -> None:
        self.id = utterance_id
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

    def enqueue(self, pcm: np.ndarray, utterance_id: str, final: bool = True) -> None:
        """Queue audio of `utterance_id`. Streamed TTS calls it with final=False, then final=True (may be empty)."""
        arr = _as_pcm(pcm)
        tail = self._queue[-1] if self._queue else None
        if tail is None or tail.id != utterance_id:
            tail = _Utterance(utterance_id)
            self._queue.append(tail)
        elif tail.final:
            raise ValueError(f"utterance {utterance_id!r} already ended (final=True was given)")
        tail.add(arr, self.codec, self._pad, final)

    def flush(self) -> str | None:
        """Barge-in: drop everything queued. Emits stopped(interrupted=True) for the utterance in progress and
        returns its id; queued utterances that never started are dropped without events."""
        current = self.current_utterance
        self._queue.clear()
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

    def _send_frame(self, utt: _Utterance, k: int, now: float) -> None:
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


@dataclass(frozen=True)
class StepOverrun:
    """A pacer step longer than a frame, in seconds: how late it began, then its sends, receive and after-tick, and
    the CPU time the loop's thread had in it (far below the step's length: the thread was off the CPU, preempted
    or waiting, rather than busy)."""

    late: float
    send: float
    receive: float
    after: float
    cpu: float


class Pacer:
    """ONE asyncio task that ticks every `frame_ms` for all streams against t0 + k * frame_ms."""

    def __init__(
        self,
        frame_ms: int = FRAME_MS,
        clock: Callable[[], float] = time.monotonic,
        *,
        late_skip_frames: int = LATE_SKIP_FRAMES,
        receive: Callable[[], object] | None = None,
        after_tick: Callable[[], object] | None = None,
    ) -> None:
        self.frame_s = frame_ms / 1000.0
        self._receive = receive  # called after each tick's sends (reads every call's incoming RTP)
        self.after_tick = after_tick  # then this, with the rest of the tick ahead (the daemon's paced GC)
        self.receive_errors = 0
        self.after_tick_errors = 0
        self._clock = clock
        self._late_skip = late_skip_frames
        self._streams: list[PlayoutStream] = []
        self._t0: float | None = None
        self._k = 0
        self._task: asyncio.Task[None] | None = None
        self.ticks = 0
        self.late_ticks = 0  # times the loop was so late it skipped ahead
        self.skipped_frames = 0
        self.stream_errors = 0
        self.send_error_ms = ErrorStats()  # per tick: the first frame's send time minus its slot
        self.tick_end_error_ms = ErrorStats()  # per tick: the last frame's send time minus its slot (worst)
        self._removed_underruns = 0
        self._removed_frames = 0
        self.overruns: deque[StepOverrun] = deque(maxlen=OVERRUNS_KEPT)

    @property
    def streams(self) -> int:
        return len(self._streams)

    def add(self, stream: PlayoutStream) -> None:
        if stream not in self._streams:
            self._streams = [*self._streams, stream]  # copy-on-write: safe while a tick iterates

    def remove(self, stream: PlayoutStream) -> None:
        if stream in self._streams:
            self._streams = [s for s in self._streams if s is not stream]
            self._removed_underruns += stream.stats.underruns
            self._removed_frames += stream.stats.frames_sent

    @property
    def underruns(self) -> int:
        """Underruns of every stream this pacer has driven (for metrics)."""
        return self._removed_underruns + sum(s.stats.underruns for s in self._streams)

    @property
    def frames_sent(self) -> int:
        """Frames sent by every stream this pacer has driven (for metrics)."""
        return self._removed_frames + sum(s.stats.frames_sent for s in self._streams)

    def slack(self) -> float:
        """Seconds until the next tick is due (negative: it is late; 0 before the first tick)."""
        due = self.next_due()
        return 0.0 if due is None else due - self._clock()

    def next_due(self) -> float | None:
        """Scheduled time of the next tick (None before the first)."""
        return None if self._t0 is None else self._t0 + self._k * self.frame_s

    def tick(self, now: float) -> None:
        """One pass over all streams for the current schedule slot."""
        frame_s = self.frame_s
        if self._t0 is None:
            self._t0 = now
            self._k = 0
        scheduled = self._t0 + self._k * frame_s
        behind = now - scheduled
        if behind >= self._late_skip * frame_s:
            skip = int(behind / frame_s + 1e-6)  # epsilon: float schedule times
            self._k += skip
            self.skipped_frames += skip
            self.late_ticks += 1
            scheduled = self._t0 + self._k * frame_s
        error_ms = (now - scheduled) * 1000.0
        self.send_error_ms.add(error_ms)
        k = self._k
        for stream in self._streams:
            try:
                stream.tick(k, now, error_ms)
            except Exception as exc:  # one broken stream must not stop the others
                self.stream_errors += 1
                if self.stream_errors == 1:
                    log.error("playout_stream_failed", error=repr(exc))
        self.tick_end_error_ms.add((self._clock() - scheduled) * 1000.0)
        self._k = k + 1
        self.ticks += 1

    async def _run(self) -> None:
        clock = self._clock
        while True:
            due = self.next_due()
            now = clock()
            if due is not None and now < due:
                await asyncio.sleep(due - now)
                continue
            cpu = time.thread_time()
            self.tick(now)
            sent = clock()
            self._received()
            received = clock()
            self._after()
            end = clock()
            if end - now > self.frame_s:  # the step overran its slot: say where the time went
                self.overruns.append(StepOverrun(now - (due if due is not None else now), sent - now, received - sent,
                                                 end - received, time.thread_time() - cpu))
            if due is not None and end >= self.next_due():  # type: ignore[operator]
                await asyncio.sleep(0)  # stay fair to the loop when catching up

    def _received(self) -> None:
        if self._receive is None:
            return
        try:
            self._receive()
        except Exception as exc:  # the pacing task must go on whatever the receive side does
            self.receive_errors += 1
            if self.receive_errors == 1:
                log.error("playout_receive_failed", error=repr(exc))

    def _after(self) -> None:
        if self.after_tick is None:
            return
        try:
            self.after_tick()
        except Exception as exc:  # nor whatever the collector does
            self.after_tick_errors += 1
            if self.after_tick_errors == 1:
                log.error("playout_after_tick_failed", error=repr(exc))

    async def start(self) -> None:
        """Start the pacing task (idempotent)."""
        if self._task is None or self._task.done():
            self._task = asyncio.create_task(self._run(), name="playout-pacer")

    async def stop(self) -> None:
        """Stop the pacing task and wait for it."""
        task, self._task = self._task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
