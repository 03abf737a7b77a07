"""Spoken answers from knowledge-base hits: the relevance gate, telephone length, the source named. Pure.

The knowledge base ranks its hits and gives each an absolute `relevance` with the `gate` it was calibrated for
(see ai_operator/kb/relevance.py). `knowledge_reply` applies the gate: the most relevant hit is read out only when
it passes; otherwise the caller hears that there is no information on that and is offered a specialist, and the
turn fields say `no_answer` with the best relevance found. A Kazakh caller answered from a Russian entry (the
kk -> ru fallback) first hears, in Kazakh, that this information exists only in Russian; the entry follows on a
line of its own, which `voicing.py` gives the Russian voice.

`answer_text` reads what was asked: when the question is about one fact of the entry (the fastest tariff and its
price, what a red lamp means), the sentences that hold the most of the question are read, in the entry's order
(`Scorer.answering_sentences` with the operator's lexicon, knowledge.py; a number the caller says, in digits or
words, counts for the sentences that hold it: "дом 500 цена"; the caller's own words break ties among the sentences
that answer: "в субботу до скольки" is the sentence that says «в субботу»), at most `MAX_SENTENCES` within `MAX_CHARS`; a
question the first sentences answer as well as any, or an entry with one sentence, reads as before. `shorten` keeps at most `MAX_SENTENCES`
whole sentences within `MAX_CHARS`; a first sentence that alone is too long is cut on a word boundary with an
ellipsis.

An answer is spoken line by line (`voicing.py`: one line, one synthesis): the source ("По данным справки «…»:"),
each sentence read, then "anything else?". Whichever sentences a question picks, every line is one of the
entry's `answer_lines` (each sentence as read, `spoken_sentence`), so the TTS cache holds them all ahead
(`fixed_replies.knowledge_replies`) and no answer waits for a synthesis.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Any

from ai_operator.dialogue import KnowledgeHit
from policies.operator.catalog import say
from policies.operator.knowledge import SCORER

MAX_SENTENCES = 2
MAX_CHARS = 300
ANSWER = "kb"
ANSWER_FALLBACK = "kb_fallback"  # answered from another language's entry
NO_ANSWER = "no_answer"
CONFIRM = "confirm"  # a near article offered: "do you mean ...?" (`confirmation.py`)
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")
_DIGITS = re.compile(r"\d+")
# Numbers a caller says in words that name a tariff or a speed ("дом пятьсот", "үш жүз"): as the entries write them.
NUMBER_WORDS = {
    "сто": "100", "сотка": "100", "двести": "200", "триста": "300", "пятьсот": "500", "тысяча": "1000",
    "тысячу": "1000", "жүз": "100", "екі жүз": "200", "үш жүз": "300", "бес жүз": "500", "мың": "1000",
}  # fmt: skip
NUMBER_WEIGHT = 1.0  # a number asked ("Дом 500") weighs as a topic word in picking the sentence that holds it
WORD_WEIGHT = 0.1  # a word of the question said in a sentence: a tie-breaker among those that answer
SAME_WORD = 5  # letters two word forms share to be one word ("субботу", "субботам"; "сенбі", "сенбіде")


def shorten(text: str, max_sentences: int = MAX_SENTENCES, max_chars: int = MAX_CHARS) -> str:
    """At most `max_sentences` sentences and `max_chars` characters, cut on a sentence (else word) boundary."""
    clean = " ".join((text or "").split())
    out = ""
    for sentence in _SENTENCE_END.split(clean)[:max_sentences]:
        candidate = f"{out} {sentence}".strip()
        if len(candidate) > max_chars:
            break
        out = candidate
    if out:
        return out
    return _cut(clean, max_chars)


def _cut(text: str, max_chars: int) -> str:
    cut = text[: max_chars - 1].rsplit(" ", 1)[0].rstrip(",;:- ")
    return f"{cut}…"


def answer_sentences(question: str, text: str, max_sentences: int = MAX_SENTENCES, max_chars: int = MAX_CHARS
                     ) -> list[str]:
    """The sentences of the entry `text` that answer `question`, each as read (see the module docstring)."""
    scored = (_with_words(question, _with_numbers(question, SCORER.answering_sentences(question, text)))
              if question.strip() else [])
    best = max((share for share, _ in scored), default=0.0)
    if best <= 0 or max(share for share, _ in scored[:max_sentences]) >= best:
        # the first sentences answer it as well as any
        return _SENTENCE_END.split(shorten(text, max_sentences, max_chars))
    order = sorted(range(len(scored)), key=lambda i: (-scored[i][0], i))
    chosen = [order[0]]
    for i in order[1:]:
        if len(chosen) >= max_sentences or scored[i][0] <= 0:
            break
        if len(" ".join(scored[k][1] for k in sorted([*chosen, i]))) <= max_chars:
            chosen.append(i)
    return [spoken_sentence(scored[k][1], max_chars) for k in sorted(chosen)]


def _numbers(question: str) -> set[str]:
    """The numbers in `question`, as digits: written ("дом 500") or said ("пятьсот", "бес жүз")."""
    words = question.lower().split()
    found = set(_DIGITS.findall(question))
    i = 0
    while i < len(words):
        pair = " ".join(words[i : i + 2])
        if pair in NUMBER_WORDS:  # "бес жүз" is 500, not 500 and 100
            found.add(NUMBER_WORDS[pair])
            i += 2
            continue
        if words[i] in NUMBER_WORDS:
            found.add(NUMBER_WORDS[words[i]])
        i += 1
    return found


def _with_numbers(question: str, scored: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """`scored` (`Scorer.answering_sentences`) with each number of the question counted for the sentences that
    hold it, `NUMBER_WEIGHT` shared among them: "дом 500 цена" is the sentence with «Дом 500» and its price."""
    numbers = _numbers(question)
    if not numbers:
        return scored
    held = [set(_DIGITS.findall(sentence)) & numbers for _, sentence in scored]
    count = {n: sum(n in h for h in held) for n in numbers}
    return [(share + sum(NUMBER_WEIGHT / count[n] for n in h), sentence)
            for (share, sentence), h in zip(scored, held, strict=True)]


def _with_words(question: str, scored: list[tuple[float, str]]) -> list[tuple[float, str]]:
    """`scored` with the caller's own words breaking ties among the sentences that answer: a word of the question
    (`SAME_WORD` letters alike) in a sentence that already holds some of it adds `WORD_WEIGHT`, shared among them:
    "в субботу до скольки" is the sentence with «в субботу с 10:00», not the one that only shares "days off"."""
    asked = {w[:SAME_WORD] for w in SCORER.fold(question).split() if len(w) >= SAME_WORD}
    held = [{w[:SAME_WORD] for w in SCORER.fold(sentence).split()} & asked if share > 0 else set()
            for share, sentence in scored]
    count = {w: sum(w in h for h in held) for w in asked}
    return [(share + sum(WORD_WEIGHT / count[w] for w in h), sentence)
            for (share, sentence), h in zip(scored, held, strict=True)]


def answer_text(question: str, text: str, max_sentences: int = MAX_SENTENCES, max_chars: int = MAX_CHARS) -> str:
    """The sentences of the entry `text` that answer `question`, as one text."""
    return " ".join(answer_sentences(question, text, max_sentences, max_chars))


def spoken_sentence(sentence: str, max_chars: int = MAX_CHARS) -> str:
    """A sentence as an answer reads it: cut on a word boundary when it alone is longer than `max_chars`."""
    return sentence if len(sentence) <= max_chars else _cut(sentence, max_chars)


def answer_lines(text: str, max_chars: int = MAX_CHARS) -> list[str]:
    """Every line an answer from the entry `text` may read, whatever the question: each sentence as read."""
    return [spoken_sentence(s, max_chars) for s in _SENTENCE_END.split(" ".join((text or "").split())) if s]


def best_hit(hits: Sequence[KnowledgeHit]) -> KnowledgeHit:
    """The hit to answer from: the first one that passes the gate (a scoring knowledge base lists its hits most
    relevant first), else the first one; among hits that are not scored, the best ranked."""
    passing = [h for h in hits if h.relevant] or list(hits)
    if all(h.relevance is None for h in passing):
        return max(passing, key=lambda h: h.score)
    return passing[0]


def spoken_source(hit: KnowledgeHit) -> str:
    """What the caller hears as the source: the entry's title (a URL is not read aloud; it stays in the record)."""
    title = (hit.title or "").strip()
    if title:
        return title
    source = (hit.source or "").strip()
    return source if source and "://" not in source else hit.entry_id


