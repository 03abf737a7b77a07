"""Issue 13, class 3: a caller asking for a person in other words (specialist, live operator, human, manager,
consultant, someone; Kazakh case endings and polite imperatives; refusing the bot) is transferred from any
non-ended state, language and region selection included, and is never taken as a region answer. Phrases that
only mention a person as a topic, or refuse a transfer, do not transfer. Driven through `OperatorSession`."""

from __future__ import annotations

import pytest

from policies.operator.selftest_support import session_in
from policies.operator.states import State

ASKS = [
    # Russian
    "соедините со специалистом пожалуйста",
    "позовите живого оператора",
    "дайте менеджера",
    "мне нужен консультант",
    "э можно с человеком поговорить",
    "переключите на оператора",
    "ты бот соедини с человеком",
    "хочу поговорить с кем нибудь из сотрудников",
    "не хочу с роботом разговаривать",
    "свяжите меня с живым человеком",
    "оператора позовите пожалуйста срочно",
    "а можно специалиста",
    "девушка соедините с кем то",
    "пригласите сотрудника",
    "с машиной не буду говорить дайте человека",
    "я не понимаю соедините с менеджером",
    # Kazakh
    "маманға қосыңызшы",
    "операторды шақырыңызшы",
    "тірі адаммен сөйлескім келеді",
    "кеңесшімен байланыстырыңыз",
    "қызметкерге жалғаңызшы",
    "маған оператор керек",
    "адамға қосыңыз өтінемін",
    "роботпен сөйлескім келмейді",
    "біреумен сөйлесейін",
    "менеджерге қосыңызшы",
    "мамандарыңызбен байланыстырыңызшы",
    "қызметкермен сөйлескім келеді",
    "тірі адам бар ма",
    "операторға жалғап жіберіңізші",
    "мен роботпен емес адаммен сөйлескім келеді",
    # Latin / English
    "operatorga qosynyzshy",
    "operator kerek",
    "connect me to a human please",
    "i want to talk to a real person",
]
NOT_ASKS = [
    "оператор не нужен",
    "не надо соединять с оператором",
    "какой у вас мобильный оператор",
    "когда специалист приедет на дом",
    "тариф на троих человек",
    "ты бот",
    "вы не робот",
    "как стать оператором",
    "операторға қоспаңыз",
    "маман керек емес",
    "екі адамға арналған тариф",
    "байланыс операторы кім",
    "оператор связи казахтелеком",
    "можно ли оплатить у оператора",
    "я живу в павлодаре",
    "сколько человек могут подключиться",
    "маманды үйге шақыру керек",
    "маман үйге қашан келеді",
    "нужен ли специалист для подключения",
    "менеджер сказал что будет скидка",
    "можно ли перенести договор на другого человека",
    "у вас есть тариф на двух человек",
    "маман қашан келеді",
]
STATES = ["LANGUAGE_SELECTION", "REGION_SELECTION", "READY_TO_HELP", "QUESTION_ANSWERING"]


@pytest.mark.parametrize("state", STATES)
@pytest.mark.parametrize("text", ASKS)
def test_asking_for_a_person_transfers_from_any_state(text: str, state: str) -> None:
    s = session_in(state)
    region_before = s.region_code
    r = s.on_utterance(text)
    assert r.transfer and s.state == State.HANDOFF, f"{text!r} in {state}"
    assert [c.name for c in r.tool_calls] == ["request_human_handoff"] and r.tool_calls[0].allowed
    assert s.region_code == region_before  # never taken as a region answer
    assert r.effect is None and r.text


@pytest.mark.parametrize("text", NOT_ASKS)
def test_a_person_as_a_topic_or_a_refused_transfer_does_not_transfer(text: str) -> None:
    for state in ("REGION_SELECTION", "READY_TO_HELP"):
        s = session_in(state)
        r = s.on_utterance(text)
        assert not r.transfer and s.state != State.HANDOFF, f"{text!r} in {state}"


def test_handoff_in_kazakh_speaks_kazakh_and_repeating_is_idempotent() -> None:
    s = session_in("REGION_SELECTION", language="қазақша")
    r = s.on_utterance("маманмен байланыстырыңызшы")
    assert r.transfer and r.language == "kk" and "оператор" in r.text.lower()
    again = s.on_utterance("операторға қосыңыз")
    assert not again.transfer and s.state == State.HANDOFF and again.text


def test_no_handoff_target_is_said_not_faked() -> None:
    s = session_in("READY_TO_HELP", handoff_available=False)
    r = s.on_utterance("соедините со специалистом")
    assert not r.transfer and s.state == State.READY_TO_HELP and "невозможно" in r.text
