"""Fitting the relevance gate to a knowledge base and its embedder from labelled questions (pure, no I/O).

A labelled file is JSONL, one question a line, as tests/data/kb_relevance.jsonl: `q` (the question as a caller
says it), `lang` (a language of the knowledge base), `region` (its scope value, "" for none), `expect` (the
entries that answer it: an entry id, or an id without its "<language>-" prefix so one topic covers its
languages; [] = out of scope: no entry answers it) and `split` (which part of the set; `kind` and other fields
are ignored). `parse_labelled` checks every line and `check_expected` every `expect` against the stored entries;
the first bad one is a `LabelledError` naming the file, line, field, value and what is allowed.

`kb calibrate` asks each question of the split through the real search (commands.py) and records its answer at
each gate of `GATES` (`answer`: the first hit that passes the gate, as a call answers); `fit` applies THE RULE: of the gates where precision >= `MIN_PRECISION` and
out-of-scope rejected >= `MIN_REJECTION`, the one with the highest recall (the higher gate on a tie). Precision =
correct answers / answers, recall = correct answers / in-scope questions, out-of-scope rejected = out-of-scope
questions not answered / out-of-scope questions (as tests/support/kb_gate.py counts them); a gate with no correct
answer meets no floor. A split with fewer
than `MIN_IN_SCOPE` in-scope or `MIN_OUT_OF_SCOPE` out-of-scope questions fits nothing.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ai_operator.dialogue import KnowledgeHit, KnowledgeProfile
from ai_operator.kb.ingest import scope_value

MIN_PRECISION = 0.95
MIN_REJECTION = 0.97
MIN_IN_SCOPE = 100
MIN_OUT_OF_SCOPE = 30
GATES = tuple(round(0.30 + 0.05 * k, 2) for k in range(13))  # 0.30, 0.35, ... 0.90
RULE = (f"the gate with the highest recall where precision >= {MIN_PRECISION} and out-of-scope rejected >= "
        f"{MIN_REJECTION} (the higher gate on a tie)")
FIELDS = "q, lang, region, expect, split"


class LabelledError(ValueError):
    """Unusable labelled input; the message is the one line to print (nothing was stored)."""


@dataclass(frozen=True)
class Labelled:
    """One labelled question and the line it was read from."""

    q: str
    lang: str
    region: str
    expect: tuple[str, ...]
    split: str
    line: int

    @property
    def in_scope(self) -> bool:
        return bool(self.expect)


def _field(row: dict[str, Any], key: str, where: str) -> Any:
    if key not in row:
        raise LabelledError(f"{where}: missing field {key} (each line: a JSON object with {FIELDS})")
    return row[key]


def _text(row: dict[str, Any], key: str, where: str, *, empty: bool = False) -> str:
    value = _field(row, key, where)
    if not isinstance(value, str) or (not empty and not value.strip()):
        raise LabelledError(f"{where}: field {key}: {json.dumps(value, ensure_ascii=False)} is not "
                            f"{'a string' if empty else 'a non-empty string'}")
    return value


def parse_line(raw: bytes, path: Path, number: int, profile: KnowledgeProfile) -> Labelled | None:
    """Line `number` of `path` (None when blank); `LabelledError` when it is not a labelled question."""
    where = f"{path}:{number}"
    try:
        text = raw.decode("utf-8-sig" if number == 1 else "utf-8")
    except UnicodeDecodeError as exc:
        raise LabelledError(f"{where}: not UTF-8 (byte 0x{raw[exc.start]:02x} at column {exc.start + 1})") from None
    if not text.strip():
        return None
    try:
        row = json.loads(text)
    except ValueError as exc:
        raise LabelledError(f"{where}: invalid JSON ({exc}); expected one object per line with {FIELDS}") from None
    if not isinstance(row, dict):
        raise LabelledError(f"{where}: a JSON {type(row).__name__}, expected an object with {FIELDS}")
    q = _text(row, "q", where)
    lang = _text(row, "lang", where)
    if lang not in profile.languages:
        raise LabelledError(f"{where}: field lang: {lang!r} is not a language of the knowledge base {profile.name} "
                            f"(allowed: {', '.join(profile.languages)})")
    region = _text(row, "region", where, empty=True)
    try:
        scope_value(profile, region)
    except ValueError as exc:
        raise LabelledError(f"{where}: field region: {str(exc).removeprefix(profile.scope.key + ': ')}") from None
    expect = _field(row, "expect", where)
    if not isinstance(expect, list) or not all(isinstance(e, str) and e for e in expect):
        raise LabelledError(f"{where}: field expect: {json.dumps(expect, ensure_ascii=False)} is not a list of "
                            "entry ids ([] for a question no entry answers)")
    return Labelled(q, lang, region, tuple(expect), _text(row, "split", where), number)


def parse_labelled(data: bytes, path: Path, profile: KnowledgeProfile) -> list[Labelled]:
    """Every labelled question of the file's bytes `data`; the first bad line raises `LabelledError`."""
    out = [item for n, raw in enumerate(data.split(b"\n"), start=1)
           if (item := parse_line(raw.rstrip(b"\r"), path, n, profile)) is not None]
    if not out:
        raise LabelledError(f"{path}: no labelled questions (each line: a JSON object with {FIELDS})")
    return out