def citations(hits: Sequence[KnowledgeHit]) -> list[dict[str, object]]:
    """The citations of an answer, best first: entry id, title, source, score, relevance, whether a fallback."""
    best = best_hit(hits)
    ordered = [best, *(h for h in hits if h is not best)]
    return [
        {"id": h.entry_id, "title": h.title, "source": h.source, "score": round(h.score, 4),
         "relevance": h.relevance, "fallback": h.fallback}
        for h in ordered
    ]


def answer_from_hits(hits: Sequence[KnowledgeHit], language: str, question: str = "") -> str:
    """The spoken answer from the best of non-empty `hits` (gate not applied: see `knowledge_reply`):
    source-prefixed, the sentences that answer `question` (`answer_text`); a fallback entry is announced first,
    in the caller's language."""
    hit = best_hit(hits)
    return answer_reply(hit, language, answer_sentences(question, hit.text))


def answer_reply(hit: KnowledgeHit, language: str, sentences: Sequence[str]) -> str:
    """The answer reading `sentences` of `hit`, a line each: the source, the sentences, "anything else?". A
    fallback entry is announced first, in the caller's language (its sentences are voiced in their own)."""
    frame = say("answer", language, source=spoken_source(hit), text="").rstrip()
    if hit.fallback:
        frame = f"{say('fallback_note', language)} {frame}"
    return "\n".join([frame, *sentences, say("anything_else", language)])


def knowledge_reply(hits: Sequence[KnowledgeHit], language: str, *, offer_handoff: bool = True, question: str = ""
                    ) -> tuple[str, dict[str, Any]]:
    """The spoken reply and the turn fields for a search's `hits` (possibly empty), with the gate applied; below
    it the caller is offered a specialist when `offer_handoff`.

    Fields: `answer` (`kb`, `kb_fallback` or `no_answer`), `relevance` (of the best hit; 0.0 when nothing was
    found, None from a source that does not score), `best` (its entry id), `gate`, and for an answer its
    `citations` (the hits that pass the gate, best first)."""
    best = best_hit(hits) if hits else None
    fields: dict[str, Any] = {
        "relevance": best.relevance if best else 0.0,
        "best": best.entry_id if best else None,
        "gate": best.gate if best else None,
    }
    if best is None or not best.relevant:
        return say("no_answer" if offer_handoff else "no_answer_only", language), {"answer": NO_ANSWER, **fields}
    passing = [h for h in hits if h.relevant]
    fields["answer"] = ANSWER_FALLBACK if best.fallback else ANSWER
    fields["citations"] = citations(passing)
    return answer_from_hits(passing, language, question), fields
