"""Issue 13, class 5: region false positives and misses. Streets and people's names made from a place do not
select a region; Kazakh ablative/locative forms with a copula, bare adjectives, and "не X, а Y" /
"X емес Y" / "X, нет, Y" do; the Almaty clarification accepts negated answers. Driven through
`OperatorSession` in REGION_SELECTION (and the Almaty question)."""

from __future__ import annotations

import pytest

from policies.operator.regions import resolve_region
from policies.operator.selftest_support import session_in
from policies.operator.states import State

SELECTS = [
    # Kazakh ablative / locative with a copula ("I am from / in ...")
    ("ақтөбеденмін", "KZ-15", "қазақша"),
    ("астанаданмын", "KZ-71", "қазақша"),
    ("қостанайданбыз", "KZ-39", "қазақша"),
    ("мен шымкенттенмін", "KZ-79", "қазақша"),
    ("таразданмын", "KZ-31", "қазақша"),
    ("өскеменненмін", "KZ-63", "қазақша"),
    ("маңғыстаудамын", "KZ-47", "қазақша"),
    ("ну атыраудан", "KZ-23", "қазақша"),
    ("павлодарлықпын", "KZ-55", "қазақша"),
    ("qaragandydanmyn", "KZ-35", "қазақша"),
    # bare adjectives
    ("карагандинская", "KZ-35", "русский"),
    ("павлодарская наверное", "KZ-55", "русский"),
    ("ну костанайская", "KZ-39", "русский"),
    ("актюбинская", "KZ-15", "русский"),
    ("э мангистауская", "KZ-47", "русский"),
    # negation and self-correction: the last stated place wins
    ("не из астаны а из караганды", "KZ-35", "русский"),
    ("павлодар емес қарағанды", "KZ-35", "қазақша"),
    ("караганда нет павлодар", "KZ-55", "русский"),
    ("қостанай жоқ ақтөбе", "KZ-15", "қазақша"),
    ("шымкент то есть туркестанская область", "KZ-61", "русский"),
    ("я не живу в караганде я в павлодаре", "KZ-55", "русский"),
    ("семей вернее усть каменогорск", "KZ-63", "русский"),
    ("қарағанды дұрысы теміртау", "KZ-35", "қазақша"),
    # a place answer that goes on is still the place
    ("я из павлодара не знаю какой тариф", "KZ-55", "русский"),
    ("меня зовут ерлан я из актобе", "KZ-15", "русский"),
]
DOES_NOT_SELECT = [
    "на павлодарской улице",
    "живу на карагандинской улице",
    "по жамбылской трассе",
    "на костанайском проспекте дом пять",
    "моя фамилия павлодарова",
    "фамилия костанайский",
    "ерлан актобеев",
    "меня зовут айгуль шымкентова",
    "тегім қарағандыев",
    "не из павлодара",
    "мен қарағандыдан емеспін",
]
ALMATY = [
    ("не город а область", "KZ-19"),
    ("не город", "KZ-19"),
    ("қала емес облыс", "KZ-19"),
    ("облыс емес қала", "KZ-75"),
    ("город нет область", "KZ-19"),
    ("область вернее город", "KZ-75"),
    ("облысы емес", "KZ-75"),
    ("ну город конечно", "KZ-75"),
    ("қаласы", "KZ-75"),
    ("алматы облысы емес қаласы", "KZ-75"),
    ("не область а сам город", "KZ-75"),
    ("облыста тұрамын", "KZ-19"),
]


@pytest.mark.parametrize(("text", "code", "language"), SELECTS)
def test_region_selected(text: str, code: str, language: str) -> None:
    s = session_in("REGION_SELECTION", language=language)
    r = s.on_utterance(text)
    assert s.region_code == code and s.state == State.READY_TO_HELP, (text, resolve_region(text))
    assert [c.name for c in r.tool_calls] == ["set_region"]


@pytest.mark.parametrize("text", DOES_NOT_SELECT)
def test_no_region_selected(text: str) -> None:
    result = resolve_region(text)
    assert not result.selected and result.reason
    s = session_in("REGION_SELECTION")
    r = s.on_utterance(text)
    assert s.region_code == "" and s.state == State.REGION_SELECTION and "регион" in r.text.lower()


@pytest.mark.parametrize(("text", "code"), ALMATY)
def test_almaty_clarification_accepts_negated_answers(text: str, code: str) -> None:
    for language in ("русский", "қазақша"):
        s = session_in("REGION_SELECTION", language=language)
        s.on_utterance("алматы")
        assert s.awaiting == "almaty"
        s.on_utterance(text)
        assert s.region_code == code and s.state == State.READY_TO_HELP, (text, language)


def test_almaty_unclear_answer_asks_again() -> None:
    s = session_in("REGION_SELECTION")
    s.on_utterance("алматыданмын")
    r = s.on_utterance("не знаю")
    assert s.region_code == "" and s.awaiting == "almaty" and "Алматинская область" in r.text


def test_street_does_not_hide_the_city_named_next_to_it() -> None:
    assert resolve_region("павлодар улица ленина").region_code == "KZ-55"
    assert resolve_region("караганда на павлодарской улице").region_code == "KZ-35"
