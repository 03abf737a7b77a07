"""The media benchmark judges the daemon's lateness and jitter against a pacer with no work in the same window
(`benchmarks/baseline.py`): lateness the box alone causes does not fail the daemon, lateness the daemon adds
does, and a reference that did not run cannot pass anything. The reference pacer is run for real (its own
process, the daemon's pacer code) and its record judged like a capture."""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
import time
from itertools import pairwise
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from benchmarks.analysis import verdicts
from benchmarks.baseline import judge_net, lateness_ms, own_late_pct, reference_figures, reference_problems
from benchmarks.reference_pacer import ReferenceProcess

MS = 1_000_000
FRAME = 20 * MS
TALKSPURT = 150  # frames per reference utterance (3 s)


def reference_record(ticks: int, late_every: int = 0, late_ms: float = 8.0, t0: int = 10**12) -> dict[str, Any]:
    """A reference pacer's record: `ticks` sends 0.05 ms after their slot, every `late_every`-th `late_ms` late."""
    sent = []
    for k in range(ticks):
        late = late_ms if late_every and k % late_every == late_every - 1 else 0.05
        sent.append([t0 + k * FRAME + int(late * MS), k % 65536, (k * 160) % (1 << 32), int(k % TALKSPURT == 0)])
    return {"t0_ns": t0, "t1_ns": t0 + ticks * FRAME, "sent": sent, "late_ticks": 0, "skipped_frames": 0}


def daemon_figures(judged: int, over_5ms: int, jitter_max: float) -> dict[str, Any]:
    """The caller-side figures `analysis.analyse` gives, with every budget but lateness and jitter passing."""
    return {"audio": {"packets_judged": judged, "lost_frames": 0,
                      "lateness_ms": {"p50": 1.0, "p99": 6.0 if over_5ms * 100 >= judged else 2.0, "max": 30.0,
                                      "over_20ms": 0, "over_5ms": over_5ms},
                      "jitter_ms": {"streams": 40, "p99": jitter_max, "max": jitter_max}},
            "turns": {"bridge_ms": {"p95": 20.0}, "unanswered": 0, "unanswered_greetings": 0},
            "inbound": {"processed_pct": 100.0}}


def test_the_reference_is_judged_like_a_capture_each_talkspurt_on_its_own_clock():
    record = reference_record(3000, late_every=50)  # 2 % of ticks 8 ms late
    figures = reference_figures(record)
    assert figures["packets"] == 3000 and figures["slots"] == 3000 and figures["ran_window"]
    assert figures["late_pct"] == pytest.approx(2.0)
    assert figures["lateness_ms"]["over_5ms"] == 60 and figures["lateness_ms"]["p99"] == pytest.approx(7.95)
    assert figures["jitter_max_ms"] > 0.5  # RFC 3550 jitter rises with each late packet


def test_lateness_is_anchored_at_each_talkspurts_best_packet():
    t = [0, 20 * MS + 3 * MS, 40 * MS, 1_000 * MS + 7 * MS, 1_020 * MS + 7 * MS]  # the second talkspurt starts late
    ts = [0, 160, 320, 8000, 8160]
    late = lateness_ms(np.asarray(t), np.asarray(ts), np.asarray([1, 1, 1, 2, 2]))
    assert late.tolist() == pytest.approx([0.0, 3.0, 0.0, 0.0, 0.0])


@pytest.mark.parametrize(("daemon_pct", "box_pct", "own"), [
    (3.5, 3.0, 0.515),  # the box explains nearly all of it
    (3.0, 0.0, 3.0),  # a box never late: the plain p99 budget
    (2.0, 3.0, 0.0),  # the daemon fared better than the reference: nothing of its own
    (50.0, 100.0, 100.0),  # a box late on every tick shows nothing on time
])
def test_the_daemons_own_late_share_is_one_less_the_ratio_of_on_time_shares(daemon_pct, box_pct, own):
    assert own_late_pct(daemon_pct, box_pct) == pytest.approx(own, abs=1e-3)


