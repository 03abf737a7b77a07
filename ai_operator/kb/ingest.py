"""Knowledge-base file parsing (pure, no I/O): JSONL lines -> validated entries, bad lines -> rejects with the
line number and the reason; long texts chunked on sentence boundaries.

A line that passes here is one PostgreSQL stores: no NUL character or lone surrogate (text cannot hold them),
a language code of the shape the table's CHECK has (`LANGUAGE_PATTERN`, migration 0003) and one of the languages
of the knowledge base's `KnowledgeProfile` (its policy's), scope values the profile's `KnowledgeScope` allows (the
operator's: ISO 3166-2 region codes or "*"); sizes within the limits below, so one runaway entry can neither take
minutes to embed nor outrank real answers with sheer volume of words. A reject names the entry's id once known.
An optional "questions" (a list of non-empty strings: ways callers ask for the entry, examples.py) is kept
deduplicated, whitespace-normalised; it is scored, never embedded nor read aloud.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

from ai_operator.dialogue import KnowledgeProfile, KnowledgeScope

LANGUAGE_PATTERN = "^[a-z]{2,3}$"  # ISO 639 code; the same pattern is kb_entries' CHECK (migration 0003)
LANGUAGE_RE = re.compile(LANGUAGE_PATTERN)


def valid_language(code: str) -> bool:
    return bool(LANGUAGE_RE.match(code or ""))


def valid_scope(scope: KnowledgeScope, value: str) -> bool:
    """`value` is one the scope allows: its `everywhere` value or one matching its pattern whole."""
    return value == scope.everywhere or re.fullmatch(scope.pattern, value or "") is not None


def scope_value(profile: KnowledgeProfile, scope: Mapping[str, str] | str) -> str:
    """The scope value a search asks for ("" for none): `scope` itself, or the value of the profile's key in the
    policy's mapping (any other key is an error: the knowledge base is scoped by that key alone)."""
    key = profile.scope.key
    if not isinstance(scope, str):
        unknown = sorted(set(scope) - {key})
        if unknown:
            raise ValueError(f"scope: {', '.join(unknown)} is not a scope of the knowledge base {profile.name} "
                             f"(allowed: {key})")
        scope = scope.get(key, "")
    if scope and (scope == profile.scope.everywhere or not valid_scope(profile.scope, scope)):
        raise ValueError(f"{key}: unknown {key} {scope!r} (allowed: {profile.scope.example})")
    return scope


REQUIRED_FIELDS = ("id", "language", "title", "text", "source")  # and the profile's scope field, third
DEFAULT_CHUNK_CHARS = 500
MAX_ID_CHARS = 200
MAX_TEXT_CHARS = 20_000  # an answer read out on a phone call; a longer document is split into several entries
MAX_FIELD_CHARS = {"title": 300, "source": 2_000, "updated_at": 64}
MAX_TAGS, MAX_TAG_CHARS, MAX_SCOPES = 50, 100, 100
MAX_QUESTIONS, MAX_QUESTION_CHARS = 500, 300  # example questions of an entry (examples.py)
MAX_LINE_BYTES = 512 * 1024  # refused before decoding: even \uXXXX-escaped, a text within the limit fits

_SENTENCE_END_RE = re.compile(r"(?<=[.!?…])\s+")


@dataclass(frozen=True)
class KBEntry:
    """One knowledge-base entry (one JSONL line)."""

    id: str
    language: str
    scopes: tuple[str, ...]  # the values of the profile's scope it is for (the operator's: regions), or everywhere
    title: str
    text: str
    source: str
    updated_at: str | None = None
    tags: tuple[str, ...] = field(default_factory=tuple)
    questions: tuple[str, ...] = field(default_factory=tuple)  # ways callers ask for it: scored, never read aloud

    def content_hash(self) -> str:
        """Changes whenever anything that is stored or searched changes (an entry without example questions hashes
        as before they existed, so adding the field re-ingests nothing)."""
        fields = [self.language, list(self.scopes), self.title, self.text, self.source, self.updated_at,
                  list(self.tags)]
        payload = json.dumps(fields + ([list(self.questions)] if self.questions else []), ensure_ascii=False)
        return hashlib.sha256(payload.encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class Reject:
    """A line that was not ingested, and why."""

    line: int
    reason: str

    def __str__(self) -> str:
        return f"line {self.line}: {self.reason}"


def _storable(key: str, value: str) -> str:
    """`value` unless PostgreSQL's text type cannot hold it (a NUL, a lone surrogate): then `ValueError`."""
    if "\x00" in value:
        raise ValueError(f"field {key}: contains a NUL character (\\u0000), which the database cannot store")
    try:
        value.encode("utf-8")
    except UnicodeEncodeError as exc:
        raise ValueError(f"field {key}: contains a lone surrogate (\\u{ord(value[exc.start]):04x}), "
                         "which is not a character") from None
    return value


def _limited(key: str, value: str, limit: int) -> str:
    if len(value) > limit:
        raise ValueError(f"field {key}: {len(value)} characters, over the limit of {limit}")
    return _storable(key, value)


def _nonempty_str(obj: dict, key: str, limit: int) -> str:
    value = obj.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"field {key}: expected a non-empty string")
    return _limited(key, value.strip(), limit)


