"""Knowledge-base file parsing (pure, no I/O): JSONL lines -> validated entries, bad lines -> rejects with the
line number and the reason; long texts chunked on sentence boundaries."""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable
from dataclasses import dataclass, field

ALL_REGIONS = "*"
LANGUAGE_RE = re.compile(r"^[a-z]{2,3}$")  # ISO 639 code: the KB serves whatever languages its entries are in
REGION_RE = re.compile(r"^[A-Z]{2}-[A-Z0-9]{1,3}$")  # ISO 3166-2 subdivision code, e.g. KZ-71


def valid_language(code: str) -> bool:
    return bool(LANGUAGE_RE.match(code or ""))


def valid_region(code: str) -> bool:
    return bool(REGION_RE.match(code or ""))
REQUIRED_FIELDS = ("id", "language", "regions", "title", "text", "source")
DEFAULT_CHUNK_CHARS = 500
MAX_ID_CHARS = 200

_SENTENCE_END_RE = re.compile(r"(?<=[.!?…])\s+")


@dataclass(frozen=True)
class KBEntry:
    """One knowledge-base entry (one JSONL line)."""

    id: str
    language: str
    regions: tuple[str, ...]
    title: str
    text: str
    source: str
    updated_at: str | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)

    def content_hash(self) -> str:
        """Changes whenever anything that is stored or searched changes."""
        payload = json.dumps([self.language, list(self.regions), self.title, self.text, self.source,
                              self.updated_at, list(self.tags)], ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Reject:
    """A line that was not ingested, and why."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


def _nonempty_str(obj: dict, key: str) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"field {key}: expected a non-empty string")
    return value.strip()


def parse_entry(obj: object) -> KBEntry:
    """Validate one decoded JSON value; `ValueError` names the field and the reason."""
    if not isinstance(obj, dict):
        raise ValueError("expected a JSON object")
    for key in REQUIRED_FIELDS:
        if key not in obj or obj[key] is None:
            raise ValueError(f"missing field {key}")
    entry_id = _nonempty_str(obj, "id")
    if len(entry_id) > MAX_ID_CHARS:
        raise ValueError(f"field id: longer than {MAX_ID_CHARS} characters")
    language = obj["language"]
    if not isinstance(language, str) or not valid_language(language):
        raise ValueError(f"field language: expected an ISO 639 code such as ru or kk, got {language!r}")
    regions = obj["regions"]
    if not isinstance(regions, list) or not regions or not all(isinstance(r, str) for r in regions):
        raise ValueError('field regions: expected a non-empty list of region codes or ["*"]')
    for code in regions:
        if code != ALL_REGIONS and not valid_region(code):
            raise ValueError(f"unknown region code {code} (expected an ISO 3166-2 code such as KZ-71, or \"*\")")
    if ALL_REGIONS in regions and len(regions) > 1:
        raise ValueError('field regions: "*" (all regions) cannot be combined with region codes')
    tags = obj.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("field tags: expected a list of strings")
    updated_at = obj.get("updated_at")
    if updated_at is not None and not isinstance(updated_at, str):
        raise ValueError("field updated_at: expected a string (ISO date)")
    return KBEntry(
        id=entry_id,
        language=language,
        regions=tuple(sorted(set(regions))),
        title=_nonempty_str(obj, "title"),
        text=_nonempty_str(obj, "text"),
        source=_nonempty_str(obj, "source"),
        updated_at=updated_at,
        tags=tuple(tags),
    )


def parse_kb_lines(lines: Iterable[str | bytes]) -> tuple[list[KBEntry], list[Reject]]:
    """Parse JSONL lines (numbered from 1; blank lines skipped). Good lines become entries even when others fail."""
    entries: list[KBEntry] = []
    rejects: list[Reject] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(lines, start=1):
        if isinstance(raw, bytes):
            try:
                raw = raw.decode("utf-8")
            except UnicodeDecodeError as exc:
                rejects.append(Reject(n, f"not valid UTF-8 ({exc.reason} at byte {exc.start})"))
                continue
        line = raw.strip().lstrip("\ufeff")
        if not line:
            continue
        try:
            obj = json.loads(line)
        except json.JSONDecodeError as exc:
            rejects.append(Reject(n, f"invalid JSON: {exc.msg} at column {exc.colno}"))
            continue
        try:
            entry = parse_entry(obj)
        except ValueError as exc:
            rejects.append(Reject(n, str(exc)))
            continue
        if entry.id in seen:
            rejects.append(Reject(n, f"duplicate id {entry.id} in file (first on line {seen[entry.id]})"))
            continue
        seen[entry.id] = n
        entries.append(entry)
    return entries, rejects


def chunk_text(text: str, max_chars: int = DEFAULT_CHUNK_CHARS) -> list[str]:
    """Split `text` into chunks of at most `max_chars`, cutting between sentences (between words for a
    sentence that is longer than `max_chars` by itself)."""
    if max_chars < 20:
        raise ValueError("max_chars: must be at least 20")
    text = " ".join(text.split())
    if not text:
        return []
    pieces: list[str] = []
    for sentence in _SENTENCE_END_RE.split(text):
        if len(sentence) <= max_chars:
            pieces.append(sentence)
        else:  # a "word" longer than a chunk (a URL, say) is cut into chunk-sized slices
            slices = (word[i : i + max_chars] for word in sentence.split(" ") for i in range(0, len(word), max_chars))
            pieces.extend(_pack(slices, max_chars))
    return _pack(pieces, max_chars)


def _pack(parts: Iterable[str], max_chars: int) -> list[str]:
    """Join `parts` (each at most `max_chars` long) with spaces, greedily, into strings of at most `max_chars`."""
    packed: list[str] = []
    cur = ""
    for part in parts:
        if cur and len(cur) + 1 + len(part) > max_chars:
            packed.append(cur)
            cur = part
        else:
            cur = f"{cur} {part}" if cur else part
    if cur:
        packed.append(cur)
    return packed
