"""The load a freight call is about: `Load`, its validation, and the one function that reads a load JSON file.

Owns the load file format (vendor_name, origin, destination, vehicle, weight, material, pickup, anchor,
ceiling, optional concession_band), each field's bounds (length, range, printable text), and `LoadError`, whose
message always names the file, the field, the value (cut short) and what is allowed.
`load_from_mapping` is pure; `load_from_file` is the only I/O in the freight policy.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from policies.freight.figures import say_decimal, spell_digits

TEXT_FIELDS = ("vendor_name", "origin", "destination", "vehicle", "material", "pickup")
RATE_FIELDS = ("anchor", "ceiling")
REQUIRED_FIELDS = (*TEXT_FIELDS, "weight", *RATE_FIELDS)
DEFAULT_CONCESSION_BAND = (0.3, 0.6)
MIN_GAP = 2  # anchor and ceiling must leave room for one concession strictly between them
MAX_RATE = 99_99_99_999  # under a hundred crore: say_rate and hear_rate cover it
# Each text field is spoken on the call (the vendor's name in the greeting, the rest in the pitch): a bound a
# real entry never reaches, so a pasted document or a runaway value is refused when the file is read.
MAX_TEXT_CHARS = {"vendor_name": 60, "origin": 80, "destination": 80, "vehicle": 60, "material": 80, "pickup": 80,
                  "weight": 20}
MAX_WEIGHT_TONNES = 100.0  # a number alone in `weight` means tonnes; no road vehicle carries more
MAX_FILE_BYTES = 1024 * 1024  # a load is a few hundred bytes; a file this big is not even read
SHOWN_CHARS = 40  # how much of a refused value an error repeats


class LoadError(ValueError):
    """A load that cannot be used. `field` names the offending field ('' for the file itself)."""

    def __init__(self, source: str, field: str, reason: str) -> None:
        self.source, self.field, self.reason = source, field, reason
        where = f"{source}: " if source else ""
        super().__init__(f"{where}field {field!r}: {reason}" if field else f"{where}{reason}")


@dataclass(frozen=True)
class Load:
    """One load offered to one vendor. Rates are whole rupees; `ceiling` must never be spoken."""

    vendor_name: str
    origin: str
    destination: str
    vehicle: str
    weight: str  # as written in the file ("20 टन" or "20" meaning tonnes)
    material: str
    pickup: str
    anchor: int
    ceiling: int
    concession_band: tuple[float, float] = DEFAULT_CONCESSION_BAND
    source: str = ""

    def spoken(self) -> dict[str, str]:
        """Every text field in spoken form (digits as Hindi words), for canned lines and the model brief."""
        weight = self.weight.strip()
        try:
            weight = f"{say_decimal(float(weight))} टन"
        except ValueError:
            weight = spell_digits(weight)
        out = {name: spell_digits(getattr(self, name)).strip() for name in TEXT_FIELDS}
        out["weight"] = weight
        return out


def shown(value: object) -> str:
    """`value` as an error repeats it: repr, cut after SHOWN_CHARS characters (saying how long it was)."""
    text = str(value)
    if len(text) <= SHOWN_CHARS:
        return repr(value)
    return f"{text[:SHOWN_CHARS]!r}... ({len(text)} characters)"


def _text(name: str, raw: object, source: str) -> str:
    """A text field: a string (or number), non-empty, printable, within its bound."""
    if isinstance(raw, bool) or not isinstance(raw, str | int | float):
        raise LoadError(source, name, f"expected text, got {type(raw).__name__}")
    text = str(raw).strip()
    if not text:
        raise LoadError(source, name, "empty")
    limit = MAX_TEXT_CHARS[name]
    if len(text) > limit:
        raise LoadError(source, name, f"{shown(text)} is {len(text)} characters; at most {limit} allowed")
    if not text.isprintable():
        bad = next(ch for ch in text if not ch.isprintable())
        raise LoadError(source, name, f"{shown(text)} contains the control character U+{ord(bad):04X}; "
                                      "only printable text is allowed")
    if name == "weight":
        _weight(text, source)
    return text


def _weight(text: str, source: str) -> None:
    """A weight given as a number alone is tonnes: finite, above 0, at most MAX_WEIGHT_TONNES."""
    try:
        tonnes = float(text)
    except ValueError:
        return  # free text such as "20 टन": spoken as written
    if not math.isfinite(tonnes) or not 0 < tonnes <= MAX_WEIGHT_TONNES:
        raise LoadError(source, "weight", f"{shown(text)}: a number alone means tonnes, allowed above 0 and at most "
                                          f"{MAX_WEIGHT_TONNES:g}")


def _rate(data: Mapping[str, Any], name: str, source: str) -> int:
    raw = data[name]
    if isinstance(raw, bool):
        raise LoadError(source, name, f"expected a number of rupees, got {raw!r}")
    if isinstance(raw, str):
        cleaned = raw.replace(",", "").replace("₹", "").strip()
        if not cleaned.isdigit():
            raise LoadError(source, name, f"expected a number of rupees, got {shown(raw)}")
        if len(cleaned) > len(str(MAX_RATE)):
            raise LoadError(source, name, f"must be between 1 and {MAX_RATE} rupees, got {shown(raw)}")
        value: float = int(cleaned)
    elif isinstance(raw, int | float):
        value = raw
    else:
        raise LoadError(source, name, f"expected a number of rupees, got {type(raw).__name__}")
    if isinstance(value, float) and (not math.isfinite(value) or value != int(value)):
        raise LoadError(source, name, f"expected whole rupees, got {raw!r}")
    value = int(value)
    if not 0 < value <= MAX_RATE:
        raise LoadError(source, name, f"must be between 1 and {MAX_RATE} rupees, got {value}")
    return value


def _band(raw: Any, source: str) -> tuple[float, float]:
    field = "concession_band"
    if not isinstance(raw, list | tuple) or len(raw) != 2:
        raise LoadError(source, field, f"expected two fractions like [0.3, 0.6], got {raw!r}")
    lo, hi = raw
    for v in (lo, hi):
        if isinstance(v, bool) or not isinstance(v, int | float) or not math.isfinite(v):
            raise LoadError(source, field, f"expected numbers, got {raw!r}")
    if not 0 < lo <= hi < 1:
        raise LoadError(
            source, field, f"need 0 < low <= high < 1 (fractions of the anchor-to-ceiling gap), got {raw!r}"
        )
    return float(lo), float(hi)


def load_from_mapping(data: Any, source: str = "") -> Load:
    """Validate a decoded load; raises `LoadError` naming the first bad field."""
    if not isinstance(data, Mapping):
        raise LoadError(source, "", f"expected a JSON object, got {type(data).__name__}")
    for name in REQUIRED_FIELDS:
        if name not in data or data[name] is None:
            raise LoadError(source, name, "missing")
    texts = {name: _text(name, data[name], source) for name in (*TEXT_FIELDS, "weight")}
    anchor = _rate(data, "anchor", source)
    ceiling = _rate(data, "ceiling", source)
    if anchor >= ceiling:
        raise LoadError(source, "anchor", f"anchor ({anchor}) must be below ceiling ({ceiling})")
    if ceiling - anchor < MIN_GAP:
        raise LoadError(source, "ceiling", f"must be at least {MIN_GAP} rupees above the anchor")
    band = (
        _band(data["concession_band"], source)
        if data.get("concession_band") is not None
        else DEFAULT_CONCESSION_BAND
    )
    unknown = sorted(
        set(data) - {*REQUIRED_FIELDS, "concession_band"} - {k for k in data if str(k).startswith("_")}
    )
    if unknown:
        raise LoadError(source, str(unknown[0])[:SHOWN_CHARS],
                        "unknown field (typo?); comments go in keys starting with '_'")
    return Load(anchor=anchor, ceiling=ceiling, concession_band=band, source=source, **texts)


def load_from_file(path: str | Path) -> Load:
    """Read and validate a load JSON file. Raises `LoadError` naming the file and the field (or JSON line)."""
    source = str(path)
    try:
        size = Path(path).stat().st_size
        if size > MAX_FILE_BYTES:
            raise LoadError(source, "", f"load file of {size} bytes; at most {MAX_FILE_BYTES} allowed (one load, "
                                        "a few hundred bytes)")
        text = Path(path).read_text(encoding="utf-8-sig")  # a UTF-8 BOM (Windows editors) is not content
    except FileNotFoundError:
        raise LoadError(source, "", "load file not found") from None
    except (OSError, UnicodeDecodeError) as exc:
        raise LoadError(source, "", f"cannot read load file: {exc}") from None
    try:
        data = json.loads(text)
    except json.JSONDecodeError as exc:
        raise LoadError(
            f"{source}:{exc.lineno}", "", f"invalid JSON: {exc.msg} (column {exc.colno})"
        ) from None
    except ValueError as exc:  # e.g. a number of thousands of digits
        raise LoadError(source, "", f"invalid JSON: {exc}") from None
    return load_from_mapping(data, source)
