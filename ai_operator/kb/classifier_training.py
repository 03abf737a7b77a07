"""Training the question classifier (classifier.py) on labelled caller questions: a development tool, not the
daemon's. It needs scikit-learn (the `dev` extra) for the logistic regression's solver; the model it writes is
read with numpy alone.

`train` takes (folded question, the scorer's concepts for it, language, label) rows: the label is the topic that
answers the question, or `OUT_OF_SCOPE`. Vocabularies keep character n-grams seen in at least `MIN_GRAM_QUESTIONS`
questions (one caller's typo is no feature) and every concept; idf is the smoothed one (ln((1+n)/(1+df)) + 1).
"""

from __future__ import annotations

import math
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from ai_operator.kb.classifier import (
    DEFAULT_THRESHOLD,
    QuestionClassifier,
    char_ngrams,
    concept_tokens,
    feature_block,
)

MIN_GRAM_QUESTIONS = 2
REGULARISATION_C = 10.0  # inverse L2 strength (scikit-learn's C), cross-validated with the threshold
MAX_ITERATIONS = 3000


@dataclass(frozen=True)
class Example:
    folded: str
    keys: tuple[str, ...]
    language: str
    label: str


def _vocabulary(docs: Sequence[Sequence[str]], min_df: int) -> tuple[dict[str, int], np.ndarray]:
    """The tokens in at least `min_df` of `docs`, numbered in sorted order, and their smoothed idf."""
    df: Counter[str] = Counter()
    for tokens in docs:
        df.update(set(tokens))
    kept = sorted(t for t, c in df.items() if c >= min_df)
    idf = np.array([math.log((1 + len(docs)) / (1 + df[t])) + 1.0 for t in kept])
    return {t: i for i, t in enumerate(kept)}, idf


def train(examples: Sequence[Example], articles: Iterable[str], threshold: float = DEFAULT_THRESHOLD,
          c: float = REGULARISATION_C) -> QuestionClassifier:
    """The classifier of `examples` for the `articles` (classifier.fingerprint of each stored chunk)."""
    from scipy.sparse import csr_matrix  # dev-only dependencies
    from sklearn.linear_model import LogisticRegression

    gram_docs = [char_ngrams(e.folded) for e in examples]
    concept_docs = [concept_tokens(e.keys, e.language) for e in examples]
    grams, gram_idf = _vocabulary(gram_docs, MIN_GRAM_QUESTIONS)
    concepts, concept_idf = _vocabulary(concept_docs, 1)
    rows, cols, vals = [], [], []
    for i, (g, k) in enumerate(zip(gram_docs, concept_docs, strict=True)):
        for offset, (c_idx, w) in ((0, feature_block(g, grams, gram_idf)), (len(grams), feature_block(k, concepts, concept_idf))):
            rows.extend([i] * len(c_idx))
            cols.extend((c_idx + offset).tolist())
            vals.extend(w.tolist())
    x = csr_matrix((vals, (rows, cols)), shape=(len(examples), len(grams) + len(concepts)))
    y = np.array([e.label for e in examples])
    model = LogisticRegression(C=c, max_iter=MAX_ITERATIONS).fit(x, y)
    labels = tuple(str(label) for label in model.classes_)
    return QuestionClassifier(grams, gram_idf, concepts, concept_idf, model.coef_.astype(np.float32),
                              model.intercept_.astype(float), labels, frozenset(articles), threshold)
