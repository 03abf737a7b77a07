"""Self-test cases for understanding callers as they speak (issue 13, classes 2-5). Pure, no I/O.

Each case drives a real `OperatorSession` with ASR-style phrasings (lower case, fillers, negation,
self-correction, Kazakh case endings, Latin) and checks what the caller meant happened, plus phrasings that
must *not* trigger. The full held-out sets live in `tests/policies/operator/test_operator_understanding_*.py`.
"""

from __future__ import annotations

from ai_operator.dialogue import SelfTestCase
from policies.operator.selftest_support import case, check, session_in

LANGUAGE = {
    "только не на русском": "kk",
    "э по казахски я не понимаю": "ru",
    "орыс тілін білмеймін": "kk",
    "на казахском нет давайте русский": "ru",
    "на государственном языке": "kk",
    "no not russian": "kk",
    "qazaqsha": "kk",
}
LANGUAGE_UNKNOWN = ("русский или казахский", "английский", "алло кто это")
HANDOFF = (
    "соедините с кем нибудь",
    "дайте живого человека",
    "позовите менеджера пожалуйста",
    "маманмен байланыстырыңызшы",
    "тірі адаммен сөйлескім келеді",
    "ты бот соедини с человеком",
)
NOT_HANDOFF = ("оператор не нужен", "какой у вас мобильный оператор", "операторға қоспаңыз")
CLOSING_KK = ("рақмет сау болыңыз", "қош болыңыз", "болды рахмет", "басқа сұрағым жоқ")
NOT_CLOSING_KK = ("қош келдіңіз", "рахмет бірақ тағы сұрағым бар")
CHANGE_KK = {
    "аймақты павлодарға ауыстырыңыз": "KZ-55",
    "облысты өзгерткім келеді қостанай": "KZ-39",
    "шымкентке ауыстырыңызшы": "KZ-79",
}
REGION_SELECTS = {
    "қарағандыданмын": "KZ-35",
    "павлодардамын": "KZ-55",
    "шымкенттенмін": "KZ-79",
    "жамбылская": "KZ-31",
    "не караганда а павлодар": "KZ-55",
    "ақтөбе емес атырау": "KZ-23",
}
REGION_REJECTS = ("на павлодарской улице", "фамилия костанайский", "ерлан актобеев")
ALMATY = {"не город а область": "KZ-19", "қала емес облыс": "KZ-19", "облыс емес": "KZ-75"}


def _language() -> None:
    for text, lang in LANGUAGE.items():
        s = session_in("LANGUAGE_SELECTION")
        s.on_utterance(text)
        check(s.language == lang and s.state.value == "REGION_SELECTION", f"{text!r}: language {s.language!r}")
    for text in LANGUAGE_UNKNOWN:
        s = session_in("LANGUAGE_SELECTION")
        r = s.on_utterance(text)
        check(s.language == "" and "Қазақша" in (r.text or ""), f"{text!r} must re-ask, got {s.language!r}")


def _handoff() -> None:
    for state in ("LANGUAGE_SELECTION", "REGION_SELECTION", "READY_TO_HELP"):
        for text in HANDOFF:
            s = session_in(state)
            r = s.on_utterance(text)
            check(r.transfer and s.state.value == "HANDOFF", f"{text!r} in {state} did not transfer")
    for text in NOT_HANDOFF:
        s = session_in("READY_TO_HELP")
        r = s.on_utterance(text)
        check(not r.transfer and s.state.value != "HANDOFF", f"{text!r} must not transfer")


def _closing_kk() -> None:
    for text in CLOSING_KK:
        s = session_in("READY_TO_HELP", language="қазақша")
        r = s.on_utterance(text)
        check(r.hang_up and s.state.value == "CLOSING", f"{text!r} did not close")
    for text in NOT_CLOSING_KK:
        s = session_in("READY_TO_HELP", language="қазақша")
        r = s.on_utterance(text)
        check(not r.hang_up and s.state.value != "CLOSING", f"{text!r} must not close")


def _change_kk() -> None:
    for text, code in CHANGE_KK.items():
        s = session_in("READY_TO_HELP", language="қазақша")
        s.on_utterance(text)
        check(s.region_code == code, f"{text!r}: region {s.region_code}, expected {code}")
    s = session_in("READY_TO_HELP", language="қазақша")
    s.on_utterance("павлодарда тарифті өзгерту керек пе")
    check(s.region_code == "KZ-35", "a question about a tariff in a city changed the region")


def _regions() -> None:
    for text, code in REGION_SELECTS.items():
        s = session_in("REGION_SELECTION")
        s.on_utterance(text)
        check(s.region_code == code, f"{text!r}: region {s.region_code!r}, expected {code}")
    for text in REGION_REJECTS:
        s = session_in("REGION_SELECTION")
        s.on_utterance(text)
        check(s.region_code == "" and s.state.value == "REGION_SELECTION", f"{text!r} selected {s.region_code}")
    for text, code in ALMATY.items():
        s = session_in("REGION_SELECTION", language="қазақша")
        s.on_utterance("алматыданмын")
        s.on_utterance(text)
        check(s.region_code == code, f"Almaty answer {text!r}: {s.region_code!r}, expected {code}")


def understanding_cases() -> list[SelfTestCase]:
    return [
        case("understanding: language with negation, correction, indirect names; unknown re-asks", _language),
        case("understanding: handoff in other words (ru, kk) from any state; topics do not transfer", _handoff),
        case("understanding: Kazakh goodbye closes; 'welcome' and 'thanks, but' do not", _closing_kk),
        case("understanding: one-step region change in Kazakh", _change_kk),
        case("understanding: regions by Kazakh endings, adjectives, 'not X but Y'; streets and names are not", _regions),
    ]
