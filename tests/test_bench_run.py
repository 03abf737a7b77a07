"""Smoke test of `make bench`'s runner (tiny N, 3 s window) and of the caller-side RTP analysis."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.callers import Arrival, stream_quality, turn_latencies
from benchmarks.report import budgets, render_table
from benchmarks.run import main


def test_stream_quality_counts_gaps_and_late_frames_inside_the_window() -> None:
    arr = [Arrival(0.00, 65534, True), Arrival(0.02, 65535, False), Arrival(0.04, 1, False),  # seq 0 lost (wrap)
           Arrival(0.10, 2, False),  # 60 ms after the previous frame of the talkspurt: late
           Arrival(0.50, 3, True),  # a new talkspurt (marker): a long gap is not lateness
           Arrival(0.52, 3, False),  # duplicate: neither lost nor late
           Arrival(0.54, 7, False)]  # 3 lost
    q = stream_quality(arr, 0.0, 1.0)
    assert q == {"frames": 7, "lost": 1 + 3, "late": 1}
    assert stream_quality(arr, 0.45, 1.0) == {"frames": 3, "lost": 3, "late": 0}


def test_turn_latency_is_the_next_talkspurt_after_speech_end_minus_the_silence() -> None:
    arr = [Arrival(1.0, 1, True), Arrival(1.02, 2, False), Arrival(5.70, 3, True), Arrival(20.0, 4, True)]
    # speech ended at 5.0: first new talkspurt at 5.70 -> 700 ms - 600 ms; at 12.0: the next one is too late
    assert turn_latencies([5.0, 12.0], arr, 600) == pytest.approx([100.0])


def test_budgets_name_misses() -> None:
    report = {"media": [{"calls": 200, "send_error_p99_ms": 7.0, "frames_lost": 0, "daemon_cores": 0.5,
                         "turn_bridge_p95_ms": 40.0}], "policy": [{"policy": "operator", "p99_ms": 0.2, "p50_ms": 0.1, "max_ms": 0.5,
                                 "decisions_per_s": 9000}]}
    verdicts = budgets(report)
    assert verdicts["n200_send_p99_ms"]["ok"] is False and verdicts["n200_send_p99_ms"]["margin"] == -2.0
    assert verdicts["n200_frames_lost"]["ok"] and verdicts["n200_daemon_cores"]["ok"]
    assert verdicts["policy_operator_p99_ms"]["ok"]
    assert "MISS" in render_table({**report, "budgets": verdicts})


def test_runner_writes_one_report_with_media_and_policy_figures(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["--quick", "--only", "media,policy", "--sizes", "3", "--duration", "3", "--reports", str(tmp_path)]) == 0
    latest = json.loads((tmp_path / "latest.json").read_text())
    assert len(list(tmp_path.glob("report-*.json"))) == 1
    run = latest["media"][0]
    assert run["calls"] == 3 and run["calls_ended_early"] == 0
    assert run["frames_received"] > 0 and run["frames_lost"] == 0  # the bot spoke over loopback RTP
    assert run["rtp_received"] >= 3 * 3 * 45  # 50 frames/s from each caller for the 3 s window
    assert run["daemon_cpu_s"] > 0 and run["rss_mb"] > 10
    assert run["send_error_p99_ms"] is not None and run["daemon_bridge_ms_turns"] >= 1
    assert {p["policy"] for p in latest["policy"]} >= {"operator"}
    out = capsys.readouterr().out
    assert "cpu s/call-min" in out and "policy" in out
