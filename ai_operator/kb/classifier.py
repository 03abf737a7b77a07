"""A learned question classifier beside the lexical relevance score (pure: numpy over arrays read from a file).

The lexical score (relevance.py) matches a question's words and concepts against an article's; a caller who asks
in words neither the article nor the lexicon has ("провести инет", "сколько за месяц берёте") scores under the
gate although the right article is the nearest. `QuestionClassifier` is a multinomial logistic regression trained
on labelled caller questions (classifier_training.py): each question's class is the topic that answers it, or
`OUT_OF_SCOPE`. Its features are the question's character 2-5-grams inside words (misheard and inflected forms
share most of them) and the scorer's concepts for it (the lexicon's keys), each block tf-idf weighted and
L2-normalised, plus the caller's language.

How a search uses it (`judged`): when the classifier is sure (its best class at least `threshold`), it decides: an
out-of-scope verdict keeps every candidate under the gate; a topic lifts that topic's candidates to the gate and
keeps the others at half the gate at most (far under it: no near article to offer either). When it is not sure,
the lexical scores decide as before. A topic is an entry's id without its language prefix ("ru-internet-tariffs"
-> "internet-tariffs"), so one class covers an article in every language. Only the articles it learnt are judged:
one edited since, added since, or carrying example questions of its own (examples.py) keeps its lexical score.

Measured on held-out labelled questions never trained on (tests/test_kb_relevance.py prints the figures).
"""

from __future__ import annotations

import hashlib
import io
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from functools import partial
from pathlib import Path

import numpy as np

from ai_operator.kb.relevance import Relevance, Scorer

OUT_OF_SCOPE = ""  # the class of a question no article answers
NGRAM_SIZES = (2, 5)  # character n-grams inside words, smallest and largest
DEFAULT_THRESHOLD = 0.4  # the best class's probability from which the classifier decides (cross-validated)
OTHER_TOPIC_SHARE = 0.5  # of the gate: the most a candidate of another topic than the one it is sure of keeps
KEY_PREFIX, LANG_PREFIX = "k:", "l:"
FORMAT = "kb-question-classifier/1"


def char_ngrams(folded: str) -> list[str]:
    """The character n-grams of every word, padded with a space on each side (as scikit-learn's "char_wb"): a
    word no longer than an n-gram gives itself once, and no longer n-grams."""
    low, high = NGRAM_SIZES
    grams: list[str] = []
    for word in folded.split():
        padded = f" {word} "
        for n in range(low, high + 1):
            if len(padded) <= n:
                grams.append(padded)
                break
            grams.extend(padded[i:i + n] for i in range(len(padded) - n + 1))
    return grams


def concept_tokens(keys: Iterable[str], language: str) -> list[str]:
    return [KEY_PREFIX + k for k in keys] + [LANG_PREFIX + language]


