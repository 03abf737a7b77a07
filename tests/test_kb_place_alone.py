"""A place alone is not an answer (ai_operator/kb/relevance.py): an article that shares only the place the caller
named (a regional article names its towns) covers nothing of what was asked, however much the place weighs in a
question about where something is; with the thing asked covered too, the place still counts. Questions as an ASR
returns them, ru and kk, through the operator's query (places named become their region's word)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ai_operator.kb.relevance import RELEVANCE_GATE
from policies.operator.confirmation import CONFIRM_SHARE
from policies.operator.kb_query import knowledge_query
from policies.operator.knowledge import SCORER

SAMPLE = Path(__file__).resolve().parent.parent / "etc" / "kb" / "sample.jsonl"
ENTRIES = {e["id"]: e for e in (json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip())}


def relevance(question: str, language: str, entry: str) -> float:
    e = ENTRIES[f"{language}-{entry}"]
    return SCORER.relevance(knowledge_query(question, language), e["title"], e["text"]).score


ONLY_THE_PLACE = [  # (language, question, the regional article that names the place and nothing asked)
    ("ru", "в караганде есть ваш офис где находится", "outage-karaganda"),
    ("ru", "в темиртау где ваш сервисный центр", "outage-karaganda"),
    ("ru", "слушайте а в караганде куда подойти договор подписать", "outage-karaganda"),
    ("ru", "эээ в караганде можно номер телефона сохранить если переезжаю", "outage-karaganda"),
    ("ru", "какие тарифы на мобильную связь в павлодаре", "centre-pavlodar"),
    ("ru", "ну в астане роуминг как подключить", "centre-astana"),
    ("ru", "в павлодаре роуминг в турции сколько стоит", "centre-pavlodar"),
    ("kk", "қарағандыда орталықтарың бар ма мекенжайы қандай", "outage-karaganda"),
    ("kk", "теміртауда кеңселерің бар ма мекенжайы қандай", "outage-karaganda"),
    ("kk", "павлодарда үй интернетінің тарифтері қандай", "centre-pavlodar"),
    ("kk", "астанада роутерді қалай баптаймын", "centre-astana"),
]
PLACE_AND_TOPIC = [  # the same places with what the article is about: still answered
    ("ru", "в караганде будут плановые работы интернет отключат", "outage-karaganda"),
    ("ru", "где ваш сервисный центр в павлодаре", "centre-pavlodar"),
    ("ru", "адрес сервисного центра в астане", "centre-astana"),
    ("kk", "павлодардағы сервистік орталық қай жерде", "centre-pavlodar"),
    ("kk", "астанада сервистік орталықтың мекенжайы қандай", "centre-astana"),
]


@pytest.mark.parametrize(("language", "question", "entry"), ONLY_THE_PLACE)
def test_an_article_that_shares_only_the_place_is_not_even_near(language: str, question: str, entry: str) -> None:
    assert relevance(question, language, entry) < CONFIRM_SHARE * RELEVANCE_GATE


@pytest.mark.parametrize(("language", "question", "entry"), PLACE_AND_TOPIC)
def test_the_place_with_the_thing_asked_is_answered(language: str, question: str, entry: str) -> None:
    assert relevance(question, language, entry) >= RELEVANCE_GATE
