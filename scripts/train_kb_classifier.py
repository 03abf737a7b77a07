"""Retrain the operator's question classifier (policies/operator/kb_classifier.py) from the labelled questions
and the sample articles: `.venv/bin/python scripts/train_kb_classifier.py` (needs the `dev` extra's scikit-learn;
about 10 s). A development tool: the daemon only reads the model it writes."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a checkout, as a file

from ai_operator.kb.classifier import OUT_OF_SCOPE, fingerprint
from ai_operator.kb.classifier_training import Example, train
from ai_operator.kb.ingest import chunk_text, parse_kb_lines
from policies.operator.kb_classifier import ARTICLES, DIGEST, LABELLED, MODEL, digest, training_rows
from policies.operator.kb_query import knowledge_query
from policies.operator.knowledge import KNOWLEDGE, SCORER


def main() -> None:
    rows = training_rows(LABELLED.read_text(encoding="utf-8").splitlines())
    examples = []
    for r in rows:
        asked = knowledge_query(r["q"], r["lang"])
        examples.append(Example(SCORER.fold(asked), tuple(t.key for t in SCORER.terms(asked)), r["lang"],
                                r["expect"][0] if r["expect"] else OUT_OF_SCOPE))
    entries, _ = parse_kb_lines(ARTICLES.read_bytes().split(b"\n"), KNOWLEDGE)
    model = train(examples, [fingerprint(e.id, e.title, chunk) for e in entries for chunk in chunk_text(e.text)])
    model.save(MODEL)
    DIGEST.write_text(digest(rows) + "\n")
    print(f"{MODEL}: {len(examples)} questions, {len(model.labels)} classes, {len(model.grams)} n-grams, "
          f"{len(model.concepts)} concepts, {MODEL.stat().st_size} bytes")


if __name__ == "__main__":
    main()
