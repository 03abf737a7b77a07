"""The node benchmark's pure parts (`benchmarks/node_capacity.py`, `node_callers.py`, `node_readme.py`): the
talkspurt marks Asterisk does not send, the budgets it judges (and the one it cannot), CPU per part, the
summary per node and per core, the callers' sipp scenario and the README block. The whole bench against a real
node runs in tests/asterisk/test_node_capacity_bench.py."""

from __future__ import annotations

import json
import re
from typing import Any

import numpy as np
import pytest

from benchmarks.capture import parse_packets, record
from benchmarks.knee_search import FAIL, PASS, Ladder
from benchmarks.node_callers import caller_number, scenario
from benchmarks.node_capacity import NOT_JUDGED, mark_talkspurts, node_figures, parse_limits, rejudge, summary
from benchmarks.node_readme import BLOCK, README, REPO, render, summary_lines

MS = 1_000_000


def rtp(seq: int, ts: int, marker: bool = False) -> bytes:
    return bytes([0x80, (0x80 if marker else 0) | 0]) + seq.to_bytes(2, "big") + ts.to_bytes(4, "big") + b"\0" * 164


def test_talkspurts_are_marked_where_the_audio_resumes_after_a_pause() -> None:
    arrivals = [0, 20, 40, 60, 260, 280, 300, 560]  # ms: a 200 ms gap is not a new talkspurt, 201+ is
    arrivals[4] += 1
    blob = b"".join(record(at * MS, rtp(i, i * 160, marker=i == 2)) for i, at in enumerate(arrivals))
    marked = parse_packets(mark_talkspurts(blob))
    assert list(np.flatnonzero(marked["b1"] & 0x80)) == [0, 4, 7]  # a stray marker of the PBX's is dropped
    assert list(marked["seq"]) == list(range(8)) and list(marked["b1"] & 0x7F) == [0] * 8
    assert mark_talkspurts(b"") == b""


def figures(lateness_p99: float = 3.0, bridge_p95: float | None = 40.0, over_5ms: int = 0) -> dict[str, Any]:
    return {"audio": {"lost_frames": 0, "lateness_ms": {"p99": lateness_p99, "over_5ms": over_5ms},
                      "jitter_ms": {"max": 2.0}, "packets_judged": 1000},
            "turns": {"bridge_ms": {"p95": bridge_p95}, "unanswered": 0, "unanswered_greetings": 0},
            "inbound": {"processed_pct": 91.0}, "calls": {"mean_concurrent": 20.0}}


REFERENCE_RAN = {"ran_window": True, "late_pct": 0.5, "jitter_max_ms": 1.0, "packets": 740, "expected": 746}


def test_the_caller_side_budgets_are_judged_and_inbound_is_only_reported() -> None:
    entry: dict[str, Any] = {"figures": figures(), "valid": {"ok": True, "problems": []}}
    rejudge(entry, {}, REFERENCE_RAN)
    assert entry["verdict"] == PASS and set(entry["budgets"]) == {
        "lost_frames", "lateness_own_late_pct", "jitter_own_max_ms", "turn_bridge_p95_ms", "unanswered_turns"}
    assert entry["not_judged"]["inbound_processed_pct"]["value"] == 91.0 and set(entry["not_judged"]) == set(NOT_JUDGED)
    rejudge(entry, {"lateness_own_late_pct": 0.0}, REFERENCE_RAN)  # the smoke test's impossible budget
    assert entry["verdict"] == FAIL and entry["budgets"]["lateness_own_late_pct"]["limit"] == 0.0
    entry = {"figures": figures(bridge_p95=None), "valid": {"ok": True, "problems": []}}  # no turn judged
    rejudge(entry, {}, REFERENCE_RAN)
    assert entry["verdict"] == FAIL and entry["budgets"]["turn_bridge_p95_ms"]["verdict"] == FAIL


@pytest.mark.parametrize(("items", "message"), [
    (["lateness_own_late_pct=x"], "NAME=NUMBER"), (["inbound_processed_pct=50"], "not a judged budget"),
    (["lateness_p99_ms=0"], "not a judged budget"),  # judged net of the reference now
    (["latency=1"], "choose from lost_frames, lateness_own_late_pct, jitter_own_max_ms"),
])
def test_bad_limits_are_named(items: list[str], message: str) -> None:
    with pytest.raises(SystemExit, match=message):
        parse_limits(items)
    assert parse_limits(["jitter_own_max_ms=2.5"]) == {"jitter_own_max_ms": 2.5}