def feature_block(tokens: Sequence[str], vocabulary: Mapping[str, int], idf: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Column indices and weights of one feature block: sublinear tf times idf, L2-normalised; unknown tokens are
    dropped."""
    counts = Counter(t for t in tokens if t in vocabulary)
    if not counts:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    cols = np.fromiter((vocabulary[t] for t in counts), dtype=np.int64, count=len(counts))
    weights = np.fromiter((1.0 + math.log(c) for c in counts.values()), dtype=float, count=len(counts)) * idf[cols]
    norm = float(np.linalg.norm(weights))
    return cols, weights / norm if norm else weights


@dataclass(frozen=True)
class Verdict:
    """The classifier's best class for a question (`OUT_OF_SCOPE` or a topic), its probability, and whether that
    is at least the threshold (then it decides)."""

    label: str
    probability: float
    sure: bool


@dataclass(frozen=True)
class QuestionClassifier:
    """The trained model: vocabularies and idf of the two feature blocks, weights (classes x features), intercepts,
    the class labels, the articles it learnt them for (`fingerprint`s of their stored chunks) and the decision
    threshold."""

    grams: Mapping[str, int]
    gram_idf: np.ndarray
    concepts: Mapping[str, int]
    concept_idf: np.ndarray
    coef: np.ndarray
    intercept: np.ndarray
    labels: tuple[str, ...]
    articles: frozenset[str]
    threshold: float = DEFAULT_THRESHOLD

    def probabilities(self, folded: str, keys: Iterable[str], language: str) -> np.ndarray:
        """The probability of every class (`labels`' order) for a question: its folded text, concepts, language."""
        g_cols, g_w = feature_block(char_ngrams(folded), self.grams, self.gram_idf)
        c_cols, c_w = feature_block(concept_tokens(keys, language), self.concepts, self.concept_idf)
        logits = self.intercept + self.coef[:, g_cols] @ g_w + self.coef[:, len(self.grams) + c_cols] @ c_w
        logits = logits - logits.max()
        e = np.exp(logits)
        return e / e.sum()

    def verdict(self, folded: str, keys: Iterable[str], language: str) -> Verdict:
        p = self.probabilities(folded, keys, language)
        best = int(p.argmax())
        return Verdict(self.labels[best], float(p[best]), float(p[best]) >= self.threshold)

    def knows(self, topic: str) -> bool:
        return topic in self.labels

    def save(self, path: Path) -> None:
        buffer = io.BytesIO()
        np.savez_compressed(
            buffer, format=np.array(FORMAT), grams=np.array(sorted(self.grams, key=self.grams.__getitem__)),
            gram_idf=self.gram_idf.astype(np.float32),
            concepts=np.array(sorted(self.concepts, key=self.concepts.__getitem__)),
            concept_idf=self.concept_idf.astype(np.float32), coef=self.coef.astype(np.float16),
            intercept=self.intercept.astype(np.float32), labels=np.array(self.labels),
            articles=np.array(sorted(self.articles)), threshold=np.array(self.threshold))
        path.write_bytes(buffer.getvalue())

    @classmethod
    def load(cls, path: Path) -> QuestionClassifier:
        """The model saved at `path`; ValueError naming the file when it is not one."""
        try:
            with np.load(path, allow_pickle=False) as z:
                if str(z["format"]) != FORMAT:
                    raise ValueError(f"{path}: format {str(z['format'])!r} is not {FORMAT!r}")
                grams, concepts = [str(g) for g in z["grams"]], [str(c) for c in z["concepts"]]
                return cls({g: i for i, g in enumerate(grams)}, z["gram_idf"].astype(float),
                           {c: i for i, c in enumerate(concepts)}, z["concept_idf"].astype(float),
                           z["coef"].astype(np.float32), z["intercept"].astype(float),
                           tuple(str(label) for label in z["labels"]), frozenset(str(a) for a in z["articles"]),
                           float(z["threshold"]))
        except (OSError, KeyError, ValueError) as exc:
            raise ValueError(f"{path}: not a question classifier ({exc})") from exc


def topic_of(entry_id: str, language: str) -> str:
    """An entry's topic: its id without the "<language>-" prefix, when it has one."""
    prefix = f"{language}-"
    return entry_id[len(prefix):] if entry_id.startswith(prefix) else entry_id


def fingerprint(entry_id: str, title: str, text: str) -> str:
    """One stored chunk of an article as the classifier learnt it: a changed title or text is another article."""
    return hashlib.sha256(f"{entry_id}\n{title}\n{text}".encode()).hexdigest()[:16]


def judged(verdict: Verdict, scored: Mapping[str, Relevance], gate: float, *, topics: Mapping[str, str],
           known: frozenset[str]) -> dict[str, Relevance]:
    """The candidates' relevance (by entry id; `topics`: each entry's topic) once the classifier has had its say:
    unchanged unless it is sure; then a candidate of the topic it names is at least at the gate and every other
    candidate under it. Only `known` entries are judged: an article the classifier never learnt, one changed since
    (its fingerprint differs) or one with example questions of its own (examples.py) keeps its lexical score."""
    if not verdict.sure:
        return dict(scored)
    below = math.nextafter(gate, 0.0)
    out: dict[str, Relevance] = {}
    for entry_id, rel in scored.items():
        topic = topics[entry_id]
        if entry_id not in known:
            out[entry_id] = rel
        elif topic == verdict.label:
            out[entry_id] = replace(rel, score=max(rel.score, gate), unasked=0)
        elif verdict.label == OUT_OF_SCOPE:
            out[entry_id] = replace(rel, score=min(rel.score, below))
        else:  # another topic than the one named: far under the gate, never offered, ordered after it
            out[entry_id] = replace(rel, score=min(rel.score, OTHER_TOPIC_SHARE * gate), title=0.0, sentence=0.0)
    return out


def judge_of(classifier: QuestionClassifier | None, scorer: Scorer, query: str, language: str,
             rows: Sequence[tuple]) -> Callable[[Mapping[str, Relevance], float], dict[str, Relevance]] | None:
    """The classifier's say on one search's candidates at a gate (for `Candidates.judge`), or None without one.
    `rows`: the search statement's (search_sql.py: id, title, text, language and example questions read)."""
    if classifier is None:
        return None
    verdict = classifier.verdict(scorer.fold(query), [t.key for t in scorer.terms(query)], language)
    topics = {r[0]: topic_of(r[0], r[5]) for r in rows}
    known = frozenset(r[0] for r in rows if not r[13] and classifier.knows(topics[r[0]])
                      and fingerprint(r[0], r[1], r[3]) in classifier.articles)
    return partial(judged, verdict, topics=topics, known=known)
