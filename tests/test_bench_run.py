"""`make bench`'s runner end to end, small: real daemon, real calls with the scripted dialogue, real espeak-ng
replies, the knowledge base and records on the embedded PostgreSQL, callers in their own process judged from
kernel timestamps. Ports come from the OS. Asserts what the run must contain, never that a shared box was fast
enough; and a daemon that stalls for 150 ms must make the benchmark FAIL."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.analysis import BUDGETS
from benchmarks.baseline import NET_BUDGETS
from benchmarks.run import main


@pytest.mark.slow
def test_runner_judges_real_calls_and_writes_one_report(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--quick", "--n", "2", "--window", "25", "--only", "media,policy", "--reports", str(tmp_path)]
    assert main(argv) == 0
    assert len(list(tmp_path.glob("report-*.json"))) == 1
    report = json.loads((tmp_path / "latest.json").read_text())
    assert report["command"] == "python -m benchmarks.run " + " ".join(argv)
    assert report["machine"]["cpus"] >= 1 and len(report["load_average"]["start"]) == 3
    run = report["media"][0]
    assert run["callers"]["capture_drops"] == 0 and run["callers"]["unstamped_packets"] == 0  # every packet, kernel-stamped
    # lateness and jitter judged net of a pacer with no work in the same window (benchmarks/baseline.py)
    assert set(run["budgets"]) == set(BUDGETS) - set(NET_BUDGETS) | {net for net, _ in NET_BUDGETS.values()}
    assert run["baseline"]["packets"] > 0 and run["baseline"]["lateness_ms"]["p99"] is not None
    assert {v["verdict"] for v in run["budgets"].values()} <= {"PASS", "FAIL"}
    assert report["verdict"] in ("PASS", "FAIL") and {p["policy"] for p in report["policy"]} >= {"operator", "freight"}
    assert not [p for p in report["policy"] if "skipped" in p], report["policy"]  # every policy was measured
    audio, turns = run["figures"]["audio"], run["figures"]["turns"]
    # the greeting and the replies to the first lines were judged, each exactly as long as the plan says
    assert turns["judged"] >= 1 and audio["replies_judged"] >= 1 and audio["extra_frames"] == 0
    assert audio["jitter_ms"]["streams"] == 2 and audio["lateness_ms"]["p99"] is not None
    # every answered turn was matched to the daemon's record of how it ended (early pause or full silence)
    assert sum(k["turns"] for k in turns["by_end"].values()) >= 1 and "unmatched" not in turns["by_end"], turns
    assert run["figures"]["inbound"]["scrapes"] >= 5 and run["figures"]["inbound"]["processed_pct"] is not None
    assert run["cpu"]["daemon_s"] > 0 and run["cpu"]["db_measured"] and run["cpu"]["callers_s"] > 0
    records = run["records"]
    assert records["calls_answered"] == 2 and records["calls_recorded"] == 2 == records["calls_ended"]
    assert records["turns_recorded"] >= 2  # the greeting and at least one caller turn of each call
    daemon = run["daemon"]
    assert isinstance(daemon["slow_steps"], list) and set(daemon["gc"]) == {"gen0", "gen1", "gen2"}
    assert daemon["threads_cpu_s"]["loop"] > 0 and daemon["long_receives"]["count"] >= 0  # where stalls came from
    out = capsys.readouterr().out
    assert "cpu s/call-min" in out and "verdict:" in out


@pytest.mark.slow
def test_an_overload_run_refuses_the_calls_past_max_calls_and_judges_the_rest(tmp_path: Path) -> None:
    # no warm-up: the refusals at the first dial (a refused slot redials an average call later) fall in the window
    argv = ["--quick", "--n", "3", "--max-calls", "1", "--warmup", "0", "--window", "10", "--only", "media",
            "--reports", str(tmp_path)]
    assert main(argv) == 0
    run = json.loads((tmp_path / "latest.json").read_text())["media"][0]
    assert run["calls"] == 3 and run["max_calls"] == 1
    assert run["figures"]["calls"]["refused"] >= 1  # sent back to the dialplan, counted
    assert run["records"]["calls_answered"] >= 1 and run["figures"]["audio"]["replies_judged"] >= 1


@pytest.mark.slow
def test_a_daemon_that_stalls_for_150ms_fails_the_benchmark(tmp_path: Path) -> None:
    argv = ["--quick", "--n", "3", "--window", "6", "--stall-ms", "150", "--stall-at", "1", "--only", "media",
            "--reports", str(tmp_path)]
    assert main(argv) == 0
    report = json.loads((tmp_path / "latest.json").read_text())
    run = report["media"][0]
    assert run["stall"]["ms"] == 150
    assert run["figures"]["audio"]["ts_jump_frames"] > 0  # the pacer skipped ahead inside replies
    assert run["budgets"]["lost_frames"]["verdict"] == "FAIL" and report["verdict"] == "FAIL"
