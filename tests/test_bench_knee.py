"""The capacity knee search (benchmarks/knee_search.py, knee.py, knee_readme.py) over synthetic pass/fail results:
which N it runs, the knee it finds, the MAX_CALLS it recommends, and the README block and sizing it generates."""

from __future__ import annotations

import asyncio
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ai_operator.ops.sizing import MEASURED, Measured, recommended_max_calls, sizing_check
from benchmarks import knee as knee_mod
from benchmarks.knee_readme import BLOCK, FILES, qualifies, render, sized
from benchmarks.knee_search import (
    FAIL,
    INVALID,
    PASS,
    Ladder,
    knee_of,
    next_size,
    outcome,
    summarise,
    verdict,
)

LADDER = Ladder.parse("200:800:100")


def _search(ladder: Ladder, clean_up_to: int, invalid_at: frozenset[int] = frozenset()) -> dict[int, str]:
    """A daemon clean up to `clean_up_to` calls, searched; the outcome of every N run, in the order run."""
    tried: dict[int, str] = {}
    while (n := next_size(ladder, tried)) is not None:
        assert n not in tried, f"N={n} run twice"
        tried[n] = INVALID if n in invalid_at else (PASS if n <= clean_up_to else FAIL)
    return tried


def test_a_ladder_is_parsed_with_half_a_step_as_its_resolution_and_bad_input_is_named():
    assert Ladder(200, 800, 100, 50) == LADDER
    assert Ladder.parse("2:6:2", 1) == Ladder(2, 6, 2, 1)
    for bad in ("200:800", "800:200:100", "a:b:c", "200:800:0"):
        with pytest.raises(ValueError, match="START:STOP:STEP"):
            Ladder.parse(bad)
    with pytest.raises(ValueError, match="--resolution 150"):
        Ladder.parse("200:800:100", 150)


@pytest.mark.parametrize(("clean_up_to", "order", "knee", "first_unclean"), [
    (430, [200, 300, 400, 500, 450], 400, 450),  # climbs until a budget fails, then bisects to 50
    (470, [200, 300, 400, 500, 450], 450, 500),
    (399, [200, 300, 400, 350], 350, 400),
    (120, [200, 100, 150], 100, 150),  # the first rung already fails: it bisects below it
    (10, [200, 100, 50], None, 50),  # nothing ran clean down to the resolution: no knee
])
def test_the_search_climbs_until_a_budget_fails_then_bisects(clean_up_to, order, knee, first_unclean):
    tried = _search(LADDER, clean_up_to)
    assert list(tried) == order
    assert knee_of(tried) == {"knee": knee, "first_unclean": first_unclean, "limit_reached": True}


def test_a_search_still_clean_at_the_ladder_top_says_so():
    tried = _search(LADDER, 10_000)
    assert list(tried) == [200, 300, 400, 500, 600, 700, 800]
    assert knee_of(tried) == {"knee": 800, "first_unclean": None, "limit_reached": False}


def test_a_run_that_cannot_judge_the_daemon_is_not_clean():
    tried = _search(LADDER, 10_000, invalid_at=frozenset({400}))
    assert knee_of(tried)["knee"] == 350 and tried[400] == INVALID


def test_a_clean_run_above_the_first_unclean_one_is_not_the_knee():
    assert knee_of({200: PASS, 300: FAIL, 400: PASS, 250: FAIL})["knee"] == 200
    assert next_size(LADDER, {200: PASS, 300: FAIL, 400: PASS, 250: FAIL}) is None


def _run(calls: int, verdict_: str = "PASS", *, valid: bool = True, max_calls: int | None = None,
         window_s: float = 120.0, cpu: float = 0.09) -> dict[str, Any]:
    failed = {} if verdict_ == "PASS" else {"lateness_p99_ms": {"value": 7.5, "verdict": "FAIL"}}
    return {"calls": calls, "max_calls": max_calls, "verdict": verdict_, "window_s": window_s,
            "valid": {"ok": valid, "problems": [] if valid else ["the callers' 20 ms ticks were 30 ms late (p99)"]},
            "budgets": {"lost_frames": {"value": 0, "verdict": "PASS"}, **failed},
            "cpu": {"s_per_call_minute": cpu, "daemon_cores": calls * cpu / 60},
            "figures": {"calls": {"mean_concurrent": calls - 2}, "audio": {"lost_frames": 0}}}


def test_outcome_of_a_run():
    assert outcome(_run(400)) == PASS
    assert outcome(_run(400, "FAIL")) == FAIL
    assert outcome(_run(400, valid=False)) == INVALID
    assert outcome(_run(700, max_calls=400)) == FAIL  # an overload run is never clean at N
    assert outcome(_run(400, max_calls=400)) == PASS