def test_lateness_the_box_causes_passes_and_lateness_the_daemon_adds_fails():
    reference = reference_figures(reference_record(6000, late_every=40))  # 2.5 % late: p99 over 5 ms
    box_only = daemon_figures(judged=100_000, over_5ms=2_700, jitter_max=reference["jitter_max_ms"] + 4.0)  # 2.7 %
    v = judge_net(verdicts(box_only), box_only, reference)
    assert verdicts(box_only)["lateness_p99_ms"]["verdict"] == "FAIL"  # the absolute budget fails it ...
    assert "lateness_p99_ms" not in v and "jitter_max_ms" not in v  # ... it is replaced by the net ones
    assert v["lateness_own_late_pct"]["verdict"] == "PASS" and v["lateness_own_late_pct"]["value"] < 1.0
    assert v["jitter_own_max_ms"]["verdict"] == "PASS"
    assert all(x["verdict"] == "PASS" for x in v.values())

    own_work = daemon_figures(judged=100_000, over_5ms=4_000, jitter_max=1.0)  # 1.5 % beyond the box's
    v = judge_net(verdicts(own_work), own_work, reference)
    assert v["lateness_own_late_pct"]["verdict"] == "FAIL" and v["lateness_own_late_pct"]["value"] > 1.0

    jittery = daemon_figures(judged=100_000, over_5ms=2_700, jitter_max=reference["jitter_max_ms"] + 5.5)
    assert judge_net(verdicts(jittery), jittery, reference)["jitter_own_max_ms"]["verdict"] == "FAIL"


def test_a_reference_that_did_not_run_the_window_passes_nothing():
    record = reference_record(1000)
    record["t1_ns"] = record["t0_ns"] + 3000 * FRAME  # a third of the slots ticked
    reference = reference_figures(record)
    assert reference["ran_window"] is False
    assert "1000 packets in 3000 slots" in reference_problems(reference)[0]  # the run is not valid
    assert reference_problems(reference_figures(reference_record(3000))) == [] and reference_problems(None) == []
    figures = daemon_figures(judged=100_000, over_5ms=0, jitter_max=1.0)
    for ref in (reference, None, reference_figures({"t0_ns": 0, "t1_ns": FRAME * 100, "sent": []})):
        v = judge_net(verdicts(figures), figures, ref)
        assert v["lateness_own_late_pct"] == {**v["lateness_own_late_pct"], "value": None, "verdict": "FAIL"}
        assert v["jitter_own_max_ms"]["verdict"] == "FAIL"


def test_the_reference_pacer_runs_the_daemons_pacer_in_its_own_process(tmp_path: Path):
    out = tmp_path / "reference.json"
    # its window starts when it has started (--seconds): nothing depends on how fast a busy box starts Python
    subprocess.run([sys.executable, "-m", "benchmarks.reference_pacer", "--seconds", "1", "--out", str(out)],
                   check=True, cwd=Path(__file__).resolve().parent.parent)
    record = json.loads(out.read_text())
    sent = record["sent"]
    assert sent and all(record["t0_ns"] <= at < record["t1_ns"] for at, *_ in sent)
    assert sent[0][3] == 1  # the first packet starts a talkspurt (marker bit)
    seqs = [seq for _, seq, _, _ in sent]
    assert all((b - a) % 65536 == 1 for a, b in pairwise(seqs))  # one packet per tick, none lost
    figures = reference_figures(record)
    assert figures["packets"] == len(sent) and figures["lateness_ms"]["p50"] >= 0.0


def test_a_reference_started_after_its_window_makes_the_run_not_valid(tmp_path: Path):
    async def run() -> dict[str, Any] | None:
        t1 = time.monotonic_ns()  # over before the process can start
        return await ReferenceProcess(tmp_path, t1 - 1_000 * MS, t1).record()

    record = asyncio.run(run())
    assert record is not None and record["sent"] == []
    reference = reference_figures(record)
    assert reference["ran_window"] is False and reference_problems(reference)
