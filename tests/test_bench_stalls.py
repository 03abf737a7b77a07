"""Lost frames judged as the daemon's or the box's (benchmarks/stalls.py) over synthetic captures (the analysis
tests' real RTP headers) and synthetic skip lists shaped like `SkipProbe`'s rows, the probe itself on a real
`Pacer` driven by a fake clock, and the knee search over runs judged this way."""

from __future__ import annotations

import asyncio
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ai_operator.media.pacer import Pacer
from benchmarks import knee as knee_mod
from benchmarks.analysis import analyse, verdicts
from benchmarks.knee_search import FAIL, INVALID, PASS, Ladder, outcome
from benchmarks.loop_probes import SkipProbe
from benchmarks.stalls import MAX_BOX_STALL_MS, MAX_BOX_STALLS, box_problems, events_by_call, is_box
from tests.test_bench_analysis import EXPECTED, FRAME, MS, RULES, Reply, S, SynthCall, capture_of

REPLY_AT = 5_850 * MS  # the reply with the skip: 150 frames from here, 4 skipped at its 40th
SKIP_AT = REPLY_AT + 44 * FRAME - 5 * MS  # the skipping tick began 5 ms before its (new) slot's packet went out


def skip(at_ns: int = SKIP_AT, *, late: float = 85.7, cpu: float = 9.3, runqueue: float = 8.5, steal: float = 70.0,
         frames: int = 4) -> dict[str, Any]:
    """A `SkipProbe` row; the defaults are search-1/n50's skip of the kept quiet-box run (85.7 ms late, the loop
    on a CPU 9.3 ms and waiting for one 8.5 ms), with the steal that the rest was."""
    return {"at_ns": at_ns, "late_ms": late, "frames": frames, "streams": 1, "since_ms": late + 20.0,
            "cpu_ms": cpu, "runqueue_ms": runqueue, "steal_ms": steal}


def call_with_a_skip(index: int = 0, skipped: int = 4) -> SynthCall:
    c = SynthCall(index, 1 * S)
    c.send(Reply(1 * S + 500 * MS, 100))
    c.line(3_700 * MS, 5_200 * MS)
    c.send(Reply(REPLY_AT, 150).skip(at=40, frames=skipped))
    return c


def judged(calls: list[SynthCall], skips: list[dict[str, Any]] | None) -> tuple[dict[str, Any], dict[str, Any]]:
    """The figures and verdicts of `calls`, with `skips` as one daemon's record (None: no record at all)."""
    own = [] if skips is None else [{"skips": skips, "turn_ends": {c.log.channel_id: [] for c in calls}}]
    figures = analyse(capture_of(calls, 0, 60 * S), EXPECTED, RULES, None, events_by_call(own))
    return figures, verdicts(figures)


def test_a_loss_at_a_skip_the_host_stole_is_the_boxs_and_the_budget_passes():
    figures, v = judged([call_with_a_skip()], [skip()])
    assert figures["audio"]["lost_frames"] == 4 and figures["audio"]["lost_frames_own"] == 0
    box = figures["stalls"]["box"]
    assert (box["stalls"], box["stalls_with_loss"], box["lost_frames"]) == (1, 1, 4)
    assert box["stolen_ms"] == pytest.approx(85.7 - 9.3 - 8.5) and box["longest_ms"] == 85.7
    assert v["lost_frames"] == {**v["lost_frames"], "value": 0, "verdict": "PASS"}
    assert box_problems(figures) == []


@pytest.mark.parametrize("row", [
    skip(cpu=55.0, runqueue=10.0, late=90.0),  # the loop worked: its own CPU time made it late
    skip(cpu=12.0, runqueue=60.0, late=90.0),  # other processes had the CPU: the deployed box's capacity
    skip(steal=0.0),  # neither, and no steal either: the thread blocked on its own (a sleep, a synchronous read)
    {**skip(), "injected": True},  # the benchmark blocked the loop on purpose, whatever the host stole meanwhile
], ids=["own CPU", "run-queue wait", "blocked, not stolen", "injected"])
def test_a_loss_at_a_skip_of_the_daemons_own_is_the_daemons(row):
    assert not is_box(row)
    figures, v = judged([call_with_a_skip()], [row])
    assert figures["audio"]["lost_frames_own"] == 4 and figures["stalls"]["box"]["lost_frames"] == 0
    assert figures["stalls"]["own"] == {"skips": 1, "frames_skipped": 4}
    assert v["lost_frames"]["value"] == 4 and v["lost_frames"]["verdict"] == "FAIL"


def test_a_loss_no_skip_explains_is_the_daemons():
    far = skip(SKIP_AT - 2 * S)  # a box stall two seconds earlier explains nothing here
    figures, v = judged([call_with_a_skip()], [far])
    assert figures["audio"]["lost_frames_own"] == 4 and figures["stalls"]["box"]["stalls"] == 1
    assert figures["stalls"]["box"]["stalls_with_loss"] == 0 and v["lost_frames"]["verdict"] == "FAIL"
    after = skip(SKIP_AT + 150 * MS)  # the box stalled only after the loss arrived
    assert judged([call_with_a_skip()], [after])[0]["audio"]["lost_frames_own"] == 4


def test_a_loss_is_matched_only_to_the_skips_of_the_daemon_that_served_its_call():
    a, b = call_with_a_skip(0), call_with_a_skip(1)
    own: list[dict[str, Any]] = [{"skips": [skip()], "turn_ends": {"c0": []}},
                                 {"skips": [], "turn_ends": {"c1": []}}]
    figures = analyse(capture_of([a, b], 0, 60 * S), EXPECTED, RULES, None, events_by_call(own))
    assert figures["audio"]["lost_frames"] == 8 and figures["audio"]["lost_frames_own"] == 4


