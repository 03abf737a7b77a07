"""Operator sessions end to end (pure): greeting, language, region, questions, effects, handoff, closing, idle."""

import json

from ai_operator.dialogue import KnowledgeHit, KnowledgeSearch, KnowledgeUnavailable, ModelTurn, PolicySession
from policies import load_policy
from policies.operator.catalog import GREETING
from policies.operator.permissions import TOOLS
from policies.operator.selftest_support import session_in
from policies.operator.states import State
from tests.support.policies import operator_route, session

POLICY = load_policy("operator")
HIT = KnowledgeHit(
    "e1",
    "Тарифы на интернет",
    "Прайс-лист 2024",
    "Тариф стоит 5990 тенге. Скорость 100 Мбит. Ещё.",
    0.8,
    "ru",
)


def new(**options):
    return session(operator_route(), **options)


def test_policy_object() -> None:
    assert POLICY.name == "operator" and POLICY.languages == ("ru", "kk")
    assert POLICY.turn_fields == ("state", "language", "region_code")
    assert POLICY.state_field == "state" and POLICY.route_options == {}
    assert {t.name for t in POLICY.tools} == set(TOOLS)  # the model is offered exactly the matrix's tools
    s = new()
    assert isinstance(s, PolicySession) and s.hold_s == 0 and s.utterance_may_continue("и ещё") is False


def test_full_russian_conversation_to_a_question() -> None:
    s = new()
    r = s.start()
    assert r.text == GREETING and r.language == "ru" and r.fields["state"] == "LANGUAGE_SELECTION"
    r = s.on_utterance("давайте на русском пожалуйста")
    assert r.fields == {"state": "REGION_SELECTION", "language": "ru", "region_code": ""}
    assert [(c.name, c.allowed) for c in r.tool_calls] == [("set_language", True)]
    r = s.on_utterance("я из Караганды")
    assert r.fields["region_code"] == "KZ-35" and "Карагандинская область" in r.text
    assert [(c.name, c.allowed) for c in r.tool_calls] == [("set_region", True)]
    r = s.on_utterance("Сколько стоит домашний интернет?")
    assert r.effect == KnowledgeSearch("Сколько стоит домашний интернет?", "ru", {"region": "KZ-35"})
    assert r.fields["state"] == "QUESTION_ANSWERING" and r.text is None
    assert [(c.name, c.allowed) for c in r.tool_calls] == [("search_knowledge_base", True)]


def test_full_kazakh_conversation_to_a_question() -> None:
    s = new()
    s.start()
    r = s.on_utterance("қазақша")
    assert r.language == "kk" and "облыс" in r.text.lower()
    r = s.on_utterance("Шымкенттен")
    assert r.language == "kk" and "Шымкент қаласы" in r.text
    r = s.on_utterance("Интернет қанша тұрады?")
    assert r.effect == KnowledgeSearch("Интернет қанша тұрады?", "kk", {"region": "KZ-79"}, fallback_languages=("ru",))


def test_unclear_language_reasks_bilingually_and_dtmf_selects() -> None:
    s = new()
    s.start()
    r = s.on_utterance("алло, кто это?")
    assert s.state == State.LANGUAGE_SELECTION and "русский" in r.text and "Қазақша" in r.text
    r = s.on_dtmf("2")
    assert s.language == "kk" and s.state == State.REGION_SELECTION


def test_region_not_found_reasks_and_almaty_is_clarified() -> None:
    s = session_in("REGION_SELECTION")
    r = s.on_utterance("Москва")
    assert s.state == State.REGION_SELECTION and "Не удалось определить регион" in r.text
    r = s.on_utterance("Алматы")
    assert "город Алматы или Алматинская область" in r.text and s.region_code == ""
    r = s.on_utterance("город")
    assert s.region_code == "KZ-75" and s.state == State.READY_TO_HELP


def test_question_mentioning_a_city_keeps_region_explicit_change_applies() -> None:
    s = session_in("READY_TO_HELP")
    r = s.on_utterance("а в Павлодаре есть скидки?")
    assert (
        isinstance(r.effect, KnowledgeSearch) and r.effect.scope == {"region": "KZ-35"} and s.region_code == "KZ-35"
    )
    s.on_effect_result([])
    s.on_utterance("смените регион на Павлодар")
    assert s.region_code == "KZ-55" and s.state == State.READY_TO_HELP
    s.on_utterance("басқа аймақ")
    assert s.region_code == "KZ-55"
    s.on_utterance("Актобе")
    assert s.region_code == "KZ-15"
    r = s.on_utterance("Как поменять тариф в городе Павлодар?")  # a question with a change verb
    assert isinstance(r.effect, KnowledgeSearch)
    assert r.effect.scope == {"region": "KZ-15"} and s.region_code == "KZ-15"


def test_language_change_in_ready() -> None:
    s = session_in("READY_TO_HELP")
    r = s.on_utterance("давайте на казахском")
    assert s.language == "kk" and r.language == "kk" and r.effect is None and s.region_code == "KZ-35"


