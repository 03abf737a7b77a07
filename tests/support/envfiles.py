"""The example env file as a test writes it somewhere else: relative folders pointed back at the repository."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
EXAMPLE = REPO / "etc" / "ai-operator.env.example"


def example_text(**values: str) -> str:
    """The example's text with the freight route's LOADS_DIR made absolute and `values` replacing (or appended as)
    KEY=VALUE lines."""
    text = EXAMPLE.read_text()
    values = {"ROUTE_FREIGHT_LOADS_DIR": str(REPO / "etc" / "loads"), **values}
    for key, value in values.items():
        line = f"{key}={value}"
        text, n = re.subn(rf"^{re.escape(key)}=.*$", line.replace("\\", "\\\\"), text, flags=re.M)
        if n == 0:
            text += f"\n{line}\n"
    return text
