"""The README's benchmark figures are generated from a report committed under benchmarks/reports/."""

from __future__ import annotations

import copy
import json
from pathlib import Path

from benchmarks.readme_table import README, REPO, readme_block, render


def test_the_readme_block_is_what_its_committed_report_renders() -> None:
    source, block = readme_block(README.read_text())
    path = REPO / source
    assert source.startswith("benchmarks/reports/") and path.is_file(), source
    report = json.loads(path.read_text())
    assert report["command"].startswith("python -m benchmarks.run") and report["machine"]["cpus"] >= 1
    assert len(report["load_average"]["start"]) == 3 and report["media"], "a report without provenance or runs"
    assert render(report, source) == block, "README.md is stale: python -m benchmarks.readme_table --write"


def test_the_block_follows_the_report(tmp_path: Path) -> None:
    source, _ = readme_block(README.read_text())
    report = json.loads((REPO / source).read_text())
    changed = copy.deepcopy(report)
    run = changed["media"][0]
    run["figures"]["audio"]["lost_frames"] = 1234567
    run["budgets"]["lost_frames"]["verdict"] = "FAIL"
    text = render(changed, source)
    assert text != render(report, source)
    row = next(line for line in text.splitlines() if line.startswith(f"| {run['calls']} |"))
    assert "| 1234567 |" in row and "lost_frames" in row.rsplit("|", 2)[-2]
