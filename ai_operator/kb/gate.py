"""The relevance gate a knowledge base answers with (pure: the stored form and the choice, no I/O).

The default gate is the policy's scorer's (`Scorer.gate`, fitted to the sample knowledge base). `ai-operator kb
calibrate` fits one to a knowledge base and the embedder its vectors come from and stores it in `kb_meta` under
`gate_key` (knowledge base, embedder name, dimension) with the figures it reached (`StoredGate`). A search uses the
gate stored for the embedder it is configured with (the search statement reads it, so a calibration counts from
the next search); none stored, or one stored for another embedder: the default (`gate_in_use` says which and why).
An ingestion drops every gate fitted to another embedder's vectors (`DROP_OTHER_GATES_SQL`): they are gone.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from typing import Any

GATE_PREFIX = "gate/"
DROP_OTHER_GATES_SQL = "DELETE FROM kb_meta WHERE starts_with(key, 'gate/') AND right(key, %s) <> %s"


def drop_other_gates_params(name: str, dim: int) -> tuple[int, str]:
    """The parameters of `DROP_OTHER_GATES_SQL`: every gate whose key does not end in this embedder's goes."""
    suffix = f"/{name}/{dim}"
    return len(suffix), suffix


def embedder_identity(name: str, dim: int) -> str:
    """How an embedder is named in keys and messages: its name (provider and model, e.g. "openai:text-embedding-
    3-small"; "hash-v2") and its dimension."""
    return f"{name} dim {dim}"


def gate_key(kb: str, name: str, dim: int) -> str:
    """The `kb_meta` key of the gate of knowledge base `kb` for the embedder `name` of dimension `dim`."""
    return f"{GATE_PREFIX}{kb}/{name}/{dim}"


@dataclass(frozen=True)
class StoredGate:
    """A calibrated gate as stored: the gate, the embedder it was fitted to, the figures it reached on the labelled
    questions of `split` (`questions` of them, `in_scope` with an answer) in `file`, and when (UTC, ISO 8601)."""

    gate: float
    embedder: str
    dim: int
    precision: float
    recall: float
    rejection: float
    split: str
    questions: int
    in_scope: int
    file: str
    date: str

    def to_json(self) -> str:
        return json.dumps(asdict(self), ensure_ascii=False, sort_keys=True)

    @classmethod
    def from_json(cls, raw: str | None) -> StoredGate | None:
        """The stored gate, or None for none or a value this version cannot read (the default is used then)."""
        if not raw:
            return None
        try:
            data: dict[str, Any] = json.loads(raw)
            return cls(**{k: data[k] for k in cls.__dataclass_fields__})
        except (ValueError, TypeError, KeyError):
            return None

    def figures(self) -> str:
        return (f"precision {self.precision:.3f}, recall {self.recall:.3f}, out-of-scope rejected "
                f"{self.rejection:.3f} on {self.questions} questions of split {self.split}")


@dataclass(frozen=True)
class GateInUse:
    """The gate a knowledge base answers with, `calibrated` or the default, and where it comes from (`source`:
    one phrase for a log line and doctor)."""

    gate: float
    calibrated: bool
    source: str


def gate_in_use(kb: str, name: str, dim: int, default: float, meta: Mapping[str, str]) -> GateInUse:
    """The gate of knowledge base `kb` for the embedder `name`/`dim`, given the `kb_meta` rows `meta` (key ->
    value): the one calibrated for that embedder, else `default` (saying whether none is stored or only for
    another embedder)."""
    who = embedder_identity(name, dim)
    raw = meta.get(gate_key(kb, name, dim))
    stored = StoredGate.from_json(raw)
    if stored is not None:
        return GateInUse(stored.gate, True, f"calibrated for {who} on {stored.date[:10]} ({stored.figures()})")
    if raw:
        return GateInUse(default, False, f"default: the stored calibration for {who} is unreadable; run `ai-operator "
                                         "kb calibrate` again")
    others = sorted(f"{s.embedder} dim {s.dim}" for k, v in meta.items()
                    if k.startswith(f"{GATE_PREFIX}{kb}/") and (s := StoredGate.from_json(v)) is not None)
    if others:
        return GateInUse(default, False, f"default: calibrated only for {', '.join(others)}, not for {who}")
    return GateInUse(default, False, f"default: no calibration stored for {who}")
