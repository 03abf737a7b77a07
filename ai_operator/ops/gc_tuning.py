"""Garbage collection for a real-time loop: freeze what start-up made, then collect in small passes placed in the
pacer's slack (right after a tick's frames went out), never in the middle of a tick.

A collection stops the one event loop while it walks the objects of the generations it collects, and every
call's audio stands still meanwhile. Measured on a 2-core box: a full (generation 2) pass at a few hundred
calls took 120-260 ms; a young pass grown to 50,000 objects took 29-47 ms, once every two minutes, and that one
pause alone put the worst stream's jitter over budget. So:

- start-up objects (modules, settings, tables, caches) live forever: after start-up they are collected once and
  frozen out of the collector's reach (`gc.freeze`);
- `PacedCollector.after_tick` (called by the pacer after each tick) runs a young pass as soon as
  `YOUNG_PASS_OBJECTS` new objects are pending (1-5 ms), and a middle pass every `MIDDLE_EVERY` young ones
  (every 10 took 8-16 ms at 200-550 calls; every 5 halves that), each with most of the 20 ms tick ahead of it;
- a full pass walks every object of every call (83 ms at 550 calls, 130,000 objects): it is due every
  `FULL_EVERY` middle passes but runs only with at most `FULL_PASS_FREE_CALLS` calls in progress or when its
  predicted pause (the last full pass's, scaled by the calls then and now) fits `FULL_PASS_BUDGET_MS`, i.e. when
  the daemon is quiet; under steady load it is deferred, at most `FULL_PASS_MAX_DEFER_S`, so cyclic garbage that
  outlived the middle passes is still reclaimed (a pause over the budget is logged: `gc_full_pass`);
- a pass waits for a tick with room for it: it runs when the last pause of its generation (plus
  `SLACK_MARGIN_MS`) fits the time left before the next tick is due, or, after `MAX_DEFER_TICKS` ticks without
  such room, at the first tick that is on time, never in a tick that is catching up (where a pause would add
  to the lateness every call's audio already has);
- the automatic thresholds stay as a safety net (`SAFETY_THRESHOLDS`): they trip only if the pacer stops
  collecting.

Reference counting still frees almost everything the moment it is dropped; only cycles wait for a pass.
Every pass is timed and counted (`passes`, `pause_max_ms`), whoever ran it, for /metrics and the benchmark.
"""

from __future__ import annotations

import gc
import time
from collections.abc import Callable
from typing import Any

from ai_operator.logs import get_logger

log = get_logger("gc")

YOUNG_PASS_OBJECTS = 2_000  # pending new objects that make the next tick run a young pass (about 1 ms of work)
MIDDLE_EVERY = 5  # young passes per middle pass (CPython's is 10: at 400 calls that middle pass took 13 ms)
FULL_EVERY = 10  # middle passes per full pass (CPython's own default)
FULL_PASS_BUDGET_MS = 8.0  # a full pass predicted to stop the loop longer than this waits for a quieter moment
FULL_PASS_MAX_DEFER_S = 3600.0  # ... but no longer than this after the previous full pass
FULL_PASS_FREE_CALLS = 10  # at or below this many calls a full pass is cheap (about 1.5 ms): it always runs
SLACK_MARGIN_MS = 2.0  # room kept after a pass before the next tick is due
MAX_DEFER_TICKS = 25  # a pass waits for room at most this many ticks (0.5 s), then takes the first tick on time
SAFETY_THRESHOLDS = (50_000, 20, 100)  # automatic passes: only if the pacer is not collecting


def settle_heap() -> tuple[int, int, int]:
    """Collect, freeze the survivors (start-up objects), set the safety thresholds; returns them."""
    gc.collect()
    gc.freeze()
    gc.set_threshold(*SAFETY_THRESHOLDS)
    return SAFETY_THRESHOLDS


