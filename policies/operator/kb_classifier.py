"""The operator's learned question classifier (ai_operator/kb/classifier.py), trained on the labelled caller
questions of tests/data/kb_relevance.jsonl except the held-out splits it is measured on (`HELD_OUT`), for the
articles of etc/kb/sample.jsonl as they are (an article edited or added since is scored by the lexicon alone until
the classifier is retrained), and shipped as `kb_classifier.npz` beside this module; `CLASSIFIER` is None when the
file is absent.

Retrain after the labelled questions, the sample articles or the lexicon change (the model's concept features
are the lexicon's keys): `.venv/bin/python scripts/train_kb_classifier.py` (needs the `dev` extra's scikit-learn;
about 10 s). It records a digest of the lines it learnt from, and tests/test_kb_classifier.py fails when those
lines or the sample articles changed since; a lexicon change is not detected (the model keeps working, with
features that drift from what it learnt), so retrain after one.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from ai_operator.kb.classifier import QuestionClassifier

MODEL = Path(__file__).resolve().parent / "kb_classifier.npz"
DIGEST = MODEL.with_suffix(".sha256")
LABELLED = Path(__file__).resolve().parents[2] / "tests" / "data" / "kb_relevance.jsonl"
ARTICLES = Path(__file__).resolve().parents[2] / "etc" / "kb" / "sample.jsonl"
HELD_OUT = frozenset(["held-out", "held-out-20", "held-out-21", "held-out-22", "held-out-23", "held-out-24"])


def training_rows(lines: Iterable[str]) -> list[dict]:
    """The labelled lines the classifier learns from: every split but the held-out ones."""
    rows = [json.loads(line) for line in lines if line.strip()]
    return [r for r in rows if r["split"] not in HELD_OUT]


def digest(rows: Sequence[dict]) -> str:
    return hashlib.sha256("\n".join(json.dumps(r, ensure_ascii=False, sort_keys=True) for r in rows).encode()).hexdigest()


def load() -> QuestionClassifier | None:
    return QuestionClassifier.load(MODEL) if MODEL.exists() else None


CLASSIFIER = load()