def test_no_knowledge_base_is_said_not_faked() -> None:
    s = session_in("READY_TO_HELP")
    s.on_utterance("Как оплатить счёт?")
    r = s.on_effect_result(None)
    assert "база знаний" in r.text and "не подключена" in r.text and "оператор" in r.text
    assert s.state == State.READY_TO_HELP


def test_nothing_found_offers_a_human() -> None:
    s = session_in("READY_TO_HELP", language="қазақша")
    s.on_utterance("Роуминг қалай қосылады?")
    r = s.on_effect_result([])
    assert "ақпарат жоқ" in r.text and "маманға" in r.text and "оператор" in r.text.lower() and r.language == "kk"
    assert r.fields["answer"] == "no_answer" and r.fields["relevance"] == 0.0


def test_hits_answer_names_the_source_and_is_short() -> None:
    s = session_in("READY_TO_HELP")
    s.on_utterance("Сколько стоит тариф?")
    r = s.on_effect_result([HIT, KnowledgeHit("e2", "Старое", "Архив", "Не то.", 0.1, "ru")])
    assert r.text.startswith("По данным справки «Тарифы на интернет»:\nТариф стоит 5990 тенге.\nСкорость 100 Мбит.\n")
    assert "Ещё." not in r.text and "Архив" not in r.text
    # the citation travels with the reply, best first
    assert [c["id"] for c in r.fields["citations"]] == ["e1", "e2"]
    assert r.fields["citations"][0]["source"] == "Прайс-лист 2024"
    assert s.state == State.READY_TO_HELP and r.fields["state"] == "READY_TO_HELP"


def test_kazakh_caller_with_russian_fallback_hit_gets_the_note() -> None:
    s = session_in("READY_TO_HELP", language="қазақша")
    s.on_utterance("Тариф қанша?")
    hit = KnowledgeHit("e1", "Тарифы", "Прайс", "Тариф стоит 5990 тенге.", 0.8, "ru", fallback=True)
    r = s.on_effect_result([hit])
    note = r.text.index("орыс тілінде ғана бар")
    assert note < r.text.index("«Тарифы» анықтамасы бойынша") < r.text.index("Тариф стоит")
    assert r.fields["answer"] == "kb_fallback"
    assert r.fields["citations"][0]["fallback"] is True


def test_model_path_denial_before_region_then_model_turn_and_fallback() -> None:
    s = new(model_available=True)
    s.start()
    s.on_utterance("русский")
    denied = s.call_tool("search_knowledge_base", {"query": "тариф"})
    assert not denied.allowed and denied.effect is None
    assert s.snapshot()["history"][-1]["allowed"] is False
    s.on_utterance("Павлодар")
    r = s.on_utterance("Сколько стоит интернет?")
    # the policy searches first (the session's language and region), then asks the model once with the hits
    assert r.effect == KnowledgeSearch("Сколько стоит интернет?", "ru", {"region": "KZ-55"})
    assert [(c.name, c.allowed) for c in r.tool_calls] == [("search_knowledge_base", True)]
    r = s.on_effect_result([HIT])
    assert isinstance(r.effect, ModelTurn) and r.effect.purpose == "answer"
    user, searched, found = r.effect.messages
    assert user == {"role": "user", "content": "Сколько стоит интернет?"}
    assert searched["tool_calls"][0]["function"]["name"] == "search_knowledge_base"
    assert found["role"] == "tool" and found["tool_call_id"] == searched["tool_calls"][0]["id"]
    assert json.loads(found["content"])[0]["source"] == "Прайс-лист 2024"
    assert "search_knowledge_base" in {t.name for t in r.effect.tools} and "QUESTION_ANSWERING" in r.effect.system
    assert "KZ-55" in r.effect.system and "already been searched" in r.effect.system and r.effect.fallback
    r = s.on_effect_result(None)  # the model failed: the policy's own hits are read out, no second search
    assert r.effect is None
    assert "Тарифы на интернет" in r.text and r.fields["citations"][0]["source"] == "Прайс-лист 2024"
    assert s.state == State.READY_TO_HELP


def test_model_answer_from_the_policys_search_is_recorded_with_its_citations() -> None:
    s = session_in("READY_TO_HELP", model_available=True)
    r = s.on_utterance("ну сколько стоит интернет")
    assert isinstance(r.effect, KnowledgeSearch)
    r = s.on_effect_result([HIT])
    assert isinstance(r.effect, ModelTurn)
    r = s.on_effect_result("Интернет стоит от пяти тысяч тенге.")
    assert r.text == "Интернет стоит от пяти тысяч тенге." and r.effect is None
    assert [c["source"] for c in r.fields["citations"]] == ["Прайс-лист 2024"]


def test_model_turn_with_nothing_found_tells_the_model_so_and_cites_nothing() -> None:
    s = session_in("READY_TO_HELP", model_available=True)
    s.on_utterance("а можно заказать пиццу")
    r = s.on_effect_result([])
    assert isinstance(r.effect, ModelTurn) and r.effect.messages[-1]["content"] == "[]"
    r = s.on_effect_result("По этому вопросу у меня нет информации. Соединить со специалистом?")
    assert r.text and "citations" not in r.fields


