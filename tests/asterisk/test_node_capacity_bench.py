"""The node benchmark (`benchmarks/node_capacity.py`) end to end, small: a real Asterisk node with two daemons
behind the dialplan split, two SIP callers (sipp) speaking the scripted dialogue, judged at the callers.

One run of N=2 with the lateness budget set impossibly tight (`--limit lateness_own_late_pct=0`: a share is
never below zero), so that budget must FAIL whatever a shared box makes of the others (the run is FAIL, or INVALID when the
box starved the load generator itself): the bench's budgets can fail, and everything the report holds (calls recorded, replies judged, CPU per part) was measured for real.
About 70 s on a busy 2-core box (start-up of Asterisk, the database and two daemons is most of it).
"""

from __future__ import annotations

import json
from pathlib import Path

from benchmarks.knee_search import FAIL, INVALID
from benchmarks.node_capacity import main
from benchmarks.node_readme import render


def test_the_node_bench_calls_a_real_node_and_its_budgets_can_fail(asterisk_ready: None, tmp_path: Path) -> None:
    argv = ["--knee", "2:2:2", "--resolution", "2", "--repeats", "1", "--window", "20", "--warmup", "10",
            "--stagger", "2", "--limit", "lateness_own_late_pct=0", "--reports", str(tmp_path)]
    assert main(argv) == 0
    (path,) = tmp_path.glob("node-capacity-*.json")
    report = json.loads(path.read_text())
    (run,) = report["knee"]["searches"][0]["runs"]
    # FAIL, or INVALID when a busy box made the load generator itself fall behind: never clean either way
    assert run["calls"] == 2 and run["outcome"] in (FAIL, INVALID) and "lateness_own_late_pct" in run["failed"]
    own_late = run["budgets"]["lateness_own_late_pct"]
    assert own_late == {**own_late, "limit": 0, "verdict": FAIL}
    # the reference call went through the node and was captured at its caller for the window
    assert run["baseline"]["ran_window"] and run["baseline"]["packets"] >= 0.9 * run["baseline"]["expected"]
    assert run["baseline"]["at_source"]["packets"] > 0 and own_late["value"] is not None
    assert "inbound_processed_pct" in run["not_judged"] and run["valid"]["ok"] == (run["outcome"] == FAIL)
    # the calls went through the split to the daemons (a daemon whose loop lags on a loaded box may refuse one:
    # its sibling takes it), were recorded, and what the callers heard was judged
    assert run["records"]["calls_answered"] >= 1 and run["records"]["calls_recorded"] == run["records"]["calls_answered"]
    assert sum(d["peak_calls"] for d in run["daemons"]["per_daemon"]) >= 1
    assert run["figures"]["audio"]["replies_judged"] >= 1 and run["figures"]["audio"]["packets_judged"] > 0
    node = run["node"]
    assert node["asterisk_cores"] > 0 and node["daemons_cores"] > 0 and node["load_generator_cores"] > 0
    assert report["knee"]["summary"]["knee"] is None  # no clean N: nothing per node follows
    assert f"| 1 | 2 | {run['outcome']} |" in render(report, "r.json")
