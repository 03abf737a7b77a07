"""Spoken answers from knowledge-base hits: shorten to telephone length and name the source. Pure.

`shorten` keeps at most `MAX_SENTENCES` whole sentences within `MAX_CHARS`; a first sentence that alone is too
long is cut on a word boundary with an ellipsis. `answer_from_hits` formats the best hit as "По данным
<source>: ..." in the caller's language, adding the cross-language note when the hit is a fallback entry.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from ai_operator.dialogue import KnowledgeHit
from policies.operator.catalog import say

MAX_SENTENCES = 2
MAX_CHARS = 300
_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


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
    cut = clean[: max_chars - 1].rsplit(" ", 1)[0].rstrip(",;:- ")
    return f"{cut}…"


def best_hit(hits: Sequence[KnowledgeHit]) -> KnowledgeHit:
    """The highest-scoring hit (the first one on a tie)."""
    return max(hits, key=lambda h: h.score)


def spoken_source(hit: KnowledgeHit) -> str:
    """What the caller hears as the source: the entry's title (a URL is not read aloud; it stays in the record)."""
    title = (hit.title or "").strip()
    if title:
        return title
    source = (hit.source or "").strip()
    return source if source and "://" not in source else hit.entry_id


def citations(hits: Sequence[KnowledgeHit]) -> list[dict[str, object]]:
    """The citations of an answer, best first: entry id, title, source, score and whether it is a fallback."""
    ordered = sorted(hits, key=lambda h: h.score, reverse=True)
    return [
        {"id": h.entry_id, "title": h.title, "source": h.source, "score": round(h.score, 4), "fallback": h.fallback}
        for h in ordered
    ]


def answer_from_hits(hits: Sequence[KnowledgeHit], language: str) -> str:
    """The spoken answer for non-empty `hits`: source-prefixed, shortened, with the fallback note if needed."""
    hit = best_hit(hits)
    source = spoken_source(hit)
    text = say("answer", language, source=source, text=shorten(hit.text))
    if hit.fallback:
        text = f"{text} {say('fallback_note', language)}"
    return f"{text} {say('anything_else', language)}"
