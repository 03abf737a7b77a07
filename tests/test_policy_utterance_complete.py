"""`utterance_complete`: at a short pause, is the transcript so far a whole answer for the state the call is in?
The operator says yes only to the short answers its state waits for (a language, a region it can select, a bare
yes/no to an offered specialist, "say that again") and, when it is ready to help, to a whole knowledge-base
question, as ASR gives them; freight to a short turn that does not
dangle. Asking never changes the session, and a policy without the method is "don't know"."""

from __future__ import annotations

import copy
from typing import Any

import pytest

from ai_operator.dialogue import utterance_complete
from tests.support.freight import play, started
from tests.support.policies import operator_route, session


def operator_in(*said: str) -> Any:  # an OperatorSession
    s = session(operator_route())
    s.start()
    for text in said:
        s.on_utterance(text)
    return s


@pytest.mark.parametrize("text", ["русский", "по-русски пожалуйста", "ну давайте на казахском", "қазақша"])
def test_a_language_is_whole_when_the_language_is_asked(text: str) -> None:
    assert utterance_complete(operator_in(), text) is True


@pytest.mark.parametrize("text", ["я хочу", "э", "а можно", "у меня вопрос по тарифу на русском языке если можно",
                                  "спасибо всё", "оператора позовите и"])
def test_no_language_a_long_turn_or_a_goodbye_or_handoff_with_more_to_come_waits(text: str) -> None:
    assert utterance_complete(operator_in(), text) is None


@pytest.mark.parametrize("text", ["оператора позовите", "до свидания", "соедините меня с оператором пожалуйста"])
def test_a_goodbye_or_a_handoff_with_nothing_left_to_say_is_whole_in_any_state(text: str) -> None:
    assert utterance_complete(operator_in(), text) is True
    assert utterance_complete(operator_in("русский"), text) is True


@pytest.mark.parametrize("text", ["караганда", "я из павлодара", "карагандинская область"])
def test_a_region_the_resolver_selects_is_whole(text: str) -> None:
    assert utterance_complete(operator_in("русский"), text) is True


def test_almaty_alone_waits_for_city_or_region_and_the_answer_to_that_is_whole() -> None:
    s = operator_in("русский")
    assert utterance_complete(s, "алматы") is None  # "... область" may follow
    s.on_utterance("алматы")
    assert utterance_complete(s, "город") is True


def test_a_question_the_knowledge_base_has_a_topic_for_is_whole_and_a_repeat_request_too() -> None:
    s = operator_in("русский", "караганда")  # the question sets: tests/policies/operator/test_operator_question_ends.py
    assert utterance_complete(s, "сколько стоит роуминг") is True
    assert utterance_complete(s, "сколько стоит роуминг в") is False  # dangles: waits for the rest
    assert utterance_complete(s, "какая завтра погода") is None  # no topic of ours: decided speculatively
    assert utterance_complete(s, "повторите пожалуйста") is True


def test_asking_does_not_change_the_session() -> None:
    s = operator_in("русский")
    before = copy.deepcopy(vars(s))
    for text in ("караганда", "алматы", "да", "повторите"):
        utterance_complete(s, text)
    assert vars(s).keys() == before.keys()
    assert s.snapshot() == operator_in("русский").snapshot()


@pytest.mark.parametrize("text", ["हाँ जी", "पच्चीस हज़ार रुपये", "ok sir", "नहीं भाई"])
def test_freight_a_short_turn_that_does_not_dangle_is_whole(text: str) -> None:
    s = started()
    play(s, "हाँ जी बोलिए")
    assert utterance_complete(s, text) is True


@pytest.mark.parametrize("text", ["तो मेरा rate लगभग", "मेरा रेट है", "पच्चीस", "बाईस से"])
def test_freight_a_dangling_fragment_is_not_whole(text: str) -> None:
    s = started()
    play(s, "हाँ जी बोलिए")
    assert utterance_complete(s, text) is False


def test_freight_a_long_turn_waits() -> None:
    s = started()
    assert utterance_complete(s, "देखिए भाई इस रूट पर आजकल गाड़ियाँ बहुत कम मिल रही हैं") is None


def test_a_policy_without_the_method_does_not_know() -> None:
    class Plain:
        pass

    assert utterance_complete(Plain(), "да") is None  # type: ignore[arg-type]
