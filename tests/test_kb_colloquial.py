"""Callers' colloquial words for the operator's topics (policies/operator/lexicon_colloquial.py, issue 27 §1): slang,
loanwords, ASR misspellings and Kazakh colloquial forms reach the article that answers them, and the same words
about something that is not ours (gas laid on, a phone repair, a taxi) still get no answer. Questions written as an
ASR returns them; the best national article in the question's language, scored as the knowledge base scores it."""

from __future__ import annotations

import pytest

import policies.operator.lexicon as lexicon
from tests.test_kb_relevance import keys, phrasing_tests

ANSWERED = [
    ("хотим затащить интернет в новую квартиру", "ru-internet-connect"),
    ("как нам организовать интернет домой", "ru-internet-connect"),
    ("можно подрубить инет в частный дом", "ru-internet-connect"),
    ("падключите интернед пожалуйста", "ru-internet-connect"),
    ("инет сдох что делать", "ru-no-internet"),
    ("интернет накрылся вообще ничего не открывается", "ru-no-internet"),
    ("у меня всё вырубилось инета нету", "ru-no-internet"),
    ("расценки на домашний интернет какие", "ru-internet-tariffs"),
    ("расценки на домашку", "ru-internet-tariffs"),
    ("почем инет у вас", "ru-internet-tariffs"),
    ("нужен белый айпишник для видеокамер сколько стоит", "ru-static-ip"),
    ("тв бокс не показывает ничего хдми подключил", "ru-tv-setup"),
    ("преставка просит код активации", "ru-tv-setup"),
    ("переезжаем как перетащить интернет на новый адрес", "ru-moving"),
    ("инет отвалился сделала ребут роутера", "ru-no-internet"),
    ("интернет тупит пинг большой и фризы", "ru-wifi-slow"),
    ("задолжал за инет отрубили когда врубите", "ru-debt-block"),
    ("как положить деньги на счет через квитанцию", "ru-payment-methods"),
    ("поменяли пароль от вайфая а новый пороль не подходит настроить", "ru-router-setup"),
    ("даговор хочу расторгнуть", "ru-contract"),
    ("интернетті қосып беріңізші үйге", "kk-internet-connect"),
    ("интернет кетіп қалды не істеу керек", "kk-no-internet"),
    ("интернет жұмыс жасамайды кешеден бері", "kk-no-internet"),
    ("тарифтердің құны қанша", "kk-internet-tariffs"),
    ("интернетті жаңа пәтерге көштік ауыстыру керек", "kk-moving"),
    ("приставка сигнал жоқ деп тұр хдми", "kk-tv-setup"),
    ("интернет ақырын жүреді вайфай әлсіз", "kk-wifi-slow"),
]

NOT_OURS = [
    "хотим провести газ в частный дом",
    "как организовать доставку продуктов",
    "телефон сдох где починить",
    "вызовите такси на завтра",
    "сколько стоит заменить экран на айфоне",
    "үйге газ тарту қанша тұрады",
    "за квартиру коммуналку как положить деньги на счет",
    "сколько стоит дом в алматы",
    "сколько стоит интернет в самолете",
    "сколько стоит интернет у алтел",
]


test_a_colloquial_question_reaches_its_article, test_the_same_words_about_something_not_ours_get_no_answer = phrasing_tests(
    ANSWERED, NOT_OURS
)


def test_a_verb_that_is_a_connection_only_with_its_object_is_none_alone() -> None:
    assert keys("затащить интернет") == ["connect", "internet"] == keys("организовать интернет")
    assert "connect" not in keys("как организовать праздник")
    assert "broken" in keys("роутер не пашет") and "broken" not in keys("мастер пашет как надо")


def test_colloquial_stems_join_the_concept_of_their_name() -> None:
    block = next(b for b in lexicon.CONCEPTS.split("\n") if b.startswith("router "))
    assert block.startswith("router 1:") and "роутер" in block and "роутор" in block
    with pytest.raises(ValueError, match="no concept nonesuch"):
        lexicon._joined("router 1: роутер", "nonesuch: x")
    assert lexicon._added("router 1: роутер", "landline 1: стационарн").endswith("\nlandline 1: стационарн")
    with pytest.raises(ValueError, match="concept router is in"):
        lexicon._added("router 1: роутер", "router 2: x")
