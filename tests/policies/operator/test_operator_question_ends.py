"""The operator's question completeness at a short pause (`completeness.py`, `question_ends.py`), as ASR gives a
caller's words (no punctuation, fillers, self-corrections, Russian and Kazakh): in READY_TO_HELP a whole question
about something the knowledge base covers is complete (True: the turn may be answered at the pause), one that
stops where more must come is dangling (False: the turn waits for the rest), and a handoff, a goodbye, a change of
language or region or a question with no topic of ours is neither (None: decided speculatively, answered at the
normal end of the utterance)."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ai_operator.dialogue import utterance_complete
from tests.support.policies import operator_route, session


def ready(language: str) -> Any:  # an OperatorSession ready to help, in Russian or Kazakh
    s: Any = session(operator_route())
    s.start()
    for text in ("русский", "караганда") if language == "ru" else ("қазақша", "астана"):
        s.on_utterance(text)
    assert str(s.state) == "READY_TO_HELP"
    return s


WHOLE_RU = [
    "сколько стоит домашний интернет",
    "сколько стоит роуминг",
    "ну а сколько стоит роуминг в турции",
    "у меня не работает интернет",
    "у меня интернет не работает вот",
    "эээ как подключить роуминг",
    "где находится ваш офис",
    "как мне сменить тариф",
    "скажите пожалуйста как пополнить баланс",
    "почему у меня списали деньги с баланса",
    "интернет очень медленный что делать",
    "как перенести номер от другого оператора",
    "не приходят смс что делать",
    "сколько стоит тариф не не роуминг а тариф",
]
WHOLE_KK = [
    "үй интернеті айына қанша тұрады",
    "роуминг қалай қосамын",
    "интернеттің бағасы қанша",
    "үй интернеті туралы білгім келеді",
    "интернет істемей тұр",
    "тарифті қалай ауыстырамын",
    "балансты қалай толтырамын",
    "әлгі роуминг қанша тұрады",
]
DANGLING_RU = [
    "сколько стоит тариф на",
    "сколько стоит интернет и",
    "роуминг в турции или",
    "сколько стоит тариф за две",
    "у меня номер восемь семь ноль",
    "хочу узнать про",
    "эээ у меня вопрос по",
    "сколько стоит интернет ну",
    "сколько стоит роуминг эээ",
    "как подключить роуминг как бы",
    "сколько стоит роуминг то есть",
    "сколько стоит роуминг нет подождите",
    "как подключить интернет для моего",
    "сколько стоит интернет а",
    "я хотел бы",
    "сколько стоит тариф который",
    "сколько стоит роуминг 5",
    "сколько стоит домашний",
    "какой тариф самый выгодный",  # whole, but an adjective may have its noun still to come: it waits
]
DANGLING_KK = [
    "интернеттің",
    "мобильный интернет қанша тұрады немесе",
    "роуминг пен",
    "үй интернеті және",
    "тариф айына бес",
    "интернет бағасы мың",
    "роуминг қанша тұрады әлгі",
    "тарифті ауыстыру дұрысы",
    "роуминг қалай қосамын бірақ",
]
ENDINGS = [  # a goodbye ending on its farewell, a request for a person that does not dangle: nothing left to say
    ("ru", "всё понятно спасибо до свидания"),
    ("ru", "до свидания спасибо"),
    ("ru", "соедините меня с оператором пожалуйста"),
    ("ru", "эээ позовите живого человека"),
    ("kk", "рахмет сау болыңыз"),
    ("kk", "операторға қосыңызшы"),
]
NEITHER = [
    ("ru", "всё понятно спасибо"),  # a goodbye, or a "thank you" before the next question
    ("ru", "спасибо всё"),
    ("ru", "соедините меня с оператором потому что"),
    ("ru", "давайте на казахском"),
    ("ru", "какая погода будет завтра"),
    ("ru", "сколько стоит"),
    ("ru", "у меня вопрос"),
    ("ru", "интернет"),
    ("kk", "менің сұрағым бар"),
]


@pytest.mark.parametrize(("language", "text"), [("ru", t) for t in WHOLE_RU] + [("kk", t) for t in WHOLE_KK])
def test_a_whole_knowledge_base_question_is_complete(language: str, text: str) -> None:
    assert utterance_complete(ready(language), text) is True


@pytest.mark.parametrize(("language", "text"), [("ru", t) for t in DANGLING_RU] + [("kk", t) for t in DANGLING_KK])
def test_a_question_that_stops_where_more_must_come_dangles(language: str, text: str) -> None:
    assert utterance_complete(ready(language), text) is False


@pytest.mark.parametrize(("language", "text"), ENDINGS)
def test_a_goodbye_or_a_handoff_with_nothing_left_to_say_is_complete(language: str, text: str) -> None:
    assert utterance_complete(ready(language), text) is True


@pytest.mark.parametrize(("language", "text"), NEITHER)
def test_a_bare_thanks_a_change_or_no_topic_of_ours_is_left_to_the_end_silence(language: str, text: str) -> None:
    assert utterance_complete(ready(language), text) is None


def test_a_question_is_only_complete_when_the_call_is_ready_to_help() -> None:
    s: Any = session(operator_route())
    s.start()
    assert utterance_complete(s, "сколько стоит домашний интернет") is None  # the language is asked for
    s.on_utterance("русский")
    assert utterance_complete(s, "сколько стоит домашний интернет") is None  # the region is asked for


def test_asking_about_a_question_does_not_change_the_session() -> None:
    s = ready("ru")
    before = copy.deepcopy(s.snapshot())
    for text in WHOLE_RU[:3] + DANGLING_RU[:3]:
        utterance_complete(s, text)
    assert s.snapshot() == before
