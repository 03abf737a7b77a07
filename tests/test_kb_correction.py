"""What the caller settled on (policies/operator/kb_correction.py, pure): the later clause of a self-correction
or of a "not X but Y" contrast is what the knowledge base is asked; everything else is kept as said."""

from __future__ import annotations

import pytest

from policies.operator.kb_correction import settled_question
from policies.operator.kb_query import knowledge_query


@pytest.mark.parametrize(("said", "settled"), [
    ("не не тариф а баланс как проверить", "баланс как проверить"),
    ("не про оплату за интернет а про роутер", "про роутер"),
    ("сколько стоит ой нет подождите как баланс узнать", "как баланс узнать"),
    ("тариф хочу поменять вернее договор расторгнуть", "договор расторгнуть"),
    ("тариф емес теңгерім туралы айтыңызшы", "теңгерім туралы айтыңызшы"),
    ("төлем туралы жоқ кешіріңіз роутерді қалай баптаймын", "роутерді қалай баптаймын"),
])
def test_the_later_clause_wins(said: str, settled: str) -> None:
    assert settled_question(said) == settled


@pytest.mark.parametrize("said", [
    "интернет не работает а роутер горит красным",  # a negated verb, not a contrast of topics
    "нет интернета уже два дня",  # a bare "нет" is no correction
    "интернет то есть то нет уже неделю",  # on and off
    "төлем түскен емес интернет өшті",  # "емес" after a participle negates the verb
    "интернетті қосу мүмкін емес пе",  # nothing after "емес"
    "не работает ой нет подождите",  # nothing of content after the marker
])
def test_what_is_no_correction_is_kept_as_said(said: str) -> None:
    assert settled_question(said) == said


def test_the_knowledge_query_drops_the_taken_back_place_too() -> None:
    assert knowledge_query("не про астану а про павлодар где офис", "ru") == "про Павлодарская где офис"


@pytest.mark.parametrize("said", [
    "договор расторгнуть хочу то есть вообще отключиться",  # restated, no topic of its own: both parts
    "тарифті ауыстыру яғни өзгерту керек",
])
def test_a_clarifier_without_a_topic_of_its_own_keeps_both_parts(said: str) -> None:
    assert settled_question(said) == said


def test_a_clarifier_before_a_topic_of_its_own_still_cuts() -> None:
    assert settled_question("подключить побыстрее в смысле тариф поменять") == "тариф поменять"