def test_two_searches_give_the_smaller_knee_and_say_whether_it_reproduced():
    a, b = knee_of(_search(LADDER, 430)), knee_of(_search(LADDER, 470))
    s = summarise([a, b], LADDER, margin_pct=20)
    assert (s["knees"], s["knee"], s["spread"], s["reproducible"]) == ([400, 450], 400, 50, True)
    assert s["recommended_max_calls"] == 320 and verdict(s)["verdict"] == PASS
    far = summarise([a, knee_of(_search(LADDER, 650))], LADDER)
    assert far["knee"] == 400 and not far["reproducible"] and verdict(far)["verdict"] == FAIL
    none = summarise([a, knee_of(_search(LADDER, 10))], LADDER)
    assert none["knee"] is None and none["recommended_max_calls"] is None and verdict(none)["verdict"] == FAIL


@pytest.mark.parametrize(("knee", "margin", "want"), [(400, 20, 320), (450, 20, 360), (455, 10, 400),
                                                      (400, 0, 400), (8, 20, 6), (1, 50, 1)])
def test_the_recommendation_is_the_knee_less_the_margin_rounded_down_to_ten(knee, margin, want):
    assert recommended_max_calls(knee, margin) == want


@dataclass(frozen=True)
class _Stage:
    workdir: Path


def test_the_bench_mode_runs_each_search_through_the_media_bench_and_reports_every_run(tmp_path, monkeypatch):
    ran: list[tuple[str, int]] = []

    async def synthetic_media(n: int, stage: _Stage, options: Any) -> dict[str, Any]:
        ran.append((stage.workdir.name, n))
        clean_up_to = 430 if stage.workdir.name == "search-1" else 470  # the box differs a little between searches
        return _run(n, "PASS" if n <= clean_up_to else "FAIL")

    import benchmarks.media_bench

    monkeypatch.setattr(benchmarks.media_bench, "run_media", synthetic_media)
    options = type("Options", (), {"window_s": 120.0, "pin": False})()
    section = asyncio.run(knee_mod.run_knee(LADDER, 2, 20, _Stage(tmp_path), options, cpus=4))
    assert ran == [("search-1", n) for n in (200, 300, 400, 500, 450)] + \
        [("search-2", n) for n in (200, 300, 400, 500, 450)]
    assert [s["knee"] for s in section["searches"]] == [400, 450]
    assert section["searches"][0]["runs"][-1]["outcome"] == FAIL
    assert section["searches"][0]["runs"][-1]["failed"] == ["lateness_p99_ms"]
    assert section["summary"]["knee"] == 400 and section["summary"]["recommended_max_calls"] == 320
    assert section["per_node"] == {"cpus": 4, "daemons": 3, "calls_per_node": 960, "calls_per_cpu": 240.0}
    lines = knee_mod.summary_lines(section)
    assert "Search 1 ran N = 200, 300, 400, 500, 450: knee 400, first unclean N = 450" in lines
    assert "Recommended MAX_CALLS = 400 less a 20 % margin = 320." in lines


def _report(clean: tuple[int, ...] = (430, 470), *, quick: bool = False, pinned: bool = False,
            window_s: float = 120.0) -> dict[str, Any]:
    searches = []
    for i, c in enumerate(clean, 1):
        tried = _search(LADDER, c)
        runs = [{**_run(n, "PASS" if o == PASS else "FAIL", window_s=5.0 if quick else window_s), "outcome": o,
                 "failed": [] if o == PASS else ["lateness_p99_ms"]} for n, o in tried.items()]
        searches.append({"search": i, "order": list(tried), "runs": runs, **knee_of(tried)})
    summary = summarise(searches, LADDER, 20)
    return {"command": "python -m benchmarks.run --knee 200:800:100 --only media", "quick": quick,
            "git": {"commit": "0123456789abcdef", "dirty": False}, "started_at": "2026-12-03T05:00:00+00:00",
            "machine": {"cpus": 2, "cpu_model": "Test CPU"}, "load_average": {"start": [0.1, 0.2, 0.3]},
            "knee": {"ladder": {}, "repeats": len(clean), "pinned": pinned, "searches": searches, "summary": summary,
                     "per_node": knee_mod.per_node(summary, 2, 1)}}


def test_only_a_full_unpinned_reproduced_search_may_size_max_calls():
    assert qualifies(_report()) == []
    assert any("short" in w for w in qualifies(_report(quick=True)))
    assert qualifies(_report(window_s=59.98)) == []  # a 60 s window as measured (the samples that fell in it)
    assert any("short" in w for w in qualifies(_report(window_s=45.0)))
    assert any("pinned" in w for w in qualifies(_report(pinned=True)))
    assert any("disagree" in w for w in qualifies(_report((430, 650))))
    assert any("no clean N" in w for w in qualifies(_report((430, 10))))
    assert any("searched once" in w for w in qualifies(_report((430,))))


