"""Parsing and checking one setting's value: booleans, numbers in a range, choices, URLs, DSNs. Pure.

Every function takes the raw string from the env file (or the environment) and returns the typed value, or
raises `ValueError` with what is allowed; `settings.py` adds where the value came from (file:line, key).
"""

from __future__ import annotations

import re
from urllib.parse import urlsplit

TRUE_WORDS = frozenset({"1", "true", "yes", "on"})
FALSE_WORDS = frozenset({"0", "false", "no", "off", ""})
_IDENTIFIER_RE = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def parse_bool(raw: str) -> bool:
    value = raw.strip().lower()
    if value in TRUE_WORDS:
        return True
    if value in FALSE_WORDS:
        return False
    raise ValueError(f"expected true or false, got {raw!r}")


def parse_int(raw: str, lo: float | None = None, hi: float | None = None) -> int:
    try:
        value = int(raw.strip())
    except ValueError:
        raise ValueError(f"expected an integer{_range(lo, hi)}, got {raw!r}") from None
    _check_range(value, raw, lo, hi)
    return value


def parse_float(raw: str, lo: float | None = None, hi: float | None = None) -> float:
    try:
        value = float(raw.strip())
    except ValueError:
        raise ValueError(f"expected a number{_range(lo, hi)}, got {raw!r}") from None
    if value != value or value in (float("inf"), float("-inf")):
        raise ValueError(f"expected a finite number{_range(lo, hi)}, got {raw!r}")
    _check_range(value, raw, lo, hi)
    return value


def parse_choice(raw: str, choices: tuple[str, ...]) -> str:
    value = raw.strip().lower()
    if value not in choices:
        raise ValueError(f"expected one of {', '.join(choices)}, got {raw!r}")
    return value


def _range(lo: float | None, hi: float | None) -> str:
    if lo is not None and hi is not None:
        return f" in {lo:g}..{hi:g}"
    if lo is not None:
        return f" >= {lo:g}"
    if hi is not None:
        return f" <= {hi:g}"
    return ""


def _check_range(value: float, raw: str, lo: float | None, hi: float | None) -> None:
    if (lo is not None and value < lo) or (hi is not None and value > hi):
        raise ValueError(f"{raw!r} is out of range: allowed{_range(lo, hi)}")


def check_http_url(raw: str, *, optional: bool = False) -> None:
    """An http(s) URL with a host (e.g. `http://127.0.0.1:8088/ari`); empty is allowed when `optional`."""
    if not raw and optional:
        return
    allowed = "an http:// or https:// URL with a host, e.g. http://127.0.0.1:8088/ari"
    if any(c.isspace() for c in raw):
        raise ValueError(f"expected {allowed}, got {raw!r}")
    try:
        parts = urlsplit(raw)
        port = parts.port  # raises ValueError for a port out of 0..65535
    except ValueError:
        raise ValueError(f"expected {allowed}, got {raw!r}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname:
        raise ValueError(f"expected {allowed}, got {raw!r}")
    if port == 0:
        raise ValueError(f"port 0 in {raw!r}: expected a port in 1..65535")


def check_dsn(raw: str) -> None:
    """Empty (embedded PostgreSQL), a postgresql:// URL, or a libpq key=value string."""
    if not raw:
        return
    if raw.startswith(("postgresql://", "postgres://")):  # postgresql:///db (a unix socket) is fine too
        return
    if "=" in raw and not raw.startswith(("http://", "https://")):
        return
    raise ValueError(f"expected a postgresql:// URL or libpq key=value pairs (or empty for embedded), got a {len(raw)}-character value")


def check_identifier(raw: str) -> None:
    if not _IDENTIFIER_RE.match(raw):
        raise ValueError(f"expected letters, digits, '_', '.' or '-' (not starting with a symbol), got {raw!r}")
