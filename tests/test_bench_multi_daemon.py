"""`python -m benchmarks.run --daemons 1,2`: the node split over K daemons (own ARI app, RTP range, metrics port
and STATE_DIR each, one shared PostgreSQL), calls spread round-robin, CPU kept per daemon and summed."""

from __future__ import annotations

import contextlib
import itertools
import json
import os
from pathlib import Path

import pytest

from benchmarks.analysis import BUDGETS
from benchmarks.multi_daemon import comparison, merged_figures, pinning, render, rtp_ranges
from benchmarks.run import daemon_counts, main


@pytest.mark.slow
def test_k_daemons_share_the_calls_and_one_database(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    argv = ["--quick", "--n", "4", "--window", "12", "--only", "media", "--daemons", "1,2", "--reports", str(tmp_path)]
    assert main(argv) == 0
    report = json.loads((tmp_path / "latest.json").read_text())
    one, two = report["media"]
    assert (one["daemons"]["k"], two["daemons"]["k"]) == (1, 2)
    assert set(report["budgets"]) == {f"n4.k{k}.{b}" for k in (1, 2) for b in BUDGETS}
    rows = two["daemons"]["per_daemon"]
    assert [r["app"] for r in rows] == ["ai-operator-1", "ai-operator-2"]
    assert all(r["cpu_s"] > 0 and r["share_of_rtp_out"] > 0 for r in rows), rows  # both daemons carried calls
    assert two["cpu"]["daemon_s"] == pytest.approx(sum(r["cpu_s"] for r in rows), abs=0.02)
    assert two["cpu"]["db_measured"] and two["cpu"]["s_per_call_minute"] > 0
    for run in (one, two):  # every answered call recorded in the one database, wherever it was answered
        records = run["records"]
        assert records["calls_answered"] >= 4 and records["calls_recorded"] == records["calls_answered"]
        assert run["callers"]["capture_drops"] == 0
    cpus = len(os.sched_getaffinity(0))
    assert two["daemons"]["pinned"] is (cpus >= 3) and one["daemons"]["pinned"] is (cpus >= 2)
    out = capsys.readouterr().out
    assert "N=4 K=2" in out and "x the CPU per call-minute of K=1" in out


def test_rtp_ranges_are_disjoint_and_in_range() -> None:
    ranges = rtp_ranges(3, 1600)
    assert all(lo <= hi <= 65535 and hi - lo + 1 == 1600 for lo, hi in ranges)
    assert all(a[1] < b[0] for a, b in itertools.pairwise(ranges))


def test_pinning_needs_a_cpu_per_daemon_and_one_for_the_callers() -> None:
    cpus = sorted(os.sched_getaffinity(0))
    pins = pinning(len(cpus))  # as many daemons as CPUs: no CPU left for the callers
    assert pins == {"daemons": [[] for _ in cpus], "callers": [], "pinned": False}
    assert pinning(1, pin=False)["pinned"] is False
    if len(cpus) >= 2:
        assert pinning(1) == {"daemons": [cpus[:1]], "callers": cpus[1:], "pinned": True}


def test_the_daemons_figures_merge() -> None:
    own = [{"counters": {"sent": 10, "received": 7}, "peak_calls": 3, "bridge_ms": [1.0, 2.0],
            "send_error_last_frame_ms": {"p99_ms": 0.5}, "stall": None, "gc": {"gen2": {}}},
           {"counters": {"sent": 5, "received": 1}, "peak_calls": 2, "bridge_ms": [3.0],
            "send_error_last_frame_ms": {"p99_ms": 0.9}, "stall": {"ms": 150}, "gc": None}]
    merged = merged_figures(own)
    assert merged["counters"] == {"sent": 15, "received": 8} and merged["peak_calls"] == 5
    assert merged["bridge_ms"] == [1.0, 2.0, 3.0] and merged["send_error_last_frame_ms"] == {"p99_ms": 0.9}
    assert merged["stall"] == {"ms": 150}


def _run(n: int, k: int, cost: float, pinned: bool) -> dict:
    return {"calls": n, "verdict": "FAIL", "cpu": {"s_per_call_minute": cost},
            "daemons": {"k": k, "pinned": pinned, "sum_cores": 0.5, "s_per_call_minute": cost,
                        "per_daemon": [{"app": f"ai-operator-{i}", "cores": 0.5 / k, "runqueue_wait_pct": 1.0,
                                        "share_of_rtp_out": 1 / k} for i in range(1, k + 1)]}}


def test_k_is_compared_with_one_daemon_at_the_same_n() -> None:
    runs = [_run(200, 1, 0.25, True), _run(200, 2, 0.30, False), _run(400, 2, 0.3, False)]
    assert comparison(runs) == [{"n": 200, "k": 2, "s_per_call_minute_k1": 0.25, "s_per_call_minute": 0.30,
                                 "ratio": 1.2, "pinned_k1": True, "pinned": False}]  # N=400 has no K=1 run
    assert render(runs)[-1] == ("N=200: K=2 costs 1.2 x the CPU per call-minute of K=1 (0.3 vs 0.25; K=1 pinned, "
                                "K=2 not pinned)")


def test_daemon_counts_are_checked() -> None:
    assert daemon_counts("1,2") == (1, 2) and daemon_counts(None) == ()
    for bad in ("0", "two", "1,,2", "9"):
        with pytest.raises(SystemExit, match="--daemons"):
            daemon_counts(bad)


def test_readme_k_daemon_figures_come_from_the_committed_report() -> None:
    from benchmarks.multi_readme import BLOCK, README, REPO, render

    found = BLOCK.search(README.read_text())
    assert found is not None, "README.md has no multi-daemon block"
    report = json.loads((REPO / found.group("source")).read_text())
    assert found.group(0) == render(report, found.group("source")), "run python -m benchmarks.multi_readme --write"
    assert [r["daemons"]["k"] for r in report["media"] if r.get("daemons")]  # a --daemons report


def test_metrics_ports_are_distinct_and_free_for_tcp() -> None:
    """A daemon's metrics port is a TCP listener: the numbers are free for TCP (a UDP check says nothing of a
    TCP port in use) and no two daemons get the same one."""
    import socket

    from tests.support.ports import free_tcp_ports

    ports = free_tcp_ports(4)
    assert len(set(ports)) == 4
    with contextlib.ExitStack() as stack:
        for port in ports:
            sock = stack.enter_context(socket.socket(socket.AF_INET, socket.SOCK_STREAM))
            sock.bind(("127.0.0.1", port))
            sock.listen()


def test_a_daemon_that_exits_at_start_is_named_with_its_last_log_line(tmp_path: Path) -> None:
    from benchmarks.multi_daemon import last_line

    log = tmp_path / "daemon.log"
    log.write_text('{"event": "starting"}\nTraceback (most recent call last):\n  File "x"\n'
                   "OSError: [Errno 98] address already in use\n\n")
    assert last_line(log) == "OSError: [Errno 98] address already in use"
    assert last_line(tmp_path / "missing.log") == "(unreadable)"
