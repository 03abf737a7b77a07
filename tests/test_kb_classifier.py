"""The learned question classifier (ai_operator/kb/classifier.py): its features, what it does to a search's scores,
the model file, and that the operator's shipped model is the one its labelled questions and articles make."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from ai_operator.kb.classifier import (
    OTHER_TOPIC_SHARE,
    OUT_OF_SCOPE,
    QuestionClassifier,
    Verdict,
    char_ngrams,
    fingerprint,
    judged,
    topic_of,
)
from ai_operator.kb.classifier_training import Example, train
from ai_operator.kb.ingest import chunk_text, parse_kb_lines
from ai_operator.kb.relevance import Relevance
from ai_operator.kb.store import KnowledgeBase
from policies.operator import kb_classifier as shipped
from policies.operator.knowledge import KNOWLEDGE

GATE = 0.6


def test_character_ngrams_stay_inside_words() -> None:
    assert char_ngrams("аб") == [" а", "аб", "б ", " аб", "аб ", " аб "]
    assert char_ngrams("я") == [" я", "я ", " я "]  # a word no longer than an n-gram gives itself, once
    assert all(" " not in g.strip() for g in char_ngrams("провести инет домой"))


def test_a_topic_is_the_id_without_its_language() -> None:
    assert topic_of("kk-internet-tariffs", "kk") == "internet-tariffs"
    assert topic_of("ru-kk-thing", "kk") == "ru-kk-thing"


def scores(*pairs: tuple[str, float]) -> dict[str, Relevance]:
    return {entry: Relevance(score, title=0.5, sentence=0.5, unasked=1) for entry, score in pairs}


TOPICS = {"ru-a": "a", "ru-b": "b", "ru-c": "c"}


def test_a_sure_topic_lifts_its_articles_to_the_gate_and_sinks_the_others_out_of_the_near_band() -> None:
    got = judged(Verdict("a", 0.8, True), scores(("ru-a", 0.3), ("ru-b", 0.9), ("ru-c", 0.2)), GATE,
                 topics=TOPICS, known=frozenset(TOPICS))
    assert got["ru-a"].score == GATE and got["ru-a"].unasked == 0
    assert got["ru-b"].score == OTHER_TOPIC_SHARE * GATE and got["ru-b"].title == 0.0  # never ranked above "a"
    assert got["ru-c"].score == 0.2 and got["ru-b"].rank < got["ru-a"].rank


def test_a_sure_out_of_scope_keeps_everything_under_the_gate_and_unsure_changes_nothing() -> None:
    before = scores(("ru-a", 1.0), ("ru-b", 0.5))
    out = judged(Verdict(OUT_OF_SCOPE, 0.9, True), before, GATE, topics=TOPICS, known=frozenset(TOPICS))
    assert out["ru-a"].score < GATE and out["ru-b"].score == 0.5
    assert judged(Verdict("b", 0.3, False), before, GATE, topics=TOPICS, known=frozenset(TOPICS)) == before


def test_an_article_it_never_learnt_keeps_its_lexical_score() -> None:
    before = scores(("ru-a", 0.3), ("ru-b", 0.9))
    got = judged(Verdict("a", 0.9, True), before, GATE, topics=TOPICS, known=frozenset({"ru-a"}))
    assert got["ru-b"] == before["ru-b"] and got["ru-a"].score == GATE


EXAMPLES = [Example("сколько стоит интернет", ("tariff",), "ru", "tariffs"),
            Example("какие тарифы на интернет", ("tariff",), "ru", "tariffs"),
            Example("интернет пропал не работает", ("broken",), "ru", "broken"),
            Example("нет интернета пропал", ("broken",), "ru", "broken"),
            Example("какая погода завтра", (), "ru", OUT_OF_SCOPE),
            Example("погода на выходные какая", (), "ru", OUT_OF_SCOPE)]


def test_a_trained_model_saves_loads_and_decides_alike(tmp_path: Path) -> None:
    model = train(EXAMPLES, [fingerprint("ru-tariffs", "Тарифы", "текст")])
    path = tmp_path / "m.npz"
    model.save(path)
    again = QuestionClassifier.load(path)
    assert again.labels == model.labels and again.articles == model.articles
    for q, keys in (("сколько стоит интернет в месяц", ("tariff",)), ("погода завтра", ())):
        assert np.allclose(again.probabilities(q, keys, "ru"), model.probabilities(q, keys, "ru"), atol=1e-3)
    assert again.verdict("интернет пропал", ("broken",), "ru").label == "broken"
    assert again.verdict("какая погода", (), "ru").label == OUT_OF_SCOPE


def test_a_file_that_is_no_model_is_one_error_naming_it(tmp_path: Path) -> None:
    bad = tmp_path / "kb_classifier.npz"
    bad.write_bytes(b"not a model")
    with pytest.raises(ValueError, match=f"{bad}: not a question classifier"):
        QuestionClassifier.load(bad)


def test_the_shipped_model_is_the_one_the_labelled_questions_and_the_articles_make() -> None:
    """Retrain (`.venv/bin/python scripts/train_kb_classifier.py`) when this fails: the labelled questions or the
    sample articles changed since the model was trained."""
    rows = shipped.training_rows(shipped.LABELLED.read_text(encoding="utf-8").splitlines())
    assert shipped.DIGEST.read_text().strip() == shipped.digest(rows)
    assert not {r["split"] for r in rows} & shipped.HELD_OUT  # it never learns what it is measured on
    entries, rejects = parse_kb_lines(shipped.ARTICLES.read_bytes().split(b"\n"), KNOWLEDGE)
    assert not rejects
    assert shipped.CLASSIFIER is not None and KNOWLEDGE.classifier is shipped.CLASSIFIER
    assert shipped.CLASSIFIER.articles == {fingerprint(e.id, e.title, c) for e in entries for c in chunk_text(e.text)}


async def test_an_edited_article_is_scored_by_the_lexicon_until_retrained(kb: KnowledgeBase) -> None:
    """An operator adds a sentence to an article: questions about it find it, whatever the model learnt."""
    question = "бесплатный роутер для пенсионеров"
    before = (await kb.search(question, "ru", "KZ-71"))[0]
    assert not (before.entry_id == "ru-router-rent" and (before.relevance or 0.0) >= GATE)  # the model's verdict
    lines = [json.loads(line) for line in shipped.ARTICLES.read_text(encoding="utf-8").splitlines() if line.strip()]
    for e in lines:
        if e["id"] == "ru-router-rent":
            e["text"] += " Новинка: бесплатный роутер для пенсионеров."
    entries, _ = parse_kb_lines([json.dumps(e, ensure_ascii=False) for e in lines], KNOWLEDGE)
    await kb.ingest(entries)
    after = (await kb.search(question, "ru", "KZ-71"))[0]
    assert after.entry_id == "ru-router-rent" and (after.relevance or 0.0) >= GATE
