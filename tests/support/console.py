"""Run `ai-operator call --json` as a user does: a script of caller lines in, one JSON object per turn out."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_ENV = REPO / "etc" / "ai-operator.env.example"


def console_turns(tmp_path: Path, route: str, lines: list[str], *extra: str) -> list[dict]:
    """The turns of one console call of `route` (greeting first), without a knowledge base."""
    script = tmp_path / "script.txt"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "ai_operator", "call", "--route", route, "--env", str(EXAMPLE_ENV),
           "--script", str(script), "--json", "--no-knowledge", *extra]
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=REPO,
                         env={**os.environ, "LOG_FORMAT": "json"})
    assert res.returncode == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]