def _texts() -> dict[str, str]:
    return {k: p.read_text(encoding="utf-8") for k, p in FILES.items()}


def test_a_qualifying_report_writes_the_readme_block_max_calls_and_doctors_knee():
    texts = _texts()
    new = sized(texts, _report(), "benchmarks/reports/knee-test.json")
    block = BLOCK.search(new["readme"])
    assert block and block.group("source") == "benchmarks/reports/knee-test.json"
    assert "| 1 | 450 | FAIL |" in block.group(0) and "This report sizes `MAX_CALLS`" in block.group(0)
    assert "MAX_CALLS=320" in new["env"].splitlines()
    assert 'setting("MAX_CALLS", 320,' in new["schema"]
    namespace: dict[str, Any] = {"Measured": Measured}
    exec(new["sizing"].split("# measured: generated by", 1)[1].split("\n", 1)[1].split("# measured end")[0], namespace)
    measured = namespace["MEASURED"]
    assert (measured.clean_calls, measured.recommended, measured.report) == (400, 320, "benchmarks/reports/knee-test.json")
    assert measured.shape == "unpinned, searched 2 times: knees 400 and 450"
    assert sizing_check(320, 2, measured).status == "OK"
    warn = sizing_check(400, 2, measured)  # at the knee but inside the margin
    assert warn.status == "WARN" and "set MAX_CALLS<=320" in warn.detail
    above = sizing_check(401, 2, measured)
    assert above.status == "WARN" and "MAX_CALLS=401 is past the measured knee" in above.detail
    assert "unpinned, searched 2 times" in above.detail


def test_a_report_that_does_not_qualify_renders_its_block_and_leaves_max_calls_alone():
    texts = _texts()
    new = sized(texts, _report(quick=True), "benchmarks/reports/knee-quick.json")
    assert new["env"] == texts["env"] and new["schema"] == texts["schema"] and new["sizing"] == texts["sizing"]
    assert "This report does NOT size `MAX_CALLS`: its windows are short" in new["readme"]


def test_the_readme_knee_block_is_what_its_committed_report_renders_and_max_calls_follows_it():
    texts = _texts()
    found = BLOCK.search(texts["readme"])
    assert found, "README.md has no knee block"
    source = found.group("source")
    report = json.loads((FILES["readme"].parent / source).read_text(encoding="utf-8"))
    assert render(report, source) == found.group(0), "run python -m benchmarks.knee_readme --write"
    assert sized(texts, report, source) == texts, "run python -m benchmarks.knee_readme --write"
    if not qualifies(report):
        assert MEASURED.report == source


@pytest.mark.parametrize(("argv", "message"), [
    (["--knee", "800:200:100"], "START:STOP:STEP"),
    (["--knee", "200:800:100", "--n", "200"], "leave out --n"),
    (["--knee", "200:800:100", "--margin", "100"], "margin of 0-99 %"),
])
def test_bad_knee_options_are_named_before_any_work(tmp_path, argv, message):
    from benchmarks.run import main

    with pytest.raises(SystemExit, match=message):
        main([*argv, "--only", "media", "--reports", str(tmp_path)])
    assert not list(tmp_path.iterdir())


@pytest.mark.slow
def test_the_knee_mode_runs_real_calls_and_writes_its_search_to_the_report(tmp_path):
    """One search of one rung, for real (daemon, callers, budgets judged at the callers): the report holds the run
    with its outcome and the search's verdict, whatever a shared box makes of the budgets."""
    from benchmarks.run import main

    argv = ["--quick", "--knee", "1:1:1", "--repeats", "1", "--window", "25", "--only", "media",
            "--reports", str(tmp_path)]
    assert main(argv) == 0
    report = json.loads((tmp_path / "latest.json").read_text())
    knee = report["knee"]
    assert knee["pinned"] is False and knee["repeats"] == 1 and len(knee["searches"]) == 1
    (run,) = knee["searches"][0]["runs"]
    assert run["calls"] == 1 and run["outcome"] in (PASS, FAIL, INVALID)
    assert run["pinning"] == {"daemon": [], "database": [], "callers": []}  # the deployed shape
    assert run["records"]["calls_answered"] >= 1 and run["figures"]["audio"]["replies_judged"] >= 1
    assert knee["summary"]["knees"] == [1 if run["outcome"] == PASS else None]
    assert report["budgets"]["knee.reproducible"]["verdict"] in (PASS, FAIL)
    assert any("searched once" in w for w in qualifies(report))
    assert render(report, "r.json").count("| 1 | 1 |") == 1
