"""The paced garbage collector: small passes when enough new objects are pending, the generation rule, every pass
timed and counted, and the daemon's pacer running it after each tick (tests/test_media_receiver.py)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from ai_operator.ops.gc_tuning import PacedCollector
from ai_operator.ops.metrics import Metrics


@pytest.fixture
def quiet_gc() -> Iterator[None]:
    """No automatic pass during the test: only the collector under test collects."""
    was_enabled = gc.isenabled()
    gc.disable()
    gc.collect()  # every generation's count back to 0
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def _pending(n: int) -> list[dict[str, int]]:
    return [{"i": i} for i in range(n)]  # n tracked containers (kept alive by the caller)


@pytest.mark.usefixtures("quiet_gc")
def test_nothing_is_collected_until_enough_new_objects_are_pending() -> None:
    collector = PacedCollector(young_pass_objects=500)
    keep = _pending(100)
    assert collector.due() is None
    assert collector.after_tick() is None
    keep += _pending(600)
    assert collector.due() == 0
    assert collector.after_tick() == 0
    assert collector.due() is None  # the pass took the pending objects
    assert len(keep) == 700


@pytest.mark.usefixtures("quiet_gc")
def test_young_passes_make_middle_ones_and_middle_ones_a_full_one() -> None:
    collector = PacedCollector(young_pass_objects=50, middle_every=3, full_every=2)
    collector.install()
    keep: list[object] = []
    generations = []
    try:
        for _ in range(6):
            keep += _pending(100)
            generations.append(collector.after_tick())
    finally:
        collector.remove()
    assert generations == [0, 0, 1, 0, 0, 2]
    assert collector.passes == [4, 1, 1]
    assert collector.unpaced_passes == 0
    assert all(ms > 0 for ms in collector.pause_total_ms)
    assert all(0 < worst <= total for worst, total in zip(collector.pause_max_ms, collector.pause_total_ms, strict=True))


@pytest.mark.usefixtures("quiet_gc")
def test_a_pass_the_collector_did_not_run_is_counted_as_unpaced() -> None:
    collector = PacedCollector()
    collector.install()
    try:
        gc.collect(0)
    finally:
        collector.remove()
    assert collector.passes[0] == 1
    assert collector.unpaced_passes == 1
    gc.collect(0)  # removed: no longer timed
    assert collector.passes[0] == 1


@pytest.mark.usefixtures("quiet_gc")
def test_metrics_show_the_passes_and_pauses_per_generation() -> None:
    metrics = Metrics()
    collector = PacedCollector(young_pass_objects=10)
    collector.install()
    try:
        keep = _pending(50)
        collector.after_tick()
    finally:
        collector.remove()
    metrics.set_gc_source(collector.figures)
    text = metrics.render().decode()
    assert 'ai_operator_gc_passes_total{generation="0"} 1.0' in text
    assert 'ai_operator_gc_passes_total{generation="2"} 0.0' in text
    pause = [line for line in text.splitlines() if line.startswith('ai_operator_gc_pause_max_seconds{generation="0"}')]
    assert len(pause) == 1 and float(pause[0].split()[-1]) > 0
    assert len(keep) == 50


@pytest.mark.usefixtures("quiet_gc")
def test_a_full_pass_waits_for_a_quiet_moment_but_not_forever() -> None:
    calls = [0]
    now = [0.0]

    def clock() -> float:  # every reading 20 ms after the one before: each pass "takes" 20 ms
        now[0] += 0.02
        return now[0]

    collector = PacedCollector(young_pass_objects=10, middle_every=1, full_every=1, full_pass_budget_ms=8.0,
                               full_pass_max_defer_s=100.0, load=lambda: calls[0], clock=clock)
    collector.install()
    keep: list[object] = []

    def tick() -> int | None:
        keep.extend(_pending(50))
        return collector.after_tick()

    try:
        assert collector.predicted_full_pass_ms() is None
        calls[0] = 400
        assert tick() == 1  # nothing measured yet, and 400 calls: the full pass waits
        calls[0] = 0
        assert tick() == 2  # quiet: it runs (and is measured: 20 ms with 0 calls)
        calls[0] = 400
        assert collector.predicted_full_pass_ms() == pytest.approx(20.0 * 401, rel=0.01)
        assert tick() == 1
        calls[0] = 5
        assert tick() == 2  # a handful of calls: a full pass is cheap, it runs (20 ms with 5 calls)
        calls[0] = 11
        collector.full_pass_budget_ms = 50.0
        assert tick() == 2  # predicted 20 ms x 12 / 6 = 40 ms: within this budget
        calls[0] = 400
        assert tick() == 1
        now[0] += 100.0
        assert tick() == 2  # deferred long enough: it runs whatever the load
    finally:
        collector.remove()
    assert collector.full_passes_deferred == 3
    assert collector.passes[2] == 4 and collector.passes[1] == 3
    assert collector.unpaced_passes == 0


@pytest.mark.usefixtures("quiet_gc")
def test_settling_freezes_start_up_and_forgets_its_full_pass() -> None:
    calls = [400]
    collector = PacedCollector(load=lambda: calls[0])
    collector.install()
    try:
        collector.settle()
        assert gc.get_freeze_count() > 0
        assert collector.passes[2] == 1  # the start-up's own full pass, timed ...
        assert collector.predicted_full_pass_ms() is None  # ... but not a prediction for a loaded daemon
    finally:
        collector.remove()
        gc.unfreeze()
        gc.set_threshold(700, 10, 10)


class _SteppingClock:
    """Every reading is 10 ms after the previous one: each pass the collector times lasts 10 ms."""

    def __init__(self) -> None:
        self.now = 0.0

    def __call__(self) -> float:
        self.now += 0.010
        return self.now


@pytest.mark.usefixtures("quiet_gc")
def test_a_pass_waits_for_a_tick_with_room_for_its_last_pause_and_never_runs_in_a_late_one() -> None:
    from ai_operator.ops.gc_tuning import MAX_DEFER_TICKS, SLACK_MARGIN_MS

    slack = [1.0]  # seconds to the next tick
    collector = PacedCollector(young_pass_objects=50, middle_every=100, slack=lambda: slack[0],
                               clock=_SteppingClock())
    collector.install()
    keep: list[object] = []
    ran = []
    try:
        keep += _pending(100)
        assert collector.after_tick() == 0  # no pause known yet: it runs; it took 10 ms
        slack[0] = (10.0 + SLACK_MARGIN_MS - 0.5) / 1000  # room for less than that
        keep += _pending(100)
        for _ in range(MAX_DEFER_TICKS):
            ran.append(collector.after_tick())
        assert ran == [None] * MAX_DEFER_TICKS and collector.passes_waited == MAX_DEFER_TICKS
        slack[0] = -0.004  # waited long enough, but this tick is catching up: still not here
        assert collector.after_tick() is None
        slack[0] = 0.001  # the first tick on time takes it
        assert collector.after_tick() == 0
        keep += _pending(100)
        slack[0] = (10.0 + SLACK_MARGIN_MS + 0.5) / 1000  # room for it: at once
        assert collector.after_tick() == 0
    finally:
        collector.remove()
    assert collector.passes[0] == 3 and collector.unpaced_passes == 0
    assert len(keep) == 300
