"""Operator language detector: natural ru/kk/Latin phrasing in, strict "ru"/"kk" or None out."""

import pytest

from policies.operator.language import detect_language, language_change, strict_language

POSITIVE = {
    "русский": "ru",
    "Русский.": "ru",
    "на русском": "ru",
    "по-русски": "ru",
    "ПО РУССКИ!": "ru",
    "орысша": "ru",
    "russian": "ru",
    "russkiy": "ru",
    "po-russki": "ru",
    "давайте на русском пожалуйста": "ru",
    "қазақша": "kk",
    "Қазақша!": "kk",
    "қазақ тілінде": "kk",
    "казахский": "kk",
    "на казахском, пожалуйста": "kk",
    "kazakh": "kk",
    "Kazakhsha": "kk",
    "qazaqsha": "kk",
    "мен қазақша сөйлеймін": "kk",
}
NEGATIVE = ["", "   ", "английский", "Казахстан", "Kazakhstan", "не знаю", "алло", "русский или қазақша", "1"]


@pytest.mark.parametrize(("text", "lang"), POSITIVE.items())
def test_detects(text: str, lang: str) -> None:
    assert detect_language(text) == lang


@pytest.mark.parametrize("text", NEGATIVE)
def test_rejects(text: str) -> None:
    assert detect_language(text) is None


def test_strict_codes_and_natural_text() -> None:
    assert (
        strict_language("ru") == "ru" and strict_language(" KK ") == "kk" and strict_language("kaz") == "kk"
    )
    assert strict_language("қазақша") == "kk"
    assert strict_language("en") is None and strict_language("") is None


def test_language_change_needs_an_explicit_request() -> None:
    assert language_change("давайте на казахском") == "kk"
    assert language_change("можно говорить по-русски?") == "ru"
    assert language_change("қазақша") == "kk"
    # a question that merely mentions a language is not a switch
    assert language_change("есть ли у вас каналы на казахском языке в пакете?") is None