class PacedCollector:
    """Runs the cyclic collector from the pacer's slack in small passes, and times every pass of the process."""

    def __init__(
        self,
        *,
        young_pass_objects: int = YOUNG_PASS_OBJECTS,
        middle_every: int = MIDDLE_EVERY,
        full_every: int = FULL_EVERY,
        full_pass_budget_ms: float = FULL_PASS_BUDGET_MS,
        full_pass_max_defer_s: float = FULL_PASS_MAX_DEFER_S,
        load: Callable[[], int] = lambda: 0,
        slack: Callable[[], float] | None = None,
        clock: Callable[[], float] = time.perf_counter,
    ) -> None:
        self.young_pass_objects = young_pass_objects
        self.middle_every = middle_every
        self.full_every = full_every
        self.full_pass_budget_ms = full_pass_budget_ms
        self.full_pass_max_defer_s = full_pass_max_defer_s
        self._load = load  # calls in progress (a full pass's cost grows with them)
        self._slack = slack  # seconds until the next tick is due (None: always room)
        self._last_ms: list[float | None] = [None, None, None]  # the last pause per generation
        self._waited = 0  # ticks the pending pass has waited for room
        self.passes_waited = 0  # ticks on which a due pass waited for room
        self._clock = clock
        self._last_full: tuple[float, float, int] | None = None  # (when, pause ms, calls then)
        self._full_since = clock()  # the last full pass (or start): the deferral's reference
        self.full_passes_deferred = 0  # times a due full pass waited for a quieter moment
        self.passes = [0, 0, 0]  # per generation, paced or automatic
        self.pause_max_ms = [0.0, 0.0, 0.0]
        self.pause_total_ms = [0.0, 0.0, 0.0]
        self.unpaced_passes = 0  # passes not run from a tick (the safety net tripped, or an explicit collect)
        self._started_at: float | None = None
        self._paced = False
        self._installed = False

    def install(self) -> None:
        """Start timing every pass (idempotent); `remove` undoes it."""
        if not self._installed:
            gc.callbacks.append(self._on_gc)
            self._installed = True

    def remove(self) -> None:
        if self._installed:
            gc.callbacks.remove(self._on_gc)
            self._installed = False

    def due(self) -> int | None:
        """The generation the next pass should collect, or None while too few new objects are pending."""
        young, young_passes, middle_passes = gc.get_count()
        if young < self.young_pass_objects:
            return None
        if young_passes + 1 < self.middle_every:
            return 0
        if middle_passes + 1 < self.full_every:
            return 1
        return 2 if self._full_pass_fits() else 1

    def predicted_full_pass_ms(self) -> float | None:
        """The last full pass's pause scaled by the calls in progress now against then (None: none measured)."""
        if self._last_full is None:
            return None
        _, ms, calls_then = self._last_full
        return ms * (self._load() + 1) / (calls_then + 1)

    def _full_pass_fits(self) -> bool:
        if self._load() <= FULL_PASS_FREE_CALLS:
            return True
        predicted = self.predicted_full_pass_ms()
        if predicted is not None and predicted <= self.full_pass_budget_ms:
            return True
        if self._clock() - self._full_since >= self.full_pass_max_defer_s:
            return True
        self.full_passes_deferred += 1
        return False

    def settle(self) -> None:
        """Start-up is over: `settle_heap`, and forget the start-up's full pass (it walked what is now frozen)."""
        settle_heap()
        self._last_full = None
        self._full_since = self._clock()

    def after_tick(self) -> int | None:
        """Run the pass that is due, if any (the pacer calls this with the rest of the tick ahead); returns its
        generation."""
        generation = self.due()
        if generation is None or not self._room_for(generation):
            return None
        self._paced = True
        try:
            gc.collect(generation)
        finally:
            self._paced = False
        return generation

    def _room_for(self, generation: int) -> bool:
        """The time left before the next tick takes this pass (its generation's last pause and the margin), or
        the pass has waited long enough and this tick is on time."""
        if self._slack is None:
            return True
        slack_ms = self._slack() * 1000.0
        predicted = self._last_ms[generation]
        if (predicted is None or predicted + SLACK_MARGIN_MS <= slack_ms
                or (self._waited >= MAX_DEFER_TICKS and slack_ms > 0)):
            self._waited = 0
            return True
        self._waited += 1
        self.passes_waited += 1
        return False

    def figures(self) -> dict[str, list[float]]:
        """Per generation: passes, total pause and longest pause (seconds), the shape /metrics reads."""
        return {"passes": [float(n) for n in self.passes],
                "pause_seconds": [ms / 1000.0 for ms in self.pause_total_ms],
                "pause_max_seconds": [ms / 1000.0 for ms in self.pause_max_ms]}

    def _on_gc(self, phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            self._started_at = self._clock()
            return
        if self._started_at is None:
            return
        generation = int(info.get("generation", 0))
        ms = (self._clock() - self._started_at) * 1000.0
        self._started_at = None
        self.passes[generation] += 1
        self.pause_total_ms[generation] += ms
        self.pause_max_ms[generation] = max(self.pause_max_ms[generation], ms)
        self._last_ms[generation] = ms
        if not self._paced:
            self.unpaced_passes += 1
        if generation == 2:
            calls = self._load()
            self._full_since = self._clock()
            self._last_full = (self._full_since, ms, calls)
            if ms > self.full_pass_budget_ms:
                log.info("gc_full_pass", pause_ms=round(ms, 1), calls=calls, collected=info.get("collected"),
                         paced=self._paced)
