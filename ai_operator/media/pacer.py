"""ONE pacing loop for every call's outgoing audio, and the clock of the receive side.

`Pacer` is the only timer: one asyncio task ticks on an absolute schedule t0 + k * 20 ms, so it does not drift;
when it falls more than a few frames behind it skips ahead (counted in `late_ticks`) instead of bursting. Each
tick sends one frame of every `PlayoutStream` (`media/playout.py`). It is also the clock of the receive side:
after sending a tick's frames it calls `receive` (the daemon's: read every call's socket), so all calls' incoming
RTP is handled once per tick, and never ahead of a due frame - except the few calls with a reply held for the
caller's silence (`PlayoutStream.holding`): each is read just before the tick's sends (`read_first`, counted in
`reads_first`), so the caller frame that completes the silence, if it is in, lets the reply go in this slot, on
time, rather than a slot later (at 100 calls the receive pass ends past `RELEASE_WITHIN_MS`); then a held reply that this receive pass released
(the caller's frame that completes its silence, `PlayoutStream.release`) goes out for the same slot, if the slot
is younger than `RELEASE_WITHIN_MS` (else at the next tick, as any frame); then `after_tick` (the daemon's: a
garbage-collection pass when one is due, `ops/gc_tuning.py`), with the rest of the tick ahead of it. A step that
overruns its slot is kept (`overruns`) with where its time went.
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

from ai_operator.background import BackgroundTask
from ai_operator.logs import get_logger
from ai_operator.media.frames import FRAME_MS
from ai_operator.media.playout import PlayoutStream
from ai_operator.media.timing import ErrorStats

log = get_logger("media")

OVERRUNS_KEPT = 64  # the last steps that overran their slot, kept for diagnosis
LATE_SKIP_FRAMES = 3  # further behind than this: skip ahead instead of sending a burst
# a held reply released by the receive pass goes out in the same slot only this soon after the slot's time: its
# first packet is late by at most this against its timestamp (the playout-lateness budget is 5 ms at p99), and
# the next tick, 20 ms on, would cost the caller a whole frame's wait
RELEASE_WITHIN_MS = 4.0


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
        self._task = BackgroundTask(self._run, "playout-pacer")
        self.ticks = 0
        self.late_ticks = 0  # times the loop was so late it skipped ahead
        self.skipped_frames = 0
        self.stream_errors = 0
        self.released = 0  # held first frames sent right after the receive pass that released them
        self.reads_first = 0  # reads of a held reply's call before a tick's sends (`PlayoutStream.read_first`)
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
            if stream.holding and stream.read_first is not None:  # its call read first: the hold may end now
                self._read_first(stream.read_first)
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
            self.release_held(received)
            self._after()
            end = clock()
            if end - now > self.frame_s:  # the step overran its slot: say where the time went
                self.overruns.append(StepOverrun(now - (due if due is not None else now), sent - now, received - sent,
                                                 end - received, time.thread_time() - cpu))
            if due is not None and end >= self.next_due():  # type: ignore[operator]
                await asyncio.sleep(0)  # stay fair to the loop when catching up

    def _read_first(self, read: Callable[[], object]) -> None:
        try:
            self.reads_first += 1
            read()
        except Exception as exc:  # as the receive pass: the pacing must go on whatever the receive side does
            self.receive_errors += 1
            if self.receive_errors == 1:
                log.error("playout_receive_failed", error=repr(exc))

    def release_held(self, now: float) -> None:
        """After the receive pass: held first frames released by it go out for the slot just ticked, when that slot
        began less than `RELEASE_WITHIN_MS` ago (counted in `released`)."""
        k = self._k - 1
        if self._t0 is None or k < 0 or (now - (self._t0 + k * self.frame_s)) * 1000.0 > RELEASE_WITHIN_MS:
            return
        for stream in self._streams:
            if not stream.holding:
                continue
            try:
                self.released += stream.release(k, now)
            except Exception as exc:  # as in `tick`: one broken stream must not stop the others
                self.stream_errors += 1
                if self.stream_errors == 1:
                    log.error("playout_stream_failed", error=repr(exc))

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
        self._task.start()

    async def stop(self) -> None:
        """Stop the pacing task and wait for it."""
        await self._task.stop()