def test_model_turn_with_the_knowledge_base_down_is_not_asked() -> None:
    s = session_in("READY_TO_HELP", model_available=True)
    s.on_utterance("сколько стоит интернет")
    r = s.on_effect_result(KnowledgeUnavailable("timeout"))
    assert r.effect is None and r.fields["answer"] == "kb_unavailable"


def test_model_text_is_spoken_and_model_handoff_transfers() -> None:
    s = session_in("READY_TO_HELP", model_available=True)
    s.on_utterance("Вопрос про тариф")
    s.on_effect_result([HIT])  # the policy's search, then the model
    r = s.on_effect_result("Тариф стоит 5990 тенге.")
    assert r.text == "Тариф стоит 5990 тенге." and s.state == State.READY_TO_HELP
    s.on_utterance("Ещё вопрос")
    s.on_effect_result([HIT])
    s.call_tool("request_human_handoff", {})
    r = s.on_effect_result("Соединяю.")
    assert r.transfer and s.state == State.HANDOFF
    assert [c.name for c in r.tool_calls] == ["request_human_handoff"]


def test_handoff_by_voice_and_dtmf_is_idempotent() -> None:
    s = session_in("REGION_SELECTION")
    r = s.on_utterance("соедините с живым человеком")
    assert r.transfer and s.state == State.HANDOFF and "оператор" in r.text
    r = s.on_dtmf("0")
    assert not r.transfer and s.state == State.HANDOFF and r.tool_calls[0].allowed
    k = session_in("READY_TO_HELP", language="қазақша")
    assert k.on_utterance("оператормен байланыстырыңыз").transfer
    assert session_in("READY_TO_HELP").on_utterance("хочу адаммен сөйлесу").transfer


def test_closing_phrases_hang_up() -> None:
    for text, lang in [("Всё, спасибо", "русский"), ("до свидания", "русский"), ("сау болыңыз", "қазақша")]:
        s = session_in("READY_TO_HELP", language=lang)
        r = s.on_utterance(text)
        assert r.hang_up and r.hang_up_reason == "caller_goodbye" and r.disposition == "completed"
        assert s.state == State.CLOSING and [c.name for c in r.tool_calls] == ["end_call"]


def test_idle_reprompts_then_give_up_and_speech_resets() -> None:
    s = session_in("REGION_SELECTION")
    assert "область или город" in s.on_silence().text
    s.on_utterance("не знаю")  # speech resets the counter
    r1, r2, r3 = s.on_silence(), s.on_silence(), s.on_silence()
    assert not r1.hang_up and not r2.hang_up
    assert r3.hang_up and r3.disposition == "no_input" and "не слышу" in r3.text and s.state == State.CLOSING
    lang = session_in("LANGUAGE_SELECTION").on_silence()
    assert "русский" in lang.text and "қазақша" in lang.text


def test_not_heard_keeps_state() -> None:
    s = session_in("READY_TO_HELP")
    r = s.on_not_heard()
    assert "не расслышал" in r.text and "повторите" in r.text.lower() and s.state == State.READY_TO_HELP


def test_call_ended_is_final_and_idempotent() -> None:
    s = session_in("QUESTION_ANSWERING")
    s.on_call_ended("caller")
    s.on_call_ended("bot")
    assert s.state == State.ENDED and s.ended_by == "caller"
    assert s.on_utterance("оператор").text is None and s.state == State.ENDED
    assert s.on_effect_result([HIT]).text is None
    snap = s.snapshot()
    assert snap["state"] == "ENDED" and snap["region_code"] == "KZ-35" and isinstance(snap["history"], list)


def test_misunderstood_turns_in_a_row_hand_off_or_say_goodbye() -> None:
    """MAX_MISUNDERSTOOD_TURNS: after that many re-asks in a row the policy hands off (or, with no handoff
    target, says goodbye through CallEnd); an understood turn resets the count."""
    s = new(max_misunderstood_turns=3)
    s.start()
    for heard in ("ээ как бы", "алло алло"):
        r = s.on_utterance(heard)
        assert not r.transfer and not r.hang_up and s.state == State.LANGUAGE_SELECTION
    r = s.on_utterance("ну это самое")
    assert r.transfer and s.state == State.HANDOFF and r.fields["escalation"] == "misunderstood"

    s = session(operator_route(handoff=False), max_misunderstood_turns=2)
    s.start()
    s.on_utterance("русский")
    assert not s.on_utterance("марс").hang_up
    r = s.on_utterance("юпитер")
    assert r.hang_up and r.disposition == "misunderstood" and s.state == State.CLOSING
    assert "Извините, я не могу вас понять" in r.text

    s = new(max_misunderstood_turns=2)
    s.start()
    s.on_utterance("русский")
    s.on_utterance("марс")
    s.on_utterance("караганда")  # understood: the count starts again
    s2 = s.on_utterance("какой тариф на интернет")
    assert not s2.transfer and not s2.hang_up