def test_cpu_per_part_takes_asterisk_out_of_the_other_processes() -> None:
    entry = {"cpu": {"daemon_cores": 0.6, "db_cores": 0.1, "callers_cores": 0.5}, "figures": figures(),
             "contention": {"other_processes_cores": 0.9}, "load_average": {"window_start": [3.5, 2.0, 1.0]}}
    node = node_figures({"t": 0.0, "asterisk": 10.0, "callers_own": 1.0}, {"t": 10.0, "asterisk": 13.0,
                                                                           "callers_own": 3.0}, entry)
    assert node["sipp_cores"] == 0.3  # the load generator's 0.5 cores less its own process's 0.2
    assert node["asterisk_cores"] == 0.3 and node["node_cores"] == 1.0 and node["calls_per_busy_core"] == 20.0
    assert node["node_s_per_call_minute"] == 3.0 and node["load_generator_cores"] == 0.5
    assert entry["contention"]["other_processes_cores"] == 0.6 and node["load_at_window"] == 3.5


def search(index: int, outcomes: dict[int, str], knee: int | None, first: int | None) -> dict[str, Any]:
    runs = [{"calls": n, "outcome": o, "valid": {"ok": True}, "figures": {"calls": {"mean_concurrent": n}},
             "node": {"node_cores": n / 40, "asterisk_cores": 0.1, "daemons_cores": 0.3, "db_cores": 0.05,
                      "calls_per_busy_core": 40.0, "load_generator_cores": n / 80}} for n, o in outcomes.items()]
    return {"search": index, "order": list(outcomes), "runs": runs, "knee": knee, "first_unclean": first,
            "limit_reached": first is not None}


def test_the_summary_says_calls_per_node_and_per_core() -> None:
    searches = [search(1, {20: PASS, 40: PASS, 60: FAIL, 50: FAIL}, 40, 50),
                search(2, {20: PASS, 40: PASS, 60: FAIL, 50: PASS}, 50, 60)]
    s = summary(searches, Ladder(20, 100, 20, 10), 20, 2)
    assert (s["knee"], s["calls_per_node"], s["calls_per_cpu"], s["reproducible"]) == (40, 40, 20.0, True)
    assert s["recommended_per_node"] == 30 and s["recommended_max_calls_per_daemon"] == 15
    assert s["at_knee"]["node_cores"] == 1.0
    assert s["cpu_bound"] == {"from_n": 60, "mean_concurrent": 60, "node_cores_per_call": 0.025,
                              "calls_per_node": 80, "calls_per_node_with_load_generator": 53}
    lines = summary_lines({"searches": searches, "summary": s, "daemons": 2, "cpus": 2})
    assert "0.025 node cores per call" in lines[2] and "would allow 80 calls on 2 CPUs (53 with" in lines[2]
    assert "The knee: 40 calls per node (2 daemons beside Asterisk on 2 CPUs), 20.0 per CPU" in lines[3]
    assert "`MAX_CALLS=15` on each of its daemons" in lines[4] and "40.0 calls per busy core" in lines[5]
    none = summary([search(1, {20: FAIL}, None, 20)], Ladder(20, 100, 20, 10), 20, 2)
    assert none["calls_per_node"] is None and none["recommended_max_calls_per_daemon"] is None
    assert none["cpu_bound"]["from_n"] == 20  # a failed run still says what a call costs


def test_the_callers_scenario_takes_each_calls_values_from_sipp_keys() -> None:
    text = scenario(300.0)
    assert "[rtp_port]" in text and "[caller_number]" in text and "[caller_name]" in text
    assert not re.findall(r"@[A-Z_]+@", text) and "[authentication]" not in text and 'timeout="300000"' in text
    assert caller_number(7) == "77010000007" and len({caller_number(i) for i in range(1000)}) == 1000


def test_readme_node_figures_come_from_the_committed_report() -> None:
    found = BLOCK.search(README.read_text(encoding="utf-8"))
    assert found is not None, "README.md has no node-capacity block"
    report = json.loads((REPO / found.group("source")).read_text(encoding="utf-8"))
    assert found.group(0) == render(report, found.group("source")), "run python -m benchmarks.node_readme --write"
