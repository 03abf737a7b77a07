"""Issue 13, class 2: the caller chooses the service language the way people say it (ASR form: lower case, no
punctuation, fillers, code-switching), with negation, "I don't understand X", self-correction (the last stated
choice wins), indirect names, and a clear unknown (the bilingual re-ask). Driven through `OperatorSession`."""

from __future__ import annotations

import pytest

from policies.operator.nlu_language import understand_language
from policies.operator.selftest_support import session_in
from policies.operator.states import State

# (caller's answer to the greeting, the language that must be chosen)
CHOOSES = [
    # Russian
    ("ну давайте по русски", "ru"),
    ("только не на русском пожалуйста", "kk"),
    ("э по казахски я не понимаю", "ru"),
    ("казахский я плохо знаю", "ru"),
    ("мне проще на родном казахском", "kk"),
    ("казахский ой нет русский", "ru"),
    ("на государственном языке пожалуйста", "kk"),
    ("на русском то есть на казахском", "kk"),
    ("не на казахском а на русском", "ru"),
    ("слушайте мне сложно по русски", "kk"),
    ("без русского", "kk"),
    ("я казах давайте на казахском", "kk"),
    ("на казахском вернее на русском", "ru"),
    ("как бы на русском наверное", "ru"),
    ("лучше по русски чем по казахски", "ru"),
    ("я по русски вообще не говорю", "kk"),
    # Kazakh
    ("орысша түсінбеймін", "kk"),
    ("қазақша сөйлейік", "kk"),
    ("мен орыс тілін білмеймін", "kk"),
    ("қазақ тілінде емес орысша", "ru"),
    ("қазақша дұрысы орысша", "ru"),
    ("мемлекеттік тілде сөйлесейік", "kk"),
    ("ана тілімде", "kk"),
    ("орысша жоқ қазақша", "kk"),
    ("қазақша жақсы білмеймін", "ru"),
    ("әлгі қазақша", "kk"),
    ("казакша", "kk"),  # Kazakh typed with Russian look-alike letters
    ("бiлмеймiн орысша", "kk"),  # Latin i inside a Cyrillic word
    # Latin / English / code-switching
    ("kazakh please", "kk"),
    ("no not russian", "kk"),
    ("qazaq tilinde", "kk"),
    ("russian no kazakh", "kk"),
    ("i dont understand kazakh", "ru"),
    ("not kazakh", "ru"),
    ("po russki pozhaluysta", "ru"),
    ("ok давайте qazaqsha", "kk"),
]
# Not a choice: the bilingual re-ask, language still unset.
UNKNOWN = [
    "русский или казахский не знаю",
    "английский можно",
    "english please",
    "алло алло",
    "казахстан",
    "на родном",
    "ммм э",
    "қай тілде сөйлейсіз",
    "мне без разницы",
    "орысша немесе қазақша",
]


@pytest.mark.parametrize(("text", "lang"), CHOOSES)
def test_language_chosen_from_the_greeting(text: str, lang: str) -> None:
    s = session_in("LANGUAGE_SELECTION")
    r = s.on_utterance(text)
    assert s.language == lang and s.state == State.REGION_SELECTION, understand_language(text)
    assert r.language == lang and [c.name for c in r.tool_calls] == ["set_language"]


@pytest.mark.parametrize("text", UNKNOWN)
def test_no_choice_is_an_explicit_unknown_and_reasks(text: str) -> None:
    result = understand_language(text)
    assert not result.selected and result.value is None and result.reason
    s = session_in("LANGUAGE_SELECTION")
    r = s.on_utterance(text)
    assert s.language == "" and s.state == State.LANGUAGE_SELECTION
    assert "русский" in r.text and "Қазақша" in r.text  # bilingual re-ask


def test_unsupported_language_is_told_apart_from_nothing() -> None:
    assert understand_language("английский").status == "unsupported"
    assert understand_language("алло").status == "unknown"


@pytest.mark.parametrize(
    ("start", "text", "lang"),
    [
        ("русский", "я по русски не понимаю", "kk"),
        ("русский", "давайте на государственном языке", "kk"),
        ("русский", "орысша түсінбеймін", "kk"),
        ("қазақша", "мен қазақша білмеймін орысша", "ru"),
        ("қазақша", "по казахски плохо понимаю", "ru"),
        ("қазақша", "не на казахском пожалуйста", "ru"),
    ],
)
def test_switch_after_the_choice(start: str, text: str, lang: str) -> None:
    s = session_in("READY_TO_HELP", language=start)
    r = s.on_utterance(text)
    assert s.language == lang and r.language == lang and r.effect is None and s.region_code == "KZ-35"


@pytest.mark.parametrize(
    "text",
    [
        "есть ли каналы на казахском языке",
        "сколько стоит пакет с русскими каналами",
        "қазақша арналар бар ма",
        "как сказать по казахски спасибо",
        "у вас договор на русском или на казахском",
        "русский канал",
        "орысша арналар",
        "қазақша арналар қанша",
    ],
)
def test_a_question_mentioning_a_language_is_not_a_switch(text: str) -> None:
    s = session_in("READY_TO_HELP")
    r = s.on_utterance(text)
    assert s.language == "ru" and r.effect is not None  # asked as a question


def test_language_and_region_in_one_answer() -> None:
    s = session_in("LANGUAGE_SELECTION")
    r = s.on_utterance("по казахски не понимаю я из павлодара")
    assert s.language == "ru" and s.region_code == "KZ-55" and s.state == State.READY_TO_HELP
    assert [c.name for c in r.tool_calls] == ["set_language", "set_region"]
    k = session_in("LANGUAGE_SELECTION")
    k.on_utterance("қазақша алматыданмын")
    assert k.language == "kk" and k.awaiting == "almaty" and k.region_code == ""
