"""A caller who answers the language question by simply talking has chosen the language he talks in (issue 27,
class 4, seventh blind round): Russian speech is Russian, Kazakh letters or words are Kazakh, and a region said
in the same breath is taken; a greeting, "алло кто это", a language named or both named are asked again."""

from __future__ import annotations

import pytest

from policies.operator.nlu_language import spoken_language
from policies.operator.selftest_support import session_in
from policies.operator.states import State

SPOKEN = [
    ("да здравствуйте я из павлодара звоню хотел узнать по тарифам", "ru", "KZ-55"),
    ("добрый день я в караганде живу у меня интернет пропал", "ru", "KZ-35"),
    ("у меня интернет не работает", "ru", ""),
    ("ассалаумағалейкум мен ақтөбеденмін интернет жоқ", "kk", "KZ-15"),
    ("сәлеметсіз бе шымкенттен хабарласып тұрмын", "kk", "KZ-79"),
    ("интернет қосу керек еди маган", "kk", ""),
]
NOT_SPOKEN = ["алло алло вы меня слышите", "алло кто это", "здравствуйте девушка", "сәлеметсіз бе", "русский или казахский",
              "орысша немесе қазақша", "hello i need help with internet", "не знаю"]


@pytest.mark.parametrize(("said", "language", "code"), SPOKEN)
def test_the_language_he_talks_in_is_chosen_with_the_region_said(said: str, language: str, code: str) -> None:
    assert spoken_language(said) == language
    s = session_in("LANGUAGE_SELECTION")
    s.on_utterance(said)
    assert s.language == language
    assert s.region_code == code and s.state == (State.READY_TO_HELP if code else State.REGION_SELECTION)


@pytest.mark.parametrize("said", NOT_SPOKEN)
def test_a_greeting_or_a_language_named_is_no_language_spoken(said: str) -> None:
    assert spoken_language(said) is None
    s = session_in("LANGUAGE_SELECTION")
    s.on_utterance(said)
    assert s.state == State.LANGUAGE_SELECTION
