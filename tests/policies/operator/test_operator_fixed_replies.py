"""What the operator lists to synthesise ahead (`fixed_replies`, `knowledge_replies`) is exactly what its calls
say: callers (as an ASR transcript hears them: no punctuation, fillers, self-corrections) go through every step
with no model, and every reply they get is in the lists (pure; the knowledge base answers with stored entries
read as the policy reads them)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from ai_operator.dialogue import AnswersFromKnowledge, KnowledgeHit, KnowledgeSearch, ListsFixedReplies
from ai_operator.kb.relevance import sentences
from policies import load_policy
from policies.operator.answers import answer_from_hits
from tests.support.policies import operator_route, session, view

SAMPLE = Path(__file__).resolve().parents[3] / "etc" / "kb" / "sample.jsonl"
POLICY = load_policy("operator")
assert isinstance(POLICY, ListsFixedReplies) and isinstance(POLICY, AnswersFromKnowledge)
AHEAD: ListsFixedReplies = POLICY
FROM_KB: AnswersFromKnowledge = POLICY

CALLERS = [
    ["эээ по-русски пожалуйста", "я из караганды", "как оплатить интернет", "спасибо до свидания"],
    ["қазақша", "алматы", "қаласы", "интернетке қалай төлеймін", "сау болыңыз"],
    ["ну русский я живу в алматы", "область", "какая погода завтра", "нет", "позовите оператора"],
    ["алло", "русский", "не павлодар а шымкент", "поменяй язык на казахский", "не знаю", "не знаю"],
    ["русский", "где-то на луне", "караганда", "сменить регион", "астана", "повторите", "до свидания"],
]


def entries() -> list[KnowledgeHit]:
    rows = [json.loads(line) for line in SAMPLE.read_text(encoding="utf-8").splitlines() if line.strip()]
    return [KnowledgeHit(r["id"], r["title"], r["source"], r["text"], 1.0, r["language"]) for r in rows]


def search_result(effect: KnowledgeSearch, question: str) -> list[KnowledgeHit]:
    """A stand-in for the search (the reading, not the ranking, is tested here): nothing on the weather, else the
    payment entry, in Kazakh from the Russian entry as the kk -> ru fallback gives it."""
    if "погода" in question:
        return []
    entry = next(e for e in entries() if e.entry_id == "ru-payment-methods")
    return [replace(entry, fallback=effect.language != entry.language)]


def test_the_operator_offers_both_lists() -> None:
    assert isinstance(POLICY, ListsFixedReplies) and isinstance(POLICY, AnswersFromKnowledge)


@pytest.mark.parametrize("caller", CALLERS, ids=lambda c: c[0].replace(" ", "_"))
def test_every_reply_without_a_model_was_listed_ahead(caller: list[str]) -> None:
    route = operator_route()
    ahead = set(AHEAD.fixed_replies(view(route))) | set(POLICY.canned_lines(view(route)))
    for entry in entries():
        ahead |= set(FROM_KB.knowledge_replies(entry))
    s = session(route)
    said = [s.start()]
    for text in caller:
        reply = s.on_utterance(text)
        if isinstance(reply.effect, KnowledgeSearch):
            reply = s.on_effect_result(search_result(reply.effect, text))
        said.append(reply)
        if reply.hang_up or reply.transfer:
            break
    spoken = [(r.text, r.language) for r in said if r.text]
    assert len(spoken) > 3
    voiced_ahead = {seg for text, lang in ahead for seg in POLICY.voice_segments(text, lang)}
    missing = [seg for text, lang in spoken for seg in POLICY.voice_segments(text, lang) if seg not in voiced_ahead]
    assert missing == [], missing  # what a call asks the TTS cache for is what was synthesised ahead

def test_entries_in_a_language_no_call_speaks_are_not_read_ahead() -> None:
    english = KnowledgeHit("en-1", "Payment", "https://x", "Pay in the app.", 1.0, "en")
    assert FROM_KB.knowledge_replies(english) == []
    kk = next(e for e in entries() if e.language == "kk")
    assert [lang for _, lang in FROM_KB.knowledge_replies(kk)] == ["kk"]  # no other language falls back to kk


def test_every_line_any_question_reads_from_an_entry_was_listed_ahead() -> None:
    """Whichever sentences a question picks (each sentence of each entry asked about in its own words, the title,
    no question at all), in the entry's language and as the kk -> ru fallback, every line of the answer is one
    listed ahead: a knowledge-base answer never waits for the TTS."""
    missing: list[tuple[str, str]] = []
    picked_later = 0
    for entry in entries():
        listed = {seg for text, lang in FROM_KB.knowledge_replies(entry) for seg in POLICY.voice_segments(text, lang)}
        for lang in [entry.language, *(["kk"] if entry.language == "ru" else [])]:
            hit = replace(entry, fallback=lang != entry.language)
            plain = answer_from_hits([hit], lang)
            for question in ["", entry.title, *sentences(entry.text)]:
                text = answer_from_hits([hit], lang, question)
                picked_later += text != plain
                missing += [seg for seg in POLICY.voice_segments(text, lang) if seg not in listed]
    assert picked_later > 50  # many questions are read from sentences after the first ones
    assert missing == [], missing[:5]
