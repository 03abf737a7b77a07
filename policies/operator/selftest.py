"""The operator's `dialogue-self-test` cases: scripted conversations plus the rule checks. Pure, no I/O."""

from __future__ import annotations

from ai_operator.dialogue import KnowledgeHit, KnowledgeSearch, ModelTurn, SelfTestCase
from policies.operator.selftest_rules import rule_cases
from policies.operator.selftest_support import case, check, session_in
from policies.operator.selftest_understanding import understanding_cases
from policies.operator.session import OperatorSession

HIT = KnowledgeHit(
    "kb-1",
    "Тарифы на интернет",
    "Тарифы 2024",
    "Тариф «Домашний» стоит 5990 тенге. Скорость 100 Мбит/с. Подключение бесплатно.",
    0.9,
    "ru",
)


def _conversation(language: str, region: str, code: str, lang: str) -> None:
    s = OperatorSession("selftest")
    r = s.start()
    check(
        "Выберите язык обслуживания" in (r.text or "") and s.state.value == "LANGUAGE_SELECTION", "greeting"
    )
    r = s.on_utterance(language)
    check(s.language == lang and s.state.value == "REGION_SELECTION", f"language {language!r} not selected")
    check(bool(r.tool_calls) and r.tool_calls[0].name == "set_language", "set_language not listed in tool_calls")
    r = s.on_utterance(region)
    check(s.region_code == code and s.state.value == "READY_TO_HELP", f"region {region!r} not {code}")
    r = s.on_utterance("сколько стоит интернет?" if lang == "ru" else "интернет қанша тұрады?")
    search = r.effect
    check(isinstance(search, KnowledgeSearch), "a question must emit KnowledgeSearch")
    assert isinstance(search, KnowledgeSearch)
    check(search.language == lang and search.scope == {"region": code}, f"search carries {search}")
    r = s.on_effect_result([HIT])
    check(HIT.title in (r.text or "") and s.state.value == "READY_TO_HELP", f"answer: {r.text}")
    check(r.fields.get("citations", [{}])[0].get("source") == HIT.source, f"citation missing: {r.fields}")


def _almaty_flow() -> None:
    s = session_in("REGION_SELECTION")
    r = s.on_utterance("Алматы")
    check("Алматинская область" in (r.text or "") and not s.region_code, "no clarification for Алматы")
    s.on_utterance("область")
    check(s.region_code == "KZ-19" and s.state.value == "READY_TO_HELP", f"область -> {s.region_code}")
    k = session_in("REGION_SELECTION", language="қазақша")
    k.on_utterance("Алматы")
    k.on_utterance("қала")
    check(k.region_code == "KZ-75", f"қала -> {k.region_code}")


def _region_change() -> None:
    s = session_in("READY_TO_HELP")
    r = s.on_utterance("а в Павлодаре есть скидки?")
    check(s.region_code == "KZ-35" and isinstance(r.effect, KnowledgeSearch), "a question changed the region")
    s.on_effect_result([])
    s.on_utterance("смените регион на Павлодар")
    check(s.region_code == "KZ-55", "explicit change to Павлодар ignored")
    r = s.on_utterance("другой регион")
    check(s.region_code == "KZ-55" and "новый регион" in (r.text or ""), "'другой регион' should ask for one")
    s.on_utterance("Шымкент")
    check(s.region_code == "KZ-79", "new region after 'другой регион' not applied")


def _handoff_idempotent() -> None:
    s = session_in("READY_TO_HELP")
    r1 = s.on_utterance("соедините с оператором")
    check(r1.transfer and s.state.value == "HANDOFF", "first handoff did not transfer")
    c = s.call_tool("request_human_handoff", {})
    check(c.allowed and "already" in c.reason and s.state.value == "HANDOFF", f"second handoff: {c.reason}")


def _ended_immutable() -> None:
    s = session_in("ENDED")
    s.on_call_ended("caller")
    r = s.on_utterance("оператор")
    check(s.state.value == "ENDED" and not r.transfer and r.text is None, "ENDED changed")


def _no_kb() -> None:
    s = session_in("QUESTION_ANSWERING")
    r = s.on_effect_result(None)
    check("не подключена" in (r.text or "") and "оператор" in (r.text or ""), f"no-KB line: {r.text}")


def _knowledge_gate() -> None:
    for lang, question, yes, repeat in (("русский", "какая погода завтра?", "да, давайте", "ещё раз, пожалуйста"),
                                        ("қазақша", "ертең ауа райы қандай?", "иә", "қайталаңызшы")):
        s = session_in("READY_TO_HELP", language=lang)
        s.on_utterance(question)
        weak = KnowledgeHit("kb-9", "Тарифы", "Тарифы 2024", "Тариф стоит 5990 тенге.", 0.9, "ru",
                            relevance=0.2, gate=0.6)
        r = s.on_effect_result([weak])
        check(r.fields.get("answer") == "no_answer" and "5990" not in (r.text or ""), f"{lang}: below the gate "
              f"answered: {r.text}")
        again = s.on_utterance(repeat)
        check(again.text == r.text and again.effect is None, f"{lang}: {repeat!r} did not repeat the last line")
        check(s.on_utterance(yes).transfer, f"{lang}: {yes!r} to the offered specialist did not transfer")
    k = session_in("READY_TO_HELP", language="қазақша")
    k.on_utterance("роуминг қанша?")
    ru = KnowledgeHit("kb-2", "Роуминг", "Роуминг", "Роуминг включён.", 0.9, "ru", True, relevance=0.9, gate=0.6)
    text = k.on_effect_result([ru]).text or ""
    check(text.startswith("Бұл ақпарат орыс тілінде") and "Роуминг включён" in text, f"kk -> ru note missing or late: {text}")


