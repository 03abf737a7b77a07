"""The stops file of a dispatch call: JSON Lines, one stop per line, read and checked with one-line errors."""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path

FIELDS = ("driver", "address", "time")
MAX_STOPS = 50
MAX_CHARS = 80


@dataclass(frozen=True)
class Stop:
    driver: str
    address: str
    time: str


def read_stops(path: Path) -> tuple[Stop, ...]:
    """Every stop of `path`; ValueError naming the file, the line, the field, the value and what is allowed."""
    try:
        lines = path.read_text(encoding="utf-8-sig").splitlines()
    except FileNotFoundError:
        raise ValueError(f"{path}: stops file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ValueError(f"{path}: cannot read the stops file ({exc})") from None
    stops: list[Stop] = []
    for number, line in enumerate(lines, 1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: invalid JSON ({exc.msg}, column {exc.colno}); expected one object "
                             f"per line with {', '.join(FIELDS)}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{path}:{number}: expected a JSON object with {', '.join(FIELDS)}, got {line[:40]!r}")
        values = {}
        for name in FIELDS:
            value = data.get(name)
            if not isinstance(value, str) or not value.strip() or len(value) > MAX_CHARS:
                raise ValueError(f"{path}:{number}: field {name!r} is {str(value)[:40]!r}; expected text of 1 to "
                                 f"{MAX_CHARS} characters")
            values[name] = value.strip()
        stops.append(Stop(**values))
    if not stops or len(stops) > MAX_STOPS:
        raise ValueError(f"{path}: {len(stops)} stops; 1 to {MAX_STOPS} allowed")
    return tuple(stops)
