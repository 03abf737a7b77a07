"""Issue 13, class 4: goodbye in Kazakh closes the call as the Russian forms do, and a one-step region change in
Kazakh (object before the verb, dative target, "I moved to ...") changes the region as the Russian form does.
Negatives: a thank-you that goes on, "welcome", a question; a change verb about something else in a city, or a
refused change. Driven through `OperatorSession` (start region: Караганда, KZ-35)."""

from __future__ import annotations

import pytest

from ai_operator.dialogue import KnowledgeSearch
from policies.operator.selftest_support import session_in
from policies.operator.states import State

CLOSES = [
    # Kazakh
    ("рақмет сау болыңыз", "қазақша"),
    ("қош болыңыз", "қазақша"),
    ("болды рахмет", "қазақша"),
    ("жарайды рахмет сау болыңыз", "қазақша"),
    ("басқа сұрағым жоқ рахмет", "қазақша"),
    ("жоқ рақмет", "қазақша"),
    ("көп рахмет қош сау болыңыз", "қазақша"),
    ("ештеңе керек емес рахмет", "қазақша"),
    ("рахмет бәрі түсінікті сау болыңыз", "қазақша"),
    ("сау болыңыздар", "қазақша"),
    ("хош болыңыз", "қазақша"),
    ("rakhmet sau bolynyz", "қазақша"),
    ("болды", "қазақша"),
    ("рахмет сізге сау болыңыз", "русский"),  # Kazakh goodbye in a Russian-language call
    # Russian
    ("всё спасибо до свидания", "русский"),
    ("спасибо больше вопросов нет", "русский"),
    ("ну всё пока", "русский"),
    ("нет спасибо это всё", "русский"),
    ("спасибо всего доброго", "қазақша"),
    ("кейін хабарласамын рахмет", "қазақша"),
    ("ладно перезвоню позже", "русский"),
]
GOES_ON = [
    ("қош келдіңіз", "қазақша"),
    ("рахмет бірақ тағы бір сұрақ бар", "қазақша"),
    ("рахмет ал интернет қанша тұрады", "қазақша"),
    ("рахмет сұрағым бар", "қазақша"),
    ("рахмет", "қазақша"),
    ("спасибо а как оплатить", "русский"),
    ("спасибо", "русский"),
    ("пока не работает интернет", "русский"),
]
# (utterance, the new region); the call starts in Караганда (KZ-35)
CHANGES = [
    ("аймақты павлодарға ауыстырыңыз", "KZ-55"),
    ("облысты өзгерткім келеді қостанай", "KZ-39"),
    ("өңірді ақтөбеге ауыстырыңызшы", "KZ-15"),
    ("менің облысымды шымкентке өзгертіңіз", "KZ-79"),
    ("павлодарға ауыстырыңыз", "KZ-55"),
    ("қаланы астанаға ауыстырайық", "KZ-71"),
    ("қарағандыдан павлодарға ауыстырыңыз", "KZ-55"),
    ("мен атырауға көшіп келдім", "KZ-23"),
    ("аймақ қате тараз керек", "KZ-31"),
    ("басқа облыс орал", "KZ-27"),
    ("ну аймақты түркістанға өзгертіңізші", "KZ-61"),
    ("поменяйте пожалуйста область на актобе", "KZ-15"),
    ("я переехал в костанай", "KZ-39"),
    ("переключите на шымкент", "KZ-79"),
    ("регион неправильный я из тараза", "KZ-31"),
    ("с караганды на павлодар поменяйте", "KZ-55"),
]
NOT_CHANGES = [
    "павлодарда тарифті өзгерту керек пе",
    "аймақты өзгертпеңіз",
    "регион менять не надо",
    "как поменять тариф в городе павлодар",
    "шымкентте интернет қанша тұрады",
    "в другом городе есть скидки",
    "павлодарда тариф ауыстыруға бола ма",
    "как изменить пароль в астане",
    "как позвонить в другой город",
    "роуминг в другой области",
    "басқа қалаға қоңырау шалу қанша тұрады",
    "я переехал нужно перенести интернет на новый адрес",
    "басқа тариф бар ма",
]


@pytest.mark.parametrize(("text", "language"), CLOSES)
def test_goodbye_closes(text: str, language: str) -> None:
    s = session_in("READY_TO_HELP", language=language)
    r = s.on_utterance(text)
    assert r.hang_up and r.hang_up_reason == "caller_goodbye" and r.disposition == "completed", text
    assert s.state == State.CLOSING and [c.name for c in r.tool_calls] == ["end_call"]


@pytest.mark.parametrize(("text", "language"), GOES_ON)
def test_thanks_that_goes_on_does_not_close(text: str, language: str) -> None:
    s = session_in("READY_TO_HELP", language=language)
    r = s.on_utterance(text)
    assert not r.hang_up and s.state != State.CLOSING, text


def test_kazakh_goodbye_closes_in_region_selection_too() -> None:
    s = session_in("REGION_SELECTION", language="қазақша")
    r = s.on_utterance("жоқ рахмет қош болыңыз")
    assert r.hang_up and s.state == State.CLOSING and r.language == "kk"


@pytest.mark.parametrize(("text", "code"), CHANGES)
def test_one_step_region_change(text: str, code: str) -> None:
    s = session_in("READY_TO_HELP", language="қазақша")
    r = s.on_utterance(text)
    assert s.region_code == code and s.state == State.READY_TO_HELP, text
    assert [c.name for c in r.tool_calls] == ["set_region"] and r.effect is None


@pytest.mark.parametrize("text", NOT_CHANGES)
def test_not_a_region_change(text: str) -> None:
    s = session_in("READY_TO_HELP")
    r = s.on_utterance(text)
    assert s.region_code == "KZ-35" and not any(c.name == "set_region" for c in r.tool_calls), text
    assert isinstance(r.effect, KnowledgeSearch) and r.effect.scope == {"region": "KZ-35"}


def test_change_without_a_new_region_asks_for_it_in_kazakh() -> None:
    s = session_in("READY_TO_HELP", language="қазақша")
    r = s.on_utterance("аймақты ауыстырғым келеді")
    assert s.region_code == "KZ-35" and "Жаңа өңірді" in r.text
    s.on_utterance("павлодардамын")
    assert s.region_code == "KZ-55"