def _near_article() -> None:
    for lang, yes, no in (("русский", "да именно", "нет не то"), ("қазақша", "иә дұрыс", "жоқ олай емес")):
        near = KnowledgeHit("kb-3", "Тарифы", "Тарифы 2024", "Тариф стоит 5990 тенге.", 0.9, "ru",
                            relevance=0.45, gate=0.6)
        answers = []
        for reply in (yes, no):
            s = session_in("READY_TO_HELP", language=lang)
            s.on_utterance("почём домашка" if lang == "русский" else "үй интернеті қанша")
            r = s.on_effect_result([near])
            check(r.fields.get("answer") == "confirm" and "Тарифы" in (r.text or "") and "5990" not in (r.text or ""),
                  f"{lang}: a near article was not asked about first: {r.text}")
            answers.append(s.on_utterance(reply))
        check("5990" in (answers[0].text or "") and bool(answers[0].fields.get("citations")),
              f"{lang}: {yes!r} did not read the article with its citation: {answers[0].text}")
        check(answers[1].fields.get("answer") == "no_answer" and "5990" not in (answers[1].text or ""),
              f"{lang}: {no!r} still read the article: {answers[1].text}")


def _model_path() -> None:
    s = session_in("REGION_SELECTION", model_available=True)
    c = s.call_tool("search_knowledge_base", {"query": "тариф"})
    check(not c.allowed, "search allowed before region selected")
    s.on_utterance("Караганда")
    r = s.on_utterance("сколько стоит интернет?")
    first = r.effect
    check(isinstance(first, KnowledgeSearch) and first.scope.get("region") == "KZ-35", "the policy did not search first")
    hit = KnowledgeHit("kb-1", "Интернет", "Прайс", "Интернет стоит 5990 тенге.", 0.9, "ru", relevance=0.9, gate=0.6)
    r = s.on_effect_result([hit])
    offered = {t.name for t in r.effect.tools} if isinstance(r.effect, ModelTurn) else set()
    check("search_knowledge_base" in offered, "no ModelTurn offering the search")
    given = r.effect.messages[-1]["content"] if isinstance(r.effect, ModelTurn) else ""
    check("5990" in str(given), "the policy's hits are not in the model's first request")
    c = s.call_tool("search_knowledge_base", {"query": "тариф", "language": "en", "region_code": "KZ-75"})
    effect = c.effect
    check(
        c.allowed and isinstance(effect, KnowledgeSearch) and effect.language == "ru" and effect.scope == {"region": "KZ-35"},
        "model args not overridden",
    )
    r = s.on_effect_result(None)
    check("5990" in (r.text or "") and bool(r.fields.get("citations")), "failed model: the hits were not read out")


def _silence() -> None:
    s = session_in("READY_TO_HELP")
    r1, r2, r3 = s.on_silence(), s.on_silence(), s.on_silence()
    check(
        not r1.hang_up and not r2.hang_up and r3.hang_up and r3.disposition == "no_input", "give-up after 2"
    )


def _closing() -> None:
    s = session_in("READY_TO_HELP", language="қазақша")
    r = s.on_utterance("рахмет, болды")
    check(r.hang_up and r.hang_up_reason == "caller_goodbye" and s.state.value == "CLOSING", "closing")


def cases() -> list[SelfTestCase]:
    return [
        case(
            "conversation ru: greeting, русский, Караганда, question -> KnowledgeSearch",
            lambda: _conversation("на русском", "в Караганде", "KZ-35", "ru"),
        ),
        case(
            "conversation kk: greeting, қазақша, Қарағанды облысы, question -> KnowledgeSearch",
            lambda: _conversation("қазақша", "Қарағанды облысы", "KZ-35", "kk"),
        ),
        case(
            "DTMF 2 selects Kazakh",
            lambda: check(
                (lambda s: (s.on_dtmf("2"), s.language)[1])(session_in("LANGUAGE_SELECTION")) == "kk",
                "dtmf 2",
            ),
        ),
        case("Almaty clarification flow", _almaty_flow),
        case("region change only on explicit request", _region_change),
        case("handoff is idempotent", _handoff_idempotent),
        case("ENDED ignores further events", _ended_immutable),
        case("no knowledge base: says so and offers a human", _no_kb),
        case("knowledge gate: no answer below it, a specialist offered; repeat; kk -> ru note", _knowledge_gate),
        case("near article: asked about first; yes reads it with its citation, no reads nothing", _near_article),
        case("model path: guardrail before region, the policy searches first, args overridden, fallback", _model_path),
        case("silence: two re-prompts then give up", _silence),
        case("closing in Kazakh hangs up", _closing),
        *rule_cases(),
        *understanding_cases(),
    ]
