"""The env file format: `KEY=VALUE` lines, `#` comments, blank lines, optional quotes, `export ` prefix.

Pure parsing, no knowledge of which keys exist: that is `settings.py`'s job. A malformed line raises
`EnvFileError` naming the file, the line number and the reason.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

_KEY_RE = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")


class EnvFileError(ValueError):
    """A line of an env file that cannot be read."""

    def __init__(self, path: str, line: int, reason: str) -> None:
        super().__init__(f"{path}:{line}: {reason}")
        self.path = path
        self.line = line
        self.reason = reason


@dataclass(frozen=True)
class EnvEntry:
    """One `KEY=VALUE` assignment and where it came from."""

    key: str
    value: str
    line: int


def _unquote(raw: str, path: str, lineno: int) -> str:
    raw = raw.strip()
    if not raw:
        return ""
    quote = raw[0]
    if quote in ("'", '"'):
        end = 1
        while end < len(raw) and raw[end] != quote:
            end += 2 if quote == '"' and raw[end] == "\\" else 1
        if end >= len(raw):
            raise EnvFileError(path, lineno, f"unterminated {quote} quote")
        rest = raw[end + 1 :].strip()
        if rest and not rest.startswith("#"):
            raise EnvFileError(path, lineno, f"unexpected text after the closing quote: {rest!r}")
        value = raw[1:end]
        if quote == '"':
            value = value.replace('\\"', '"').replace("\\n", "\n").replace("\\\\", "\\")
        return value
    # Unquoted: an inline comment starts at ' #'.
    hash_at = raw.find(" #")
    if hash_at != -1:
        raw = raw[:hash_at]
    return raw.strip()


def parse_env_text(text: str, path: str = "<env>") -> list[EnvEntry]:
    """Parse the text of an env file into entries, in order. Later duplicates win when turned into a dict."""
    entries: list[EnvEntry] = []
    for lineno, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if not stripped or stripped.startswith("#"):
            continue
        if stripped.startswith("export "):
            stripped = stripped[len("export ") :].lstrip()
        if "=" not in stripped:
            raise EnvFileError(path, lineno, f"expected KEY=VALUE, got {stripped[:40]!r}")
        key, _, raw_value = stripped.partition("=")
        key = key.strip()
        if not key:
            raise EnvFileError(path, lineno, "empty key before '='")
        if not _KEY_RE.match(key):
            raise EnvFileError(path, lineno, f"invalid key {key!r} (letters, digits and _ only)")
        entries.append(EnvEntry(key=key, value=_unquote(raw_value, path, lineno), line=lineno))
    return entries


def read_env_file(path: str | Path) -> list[EnvEntry]:
    """Read and parse an env file. A missing or unreadable file raises `EnvFileError` at line 0."""
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig")  # a UTF-8 BOM (Windows editors) is not part of the first key
    except FileNotFoundError:
        raise EnvFileError(str(p), 0, "file not found") from None
    except PermissionError:
        raise EnvFileError(str(p), 0, "permission denied") from None
    except UnicodeDecodeError as exc:
        raise EnvFileError(str(p), 0, f"not UTF-8 text ({exc.reason})") from None
    except IsADirectoryError:
        raise EnvFileError(str(p), 0, "is a directory, not an env file") from None
    except OSError as exc:
        raise EnvFileError(str(p), 0, f"cannot read: {exc.strerror or exc}") from None
    return parse_env_text(text, str(p))