def test_frames_missing_from_a_reply_have_no_time_and_stay_the_daemons():
    c = call_with_a_skip()
    c.log.lines.append((8_000 * MS, 9_000 * MS))  # a third line the daemon never answered: 80 frames missing
    figures, _ = judged([c], [skip()])
    assert figures["audio"]["missing_frames"] == 80 and figures["audio"]["lost_frames_own"] == 80


def test_without_the_daemons_skip_record_every_lost_frame_is_the_daemons():
    figures, v = judged([call_with_a_skip()], None)
    assert figures["stalls"] is None and figures["audio"]["lost_frames_own"] == 4
    assert v["lost_frames"]["verdict"] == "FAIL"


def test_a_box_that_stalls_too_often_or_too_long_makes_the_run_invalid():
    at = [SKIP_AT + k * 10 * S for k in range(MAX_BOX_STALLS + 1)]
    many, _ = judged([call_with_a_skip()], [skip(t) for t in at])
    assert many["audio"]["lost_frames_own"] == 0
    assert [p.split(" (")[0] for p in box_problems(many)] == [
        f"the host stole the daemon's CPU {MAX_BOX_STALLS + 1} times long enough to skip frames"]
    assert box_problems(judged([call_with_a_skip()], [skip(t) for t in at[:-1]])[0]) == []
    long_skip = skip(REPLY_AT + 70 * FRAME - 5 * MS, late=MAX_BOX_STALL_MS + 100, steal=550.0, frames=30)
    long_, _ = judged([call_with_a_skip(skipped=30)], [long_skip])
    assert long_["audio"]["lost_frames_own"] == 0 and "once for 600 ms" in box_problems(long_)[0]


def test_the_probe_records_a_skip_with_what_happened_since_the_last_on_time_tick():
    now = [0.0]
    pacer = Pacer(clock=lambda: now[0])
    probe = SkipProbe(pacer)
    late = 100.06 + 0.0857
    for t in (100.0, 100.02, 100.041, late):  # on time, on time, 1 ms late, then 85.7 ms late
        now[0] = t
        pacer.tick(t)
    assert pacer.skipped_frames == 4 and len(probe.rows) == 1
    row = probe.rows[0]
    assert row["at_ns"] == round(late * 1e9) and row["late_ms"] == pytest.approx(85.7)
    assert row["frames"] == 4 and row["streams"] == 0
    assert row["since_ms"] == pytest.approx(104.7)  # from the last tick that began on time (100.041)
    assert min(row["cpu_ms"], row["runqueue_ms"], row["steal_ms"]) >= 0.0 and "injected" not in row
    now[0] = 100.2
    pacer.tick(100.2)  # a tick 1 frame late does not skip: nothing recorded
    assert len(probe.rows) == 1
    probe.injected.append((100.21, 100.29))  # the benchmark's fault injection blocked the loop for 80 ms
    for t in (100.19, 100.30):  # on time (10 ms behind), then 100 ms late
        now[0] = t
        pacer.tick(t)
    assert len(probe.rows) == 2 and probe.rows[1]["injected"] is True


def _media_run(n: int, clean_up_to: int, invalid_at: int) -> dict[str, Any]:
    """One synthetic media run: every N's capture loses 4 frames at a skip; below the knee the host stole it,
    above it the loop's own work made it (as the daemon's load grows); at `invalid_at` the box stalled too often."""
    row = skip() if n <= clean_up_to else skip(cpu=70.0)
    rows = [row] + ([skip(SKIP_AT + k * 10 * S) for k in range(1, MAX_BOX_STALLS + 1)] if n == invalid_at else [])
    figures, v = judged([call_with_a_skip()], rows)
    problems = box_problems(figures)
    return {"calls": n, "max_calls": None, "window_s": 120.0, "figures": figures, "budgets": v,
            "verdict": "PASS" if all(x["verdict"] == "PASS" for x in v.values()) else "FAIL",
            "valid": {"ok": not problems, "problems": problems}}


@dataclass(frozen=True)
class _Stage:
    workdir: Path


def test_the_knee_search_finds_the_knee_of_the_daemons_own_budgets(tmp_path, monkeypatch):
    assert outcome(_media_run(200, 430, 0)) == PASS and outcome(_media_run(500, 430, 0)) == FAIL
    assert outcome(_media_run(300, 430, 300)) == INVALID
    # judged on every lost frame, every run would fail (each lost 4 frames): no knee, no MAX_CALLS

    async def media(n: int, stage: _Stage, options: Any) -> dict[str, Any]:
        return _media_run(n, 430 if stage.workdir.name == "search-1" else 470, invalid_at=-1)

    import benchmarks.media_bench

    monkeypatch.setattr(benchmarks.media_bench, "run_media", media)
    options = type("Options", (), {"window_s": 120.0, "pin": False})()
    section = asyncio.run(knee_mod.run_knee(Ladder.parse("200:800:100"), 2, 20, _Stage(tmp_path), options, cpus=2))
    assert [s["knee"] for s in section["searches"]] == [400, 450]
    assert section["searches"][0]["runs"][-1]["outcome"] == FAIL
    assert section["searches"][0]["runs"][-1]["failed"] == ["lost_frames"]
    assert section["summary"]["knee"] == 400 and section["summary"]["recommended_max_calls"] == 320
