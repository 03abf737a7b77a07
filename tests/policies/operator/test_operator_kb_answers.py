"""The operator's knowledge answers from the caller's side: the relevance gate (no answer below it, a specialist
offered, `no_answer` in the turn record; a near miss is asked about first: test_operator_kb_confirmation.py),
the kk -> ru note, "say that again", and yes/no to the offer; first with hand-made hits (pure), then end to end
with the real knowledge base on real PostgreSQL."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_operator.conversation import Conversation
from ai_operator.dialogue import KnowledgeHit, KnowledgeSearch
from ai_operator.kb.store import KnowledgeBase
from policies import load_policy
from policies.operator.catalog import say
from policies.operator.selftest_support import session_in
from policies.operator.states import State
from tests.support.policies import operator_conversation

SAMPLE = Path(__file__).resolve().parents[3] / "etc" / "kb" / "sample.jsonl"
GATE = 0.6


def hit(entry_id: str, relevance: float, score: float = 0.03, language: str = "ru", **kw) -> KnowledgeHit:
    return KnowledgeHit(entry_id, f"Статья {entry_id}", f"https://kb.example/{entry_id}", f"Текст статьи {entry_id}. Ещё одна фраза.",
                        score, language, relevance=relevance, gate=GATE, **kw)


def asked(language: str = "русский", **options: bool):
    s = session_in("READY_TO_HELP", language=language, **options)
    r = s.on_utterance("какая погода завтра" if language == "русский" else "ертең ауа райы қандай")
    assert isinstance(r.effect, KnowledgeSearch)
    return s


@pytest.mark.parametrize("language", ["русский", "қазақша"])
def test_below_the_gate_no_answer_and_a_specialist_is_offered(language: str) -> None:
    s = asked(language)
    r = s.on_effect_result([hit("tariffs", 0.3, score=0.05), hit("static-ip", 0.1)])
    assert "Статья" not in r.text and "Текст" not in r.text
    if language == "русский":
        assert "нет информации" in r.text and "специалист" in r.text and r.language == "ru"
    else:
        assert "ақпарат жоқ" in r.text and "маманға" in r.text and r.language == "kk"
    assert r.fields["answer"] == "no_answer" and r.fields["relevance"] == 0.3
    assert r.fields["best"] == "tariffs" and r.fields["gate"] == GATE and "citations" not in r.fields
    assert s.state == State.READY_TO_HELP and not r.transfer


def test_without_a_handoff_target_nothing_is_offered() -> None:
    s = asked(handoff_available=False)
    r = s.on_effect_result([hit("tariffs", 0.2)])
    assert "нет информации" in r.text and "специалист" not in r.text and "оператор" not in r.text
    assert not s.on_utterance("да").transfer


def test_above_the_gate_the_first_passing_hit_is_read_and_only_passing_hits_are_cited() -> None:
    s = asked()
    r = s.on_effect_result([hit("weak", 0.3, score=0.09), hit("good", 0.8), hit("ok", 0.65)])
    assert r.text.startswith("По данным справки «Статья good»:\nТекст статьи good.\n")
    assert r.fields["answer"] == "kb" and r.fields["relevance"] == 0.8
    assert [c["id"] for c in r.fields["citations"]] == ["good", "ok"]


def test_an_answer_is_voiced_a_line_at_a_time_the_source_each_sentence_then_anything_else() -> None:
    r = asked().on_effect_result([hit("good", 0.8)])
    assert load_policy("operator").voice_segments(r.text, r.language) == [
        ("По данным справки «Статья good»:", "ru"), ("Текст статьи good.", "ru"), ("Ещё одна фраза.", "ru"),
        (say("anything_else", "ru"), "ru")]


def test_kazakh_caller_hears_first_that_the_entry_is_only_in_russian() -> None:
    s = asked("қазақша")
    r = s.on_effect_result([hit("roaming", 0.9, fallback=True)])
    assert r.text.index("орыс тілінде ғана бар") < r.text.index("«Статья roaming» анықтамасы бойынша")
    assert r.fields["answer"] == "kb_fallback" and r.language == "kk"
    voiced = load_policy("operator").voice_segments(r.text, r.language)
    # the note and source, the entry a sentence a line in the Russian voice, "anything else?"
    assert [v for _, v in voiced] == ["kk", "ru", "ru", "kk"]
    assert [t for t, _ in voiced[1:3]] == ["Текст статьи roaming.", "Ещё одна фраза."]
    own = asked("қазақша").on_effect_result([hit("kk-tariffs", 0.9, language="kk")])
    assert "орыс тілінде" not in own.text and own.fields["answer"] == "kb"


REPEAT_RU = ["ещё раз", "еще раз пожалуйста", "повторите", "повторите пожалуйста", "не расслышал",
             "извините не расслышала повторите", "можно ещё раз", "что вы сказали", "не понял повторите",
             "ну повторите ещё раз", "алло не слышу повторите", "чего", "повтори медленнее"]
REPEAT_KK = ["қайталаңызшы", "қайталап жіберіңізші", "тағы бір рет", "тағы бір рет айтыңызшы",
             "кешіріңіз естімей қалдым", "түсінбедім қайталаңыз", "не дедіңіз", "қайта айтыңызшы өтінемін"]


@pytest.mark.parametrize("phrase", REPEAT_RU + REPEAT_KK)
def test_repeat_says_the_last_answer_verbatim_without_a_new_search(phrase: str) -> None:
    language = "қазақша" if phrase in REPEAT_KK else "русский"
    s = asked(language)
    answer = s.on_effect_result([hit("good", 0.8)])
    r = s.on_utterance(phrase)
    assert r.text == answer.text and r.language == answer.language
    assert r.effect is None and not r.tool_calls and r.fields["answer"] == "repeat"
    assert s.state == State.READY_TO_HELP


def test_a_question_that_mentions_repeating_is_still_a_question() -> None:
    for question in ("ещё раз про роуминг", "повторите сколько стоит роуминг", "роуминг туралы тағы бір рет айтыңыз"):
        s = asked()
        s.on_effect_result([hit("good", 0.8)])
        assert isinstance(s.on_utterance(question).effect, KnowledgeSearch), question


def test_repeat_after_no_answer_keeps_the_offer() -> None:
    s = asked()
    first = s.on_effect_result([hit("tariffs", 0.2)])
    again = s.on_utterance("не расслышал повторите пожалуйста")
    assert again.text == first.text and again.effect is None
    r = s.on_utterance("да давайте")
    assert r.transfer and s.state == State.HANDOFF


@pytest.mark.parametrize(("language", "yes"), [("русский", "да"), ("русский", "да давайте пожалуйста"),
                                               ("русский", "конечно соедините"), ("қазақша", "иә"),
                                               ("қазақша", "иә қосыңыз"), ("қазақша", "жарайды")])
def test_yes_to_the_offered_specialist_hands_off(language: str, yes: str) -> None:
    s = asked(language)
    s.on_effect_result([hit("tariffs", 0.2)])
    r = s.on_utterance(yes)
    assert r.transfer and s.state == State.HANDOFF and r.effect is None


@pytest.mark.parametrize(("language", "no"), [("русский", "нет"), ("русский", "нет не надо"),
                                              ("қазақша", "жоқ"), ("қазақша", "жоқ керек емес")])
def test_no_to_the_offer_invites_another_question(language: str, no: str) -> None:
    s = asked(language)
    s.on_effect_result([hit("tariffs", 0.2)])
    r = s.on_utterance(no)
    assert r.effect is None and not r.transfer and s.state == State.READY_TO_HELP
    assert ("вопрос" in r.text) if language == "русский" else ("сұрағыңызды" in r.text)
    assert isinstance(s.on_utterance("да").effect, KnowledgeSearch)  # the offer is gone: "да" is a question now


def test_yes_without_an_offer_is_not_a_handoff() -> None:
    s = asked()
    s.on_effect_result([hit("good", 0.8)])
    r = s.on_utterance("да")
    assert not r.transfer and isinstance(r.effect, KnowledgeSearch)


@pytest.mark.parametrize("request_", ["ты бот соедини с человеком", "соедините с оператором пожалуйста",
                                      "переключите на живого человека", "оператормен байланыстырыңыз",
                                      "маған оператор керек"])
def test_a_handoff_request_never_reaches_the_search(request_: str) -> None:
    s = session_in("READY_TO_HELP")
    r = s.on_utterance(request_)
    assert r.transfer and r.effect is None and s.state == State.HANDOFF
    assert all(c.name != "search_knowledge_base" for c in r.tool_calls)


# --- end to end: the real knowledge base ------------------------------------------------------------------


async def conversation(kb: KnowledgeBase, language: str) -> Conversation:
    return await operator_conversation(kb, language, call_id="kb-gate")


@pytest.mark.parametrize(("language", "question"), [
    ("русский", "какая погода завтра в астане"),
    ("русский", "сколько стоит айфон пятнадцать"),
    ("русский", "как тебя зовут"),
    ("қазақша", "ертең ауа райы қандай болады"),
    ("қазақша", "билайнның тарифтері қандай"),
])
async def test_out_of_scope_questions_get_no_article(kb: KnowledgeBase, language: str, question: str) -> None:
    conv = await conversation(kb, language)
    out = await conv.utterance(question)
    assert out.reply.fields["answer"] == "no_answer", out.reply.text
    assert out.reply.fields["relevance"] < out.reply.fields["gate"] and out.timings["kb_ms"] > 0
    assert "справки" not in out.reply.text and "анықтамасы" not in out.reply.text


async def test_answer_then_repeat_then_kazakh_fallback(kb: KnowledgeBase) -> None:
    conv = await conversation(kb, "русский")
    out = await conv.utterance("ну сколько у вас стоит домашний интернет в месяц")
    assert out.reply.fields["answer"] == "kb" and out.reply.fields["citations"][0]["id"] == "ru-internet-tariffs"
    again = await conv.utterance("ещё раз пожалуйста")
    assert again.reply.text == out.reply.text and again.timings["kb_ms"] == 0
    kk = await conversation(kb, "қазақша")
    out = await kk.utterance("шетелге барамын роуминг қанша тұрады")
    assert out.reply.fields["answer"] == "kb_fallback"
    assert out.reply.text.startswith("Бұл ақпарат орыс тілінде ғана бар") and "Роуминг включён" in out.reply.text
    own = await kk.utterance("үй интернеті айына қанша тұрады")
    assert own.reply.fields["answer"] == "kb" and "орыс тілінде" not in own.reply.text
