"""A knowledge-base search on the call path has a budget (issue 11.4): a search that does not answer in time
(real PostgreSQL, the KB table locked by another session) or fails (the pool is gone) reaches the policy as
`KnowledgeUnavailable`, distinct from "no hits" and from "no KB configured", and the caller hears the policy's
"I can't look that up right now, I can connect you to an operator" line at once - never silence."""

from __future__ import annotations

import time
from pathlib import Path

import psycopg
import pytest

from ai_operator.conversation import Conversation
from ai_operator.dialogue import KnowledgeUnavailable
from policies.operator.catalog import say
from tests.support.policies import operator_route
from tests.support.policies import session as policy_session

REPO = Path(__file__).resolve().parents[1]
OPERATOR = operator_route()
BUDGET_S = 0.3

# Questions as an ASR hands them over: lower case, no punctuation, fillers, self-corrections.
QUESTIONS = {
    "ru": [
        "как оплатить домашний интернет",
        "эээ скажите а сколько стоит роутер в аренду",
        "ну вот у меня интернет не работает что делать",
        "а можно тариф поменять ну то есть перейти на другой",
    ],
    "kk": [
        "үй интернетін қалай төлеуге болады",
        "ммм роутерді жалға алу қанша тұрады",
        "интернет істемей тұр не істеу керек",
    ],
}
LANGUAGE_CHOICE = {"ru": "русский", "kk": "қазақша"}


async def ready(knowledge, language: str, route=OPERATOR, **kw) -> Conversation:
    session = policy_session(route, "kb-budget-1", model_available=False)
    conv = Conversation(session, knowledge=knowledge, **kw)
    await conv.start()
    await conv.utterance(LANGUAGE_CHOICE[language])
    out = await conv.utterance("караганда" if language == "ru" else "қарағанды")
    assert out.reply.fields["state"] == "READY_TO_HELP", out.reply.text
    return conv


@pytest.mark.parametrize("language", ["ru", "kk"])
async def test_a_search_past_its_budget_is_said_to_be_unavailable_at_once(kb, language) -> None:
    unavailable = say("kb_unavailable", language)
    assert unavailable not in (say("no_answer", language), say("no_knowledge", language))
    blocker = await psycopg.AsyncConnection.connect(kb.db.dsn)
    try:
        await blocker.execute("LOCK TABLE kb_chunks IN ACCESS EXCLUSIVE MODE")  # held: every search waits
        for question in QUESTIONS[language]:
            conv = await ready(kb, language, kb_timeout_s=BUDGET_S)
            t0 = time.perf_counter()
            out = await conv.utterance(question)
            waited = time.perf_counter() - t0
            assert out.reply.text == unavailable, (question, out.reply.text)
            assert any("timed out" in e for e in out.errors), out.errors
            assert waited < 30 * BUDGET_S  # bounded by the budget, not by the pool's 30 s timeout
    finally:
        await blocker.rollback()
        await blocker.close()
    conv = await ready(kb, language, kb_timeout_s=BUDGET_S)
    answered = await conv.utterance(QUESTIONS[language][0])
    assert answered.reply.fields.get("citations"), answered.reply.text  # the same question, answered again


async def test_a_failing_search_is_unavailable_not_no_answer(db, kb) -> None:
    conv = await ready(kb, "ru", kb_timeout_s=BUDGET_S)
    await db.pool.close()  # the database has gone away under the call
    out = await conv.utterance("а как мне оплатить интернет через каспи")
    assert out.reply.text == say("kb_unavailable", "ru")
    assert out.errors and out.errors[0].startswith("kb:")


async def test_the_policy_gets_knowledge_unavailable_with_its_reason(kb) -> None:
    conv = await ready(kb, "ru", kb_timeout_s=BUDGET_S)
    seen: list[object] = []
    real = conv.session.on_effect_result

    def spy(result: object):
        seen.append(result)
        return real(result)

    conv.session.on_effect_result = spy  # type: ignore[method-assign]
    answered = await conv.utterance("подскажите как оплатить интернет")
    assert isinstance(seen[-1], list) and seen[-1] and answered.reply.fields.get("citations")
    blocker = await psycopg.AsyncConnection.connect(kb.db.dsn)
    try:
        await blocker.execute("LOCK TABLE kb_chunks IN ACCESS EXCLUSIVE MODE")
        out = await conv.utterance("а роутер в аренду сколько стоит")
    finally:
        await blocker.rollback()
        await blocker.close()
    assert isinstance(seen[-1], KnowledgeUnavailable) and seen[-1].reason == "timeout"
    assert out.reply.text == say("kb_unavailable", "ru")


@pytest.mark.parametrize("yes", ["да", "да давайте", "ну да соедините"])
async def test_the_specialist_offered_when_the_kb_is_down_is_taken_by_a_yes(db, kb, yes) -> None:
    conv = await ready(kb, "ru", kb_timeout_s=BUDGET_S)
    await db.pool.close()
    out = await conv.utterance("скажите как подключить телевидение")
    assert out.reply.text == say("kb_unavailable", "ru") and out.reply.fields["answer"] == "kb_unavailable"
    taken = await conv.utterance(yes)
    assert taken.reply.transfer, taken.reply.text


async def test_without_a_handoff_target_no_specialist_is_offered(db, kb) -> None:
    conv = await ready(kb, "kk", route=operator_route(handoff=False), kb_timeout_s=BUDGET_S)
    await db.pool.close()
    out = await conv.utterance("роутерді қалай қосамын")
    assert out.reply.text == say("kb_unavailable_only", "kk")
