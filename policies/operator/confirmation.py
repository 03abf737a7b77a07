"""Confirming a near answer (pure): the article a question nearly matched, and the caller's reply to "is that it?".

When nothing a search found passes the relevance gate but its best hit falls short of it by little (its relevance
is at least `CONFIRM_SHARE` of the gate that hit carries, so the band follows a gate calibrated per embedder),
the operator does not say "no information": it names that article and asks whether that is what the caller
means (`near_hit`). The article is read out, with its citation, only after the caller says yes, so a near miss
never reaches the caller as an answer they did not accept: the gate still decides what is answered unasked.

`confirmation_reply(text)` reads the caller's reply as an ASR transcript (fillers dropped, Latin transliterated,
`grammar.analyse`): a yes ("да", "ага именно", "иә дұрыс", "дәл солай") starts with a yes word and has no
negation anywhere ("да нет", "да не совсем" are not yes); a no starts with a no word or says "not that" ("нет",
"не то", "жоқ олай емес", "дұрыс емес", "басқа"), and what follows a no, when it has words of its own ("нет, я
про роутер"), is the caller's question asked again. Anything else is neither: a new turn, routed as usual. A
bare no with thanks ("нет спасибо", `declines`) declines the article; it is not the goodbye it would be elsewhere.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from ai_operator.dialogue import KnowledgeHit
from policies.operator.grammar import analyse
from policies.operator.intents import ends_on_farewell
from policies.operator.text import fold

# The near band, as a share of the gate: below the gate by at most 40 %. On the blind labelled sets held-out-10..12
# (tests/data/kb_relevance.jsonl, gate 0.60) a band from 0.35 offers the right article for 131 in-scope questions
# (58 % of the offers) and asks 30 % of the out-of-scope ones once; from 0.45, 90 (69 %) and 13 %.
CONFIRM_SHARE = 0.6

YES = "yes"
NO = "no"


def _words(text: str) -> frozenset[str]:
    return frozenset(fold(text).split())


_YES_START = _words(
    "да ага угу именно верно правильно точно конечно ок окей ладно давайте давай оно "
    "иә ия йә иа әрине дұрыс дәл солай сол соны осы бәсе әбден жарайды yes yeah yep ok okay right exactly"
)
_NEGATION = _words("нет не неа ни жоқ жок емес no not nope")
_NO_START = _words("нет неа не жоқ жок no nope ничего")
_NOT_THAT = (" не то ", " не это ", " не про это ", " не об этом ", " не о том ", " не совсем ", " ол емес ",
             " бул емес ", " дурыс емес ", " олай емес ", " баска ", " другое ", " другой ", " not that ")
# words that only carry the "no" itself, not a question asked again
_NO_ONLY = _words(
    "да нет не неа то это этом том про о об совсем я спрашивал спрашивала спрашиваю имел имела в виду другое "
    "другой вопрос ничего спасибо благодарю жоқ жок емес ол бул олай дурыс баска сурак мен туралы рахмет "
    "no not nope that it thanks"
)
_MIN_REST = 2  # words of its own after a no that make it the question asked again


@dataclass(frozen=True)
class ConfirmationReply:
    """The caller's reply to "is that what you mean?": `said` is YES, NO or "" (neither); `rest` is what followed a
    no when it is a question of its own ("" otherwise)."""

    said: str
    rest: str = ""


def near_hit(hits: Sequence[KnowledgeHit]) -> KnowledgeHit | None:
    """The article to offer: the best hit (hits come most relevant first) when none passes the gate and it is in
    the near band; None when one passes, when the source does not score, or when the best is too far."""
    if not hits or any(h.relevant for h in hits):
        return None
    best = hits[0]
    if best.relevance is None or not best.gate:
        return None
    return best if best.relevance >= CONFIRM_SHARE * best.gate else None


def confirmation_reply(text: str) -> ConfirmationReply:
    """Yes, no (and a question asked again after it), or neither; see the module docstring."""
    tokens = analyse(text).cyr
    if not tokens:
        return ConfirmationReply("")
    folded = f" {' '.join(tokens)} "
    not_that = any(p in folded for p in _NOT_THAT)
    if tokens[0] in _YES_START and not not_that and not any(t in _NEGATION for t in tokens):
        return ConfirmationReply(YES)
    if tokens[0] in _NO_START or tokens[:2] == ("да", "нет") or not_that:
        lead = 0
        while lead < len(tokens) and tokens[lead] in _NO_START | {"да", "то", "это"}:
            lead += 1
        rest = tokens[lead:]
        own = [t for t in rest if t not in _NO_ONLY]
        return ConfirmationReply(NO, " ".join(rest) if len(own) >= _MIN_REST else "")
    return ConfirmationReply("")


def declines(text: str) -> bool:
    """A bare no to "do you mean ...?" that is not a farewell: "нет спасибо" declines the article, it does not end
    the call ("нет спасибо до свидания" does)."""
    said = confirmation_reply(text)
    return said.said == NO and not said.rest and not ends_on_farewell(text)