def parse_entry(obj: object, profile: KnowledgeProfile) -> KBEntry:
    """Validate one decoded JSON value for the knowledge base of `profile`; `ValueError` names the entry (once its
    id is read), the field, the value and what is allowed."""
    if not isinstance(obj, dict):
        raise ValueError("expected a JSON object")
    scope = profile.scope
    for key in (*REQUIRED_FIELDS[:2], scope.field, *REQUIRED_FIELDS[2:]):
        if key not in obj or obj[key] is None:
            raise ValueError(f"missing field {key}")
    entry_id = _nonempty_str(obj, "id", MAX_ID_CHARS)
    try:
        return _parse_fields(obj, entry_id, profile)
    except ValueError as exc:
        raise ValueError(f"entry {entry_id}: {exc}") from None


def _shown(value: object) -> str:
    """A bad value as a reject shows it: its repr, cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def _parse_fields(obj: dict, entry_id: str, profile: KnowledgeProfile) -> KBEntry:
    scope = profile.scope
    language = obj["language"]
    if not isinstance(language, str) or not valid_language(language):
        raise ValueError(f"field language: expected an ISO 639 code such as {' or '.join(profile.languages[:2])}, "
                         f"got {str(language)[:40]!r}")
    if language not in profile.languages:
        raise ValueError(f"field language: {language!r} is not a language of the knowledge base {profile.name} "
                         f"(allowed: {', '.join(sorted(profile.languages))})")
    text = _nonempty_str(obj, "text", MAX_TEXT_CHARS)
    values = obj[scope.field]
    if not isinstance(values, list) or not values or not all(isinstance(r, str) for r in values):
        raise ValueError(f'field {scope.field}: expected a non-empty list of {scope.key} values or ["{scope.everywhere}"]')
    if len(values) > MAX_SCOPES:
        raise ValueError(f"field {scope.field}: {len(values)} values, over the limit of {MAX_SCOPES}")
    for value in values:
        if not valid_scope(scope, value):
            raise ValueError(f"field {scope.field}: unknown {scope.key} {value[:40]!r} (allowed: {scope.example}, "
                             f'or "{scope.everywhere}" for all)')
    if scope.everywhere in values and len(values) > 1:
        raise ValueError(f'field {scope.field}: "{scope.everywhere}" (all) cannot be combined with other values')
    tags = obj.get("tags") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("field tags: expected a list of strings")
    if len(tags) > MAX_TAGS:
        raise ValueError(f"field tags: {len(tags)} tags, over the limit of {MAX_TAGS}")
    for tag in tags:
        _limited("tags", tag, MAX_TAG_CHARS)
    questions = obj.get("questions")
    if questions is None:
        questions = []
    if not isinstance(questions, list):
        raise ValueError(f"field questions: {_shown(questions)} is a {type(questions).__name__}; expected a list of "
                         "non-empty strings (ways callers ask for the entry)")
    for i, q in enumerate(questions, 1):
        if not isinstance(q, str) or not q.strip():
            raise ValueError(f"field questions: item {i} is {_shown(q)}; each must be a non-empty string")
    if len(questions) > MAX_QUESTIONS:
        raise ValueError(f"field questions: {len(questions)} questions, over the limit of {MAX_QUESTIONS}")
    questions = list(dict.fromkeys(_limited("questions", " ".join(q.split()), MAX_QUESTION_CHARS) for q in questions))
    updated_at = obj.get("updated_at")
    if updated_at is not None and not isinstance(updated_at, str):
        raise ValueError("field updated_at: expected a string (ISO date)")
    if updated_at is not None:
        _limited("updated_at", updated_at, MAX_FIELD_CHARS["updated_at"])
    return KBEntry(
        id=entry_id,
        language=language,
        scopes=tuple(sorted(set(values))),
        title=_nonempty_str(obj, "title", MAX_FIELD_CHARS["title"]),
        text=text,
        source=_nonempty_str(obj, "source", MAX_FIELD_CHARS["source"]),
        updated_at=updated_at,
        tags=tuple(tags),
        questions=tuple(questions),
    )


def parse_kb_lines(lines: Iterable[str | bytes], profile: KnowledgeProfile) -> tuple[list[KBEntry], list[Reject]]:
    """Parse JSONL lines (numbered from 1; blank lines skipped; a UTF-8 BOM ignored) for the knowledge base of
    `profile` (its languages and scope). Good lines become entries even when others fail."""
    entries: list[KBEntry] = []
    rejects: list[Reject] = []
    seen: dict[str, int] = {}
    for n, raw in enumerate(lines, start=1):
        size = len(raw.encode("utf-8", "surrogatepass") if isinstance(raw, str) else raw)
        if size > MAX_LINE_BYTES:
            rejects.append(Reject(n, f"line of {size} bytes, over the limit of {MAX_LINE_BYTES} "
                                     f"(an entry's text is at most {MAX_TEXT_CHARS} characters)"))
            continue
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
            entry = parse_entry(obj, profile)
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