def of_split(items: Sequence[Labelled], split: str, path: Path) -> list[Labelled]:
    """The questions of `split`; `LabelledError` when it has none, or too few to fit a gate."""
    chosen = [i for i in items if i.split == split]
    if not chosen:
        splits = ", ".join(sorted({i.split for i in items}))
        raise LabelledError(f"--split {split!r}: no line of {path} has that split (its splits: {splits})")
    inside = sum(i.in_scope for i in chosen)
    outside = len(chosen) - inside
    if inside < MIN_IN_SCOPE or outside < MIN_OUT_OF_SCOPE:
        raise LabelledError(f"{path} split {split}: {inside} in-scope and {outside} out-of-scope questions, too few "
                            f"to fit a gate (at least {MIN_IN_SCOPE} and {MIN_OUT_OF_SCOPE}); nothing stored")
    return chosen


def topic(entry_id: str, language: str) -> str:
    """The entry id without its "<language>-" prefix (the same topic in another language has the same one)."""
    prefix = f"{language}-"
    return entry_id[len(prefix):] if entry_id.startswith(prefix) else entry_id


def check_expected(items: Sequence[Labelled], entries: Sequence[tuple[str, str]], path: Path, kb: str) -> None:
    """`LabelledError` for the first `expect` value that names no stored entry (`entries`: id, language)."""
    if not entries:
        raise LabelledError(f"the knowledge base {kb} has no entries: run `ai-operator kb ingest FILE` first; nothing "
                            "stored")
    known = {i for i, _ in entries} | {topic(i, lang) for i, lang in entries}
    example = topic(*entries[0])
    for item in items:
        for value in item.expect:
            if value not in known:
                raise LabelledError(f"{path}:{item.line}: field expect: {value!r} is no entry of the knowledge base "
                                    f"{kb} (allowed: an entry id, or one without its language prefix, e.g. "
                                    f"{example!r})")


def answer(hits: Sequence[KnowledgeHit]) -> KnowledgeHit | None:
    """What a call answers from a search's hits: the first that passes the gate (the hits come most relevant
    first; the operator reads it out, a model is shown only those); None: no answer."""
    return next((h for h in hits if h.relevant), None)


def correct(item: Labelled, hit: KnowledgeHit) -> bool:
    return hit.entry_id in item.expect or topic(hit.entry_id, hit.language) in item.expect


@dataclass(frozen=True)
class GateFigures:
    """What one gate gives on the split."""

    gate: float
    in_scope: int
    out_of_scope: int
    answered: int
    right: int
    false_answers: int

    @property
    def precision(self) -> float:
        return self.right / self.answered if self.answered else 1.0

    @property
    def recall(self) -> float:
        return self.right / self.in_scope if self.in_scope else 1.0

    @property
    def rejection(self) -> float:
        return 1 - self.false_answers / self.out_of_scope if self.out_of_scope else 1.0

    @property
    def short_of(self) -> str:
        """Which floors this gate misses ("" when none)."""
        missed = [name for name, low in (("no right answer", not self.right),
                                         (f"precision < {MIN_PRECISION}", self.precision < MIN_PRECISION),
                                         (f"rejected < {MIN_REJECTION}", self.rejection < MIN_REJECTION)) if low]
        return ", ".join(missed)

    @property
    def meets_floors(self) -> bool:
        """Precision and out-of-scope rejection at their floors, and at least one right answer (a gate that
        answers nothing is no gate)."""
        return self.right > 0 and self.precision >= MIN_PRECISION and self.rejection >= MIN_REJECTION


def figures(items: Sequence[Labelled], best: Sequence[KnowledgeHit | None], gate: float) -> GateFigures:
    """The figures at `gate`, `best[i]` being the answer to `items[i]` at that gate (None: none)."""
    answered = [(i, h) for i, h in zip(items, best, strict=True) if h is not None and h.relevant]
    return GateFigures(gate, sum(i.in_scope for i in items), sum(not i.in_scope for i in items), len(answered),
                       sum(i.in_scope and correct(i, h) for i, h in answered),
                       sum(not i.in_scope for i, _ in answered))


def fit(table: Sequence[GateFigures]) -> GateFigures | None:
    """THE RULE (module docstring) over the gates tried; None when no gate meets the floors."""
    passing = [f for f in table if f.meets_floors]
    return max(passing, key=lambda f: (f.recall, f.gate)) if passing else None


def table_lines(table: Sequence[GateFigures], chosen: GateFigures | None) -> list[str]:
    lines = ["  gate  precision  recall  out-of-scope rejected"]
    for f in table:
        mark = "  <- chosen" if f is chosen else ("" if f.meets_floors else f"  ({f.short_of})")
        lines.append(f"  {f.gate:.2f}      {f.precision:.3f}   {f.recall:.3f}                  {f.rejection:.3f}{mark}")
    return lines
