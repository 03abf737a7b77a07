"""What a settled question is about (pure): the part of it that says why or what still works is not the topic.

Two shapes of a caller's question name things the knowledge base is not asked about:

- **A purpose** ("какой тариф самый дешёвый чтоб ютуб смотреть", "нужен тариф чтоб нетфликс не тормозил какой
  самый быстрый", "балаларға ютуб көру үшін арзан тариф"): a clause after "чтоб"/"чтобы" (up to the next question
  word) or before "үшін" (at most `PURPOSE_WORDS_BEFORE` words) says what the service is for. When the rest of
  the question has a topic of its own, the clause's usage words are dropped: a brand or a pastime (`USAGE`:
  the lexicon's `brand` and `activity`), a symptom wished away ("чтоб не тормозил") and plain verbs. Its nouns and
  other concepts stay ("чтоб спорт был" is about sport; "электр жарығы үшін" is about electricity, not ours);
  without a topic outside it, the clause is the question and stays whole ("что нужно чтобы расторгнуть договор").
- **What works, set against what does not** ("вайфай есть а интернета нет", "телефон работает а интернет нет",
  "ноутбук к вайфаю цепляется но ...", "теледидар істейді бірақ интернет жоқ"): the working part counts against the match, so only the clause after
  the contrast is kept, when the part before it ends in a "works"/"there is" word (`WORKING`) and the part after
  holds a negator or a symptom (`SYMPTOMS`: broken, slow, weak). A device named in the working part stays
  (`DEVICES`: "приставка горит а каналов нет" is about the set-top box).
"""

from __future__ import annotations

import re

from policies.operator.knowledge import SCORER

_FOLD = str.maketrans({"ё": "е", "қ": "к", "ғ": "г", "ұ": "у", "ү": "у", "ө": "о", "ә": "а", "і": "и", "ң": "н"})
_WORD = re.compile(r"\w+", re.UNICODE)

PURPOSE_OPENERS = frozenset({"чтоб", "чтобы", "штоб", "шоб", "штобы"})  # folded; the clause follows
PURPOSE_CLOSERS = frozenset({"ушин"})  # folded "үшін": the clause precedes it
PURPOSE_WORDS_BEFORE = 3
# a question word or a conjunction opens the next clause: the purpose clause ends before it
_CLAUSE_OPENERS_TEXT = """какой какая какие каким какую какое сколько скока скоко как где когда почему куда
а но или тогда кандай канша калай кайда кашан кай ал бирак немесе"""
CLAUSE_OPENERS = frozenset(_CLAUSE_OPENERS_TEXT.split())
SYMPTOMS = frozenset({"broken", "slow", "weak"})
# concepts that, in a purpose clause, name a usage, not a topic: a brand or a pastime the service is for ("чтоб
# ютуб смотреть", "ойын ойнау үшін") and a symptom wished away ("чтоб не тормозил")
USAGE = frozenset({"brand", "activity"}) | SYMPTOMS

_WORKING_TEXT = """есть работает работают работал пашет горит ловит нормально норм бар истейди истеп жумыс
жанып цепляется подключается подключен подключено видит коседи косылады косылып"""
WORKING = frozenset(_WORKING_TEXT.split())
CONTRASTS = frozenset({"а", "но", "однако", "ал", "бирак", "биракта"})
WORKING_WORDS_BEFORE = 2  # the "works" word is one of the last words before the contrast
DEVICES = frozenset({"settop", "router", "terminal"})  # the device that works stays: "приставка горит а каналов нет"
NEGATORS = frozenset({"не", "нет", "жок", "емес"})


def _words(question: str) -> tuple[list[str], list[str]]:
    raw = _WORD.findall(question.lower())
    return raw, [w.translate(_FOLD) for w in raw]


def _topic(words: list[str]) -> bool:
    """The words name a topic concept of ours (a concept weighing a topic, not another company's)."""
    return any(t.names and t.weight >= 1.0 and not t.names <= USAGE for t in SCORER.terms(" ".join(words)))


def _usage(word: str) -> bool:
    """A word that, in a purpose clause, names what the service is used for (`USAGE`) or how it goes (a plain
    verb: "грузился"); a noun is no usage: "электр жарығы үшін" (for electricity) is what is asked about."""
    terms = SCORER.terms(word)
    return bool(terms) and all((t.names and t.names <= USAGE) or (not t.names and t.weight < 1.0) for t in terms)


def _purpose_spans(folded: list[str]) -> list[range]:
    spans = []
    for i, word in enumerate(folded):
        if word in PURPOSE_OPENERS:
            end = next((j for j in range(i + 1, len(folded)) if folded[j] in CLAUSE_OPENERS), len(folded))
            spans.append(range(i + 1, end))
        elif word in PURPOSE_CLOSERS:
            start = i
            while start > max(0, i - PURPOSE_WORDS_BEFORE) and folded[start - 1] not in CLAUSE_OPENERS:
                start -= 1
            spans.append(range(start, i))
    return [s for s in spans if len(s)]


def without_purpose(question: str) -> str:
    """`question` without the usage words of a purpose clause, when the rest has a topic (module docstring)."""
    raw, folded = _words(question)
    spans = _purpose_spans(folded)
    if not spans:
        return question
    inside = {i for s in spans for i in s}
    if not _topic([w for i, w in enumerate(raw) if i not in inside]):
        return question
    kept = [w for i, w in enumerate(raw) if i not in inside or not _usage(w)]
    return " ".join(kept) if len(kept) < len(raw) else question


def without_working_part(question: str) -> str:
    """`question` from the clause after "X works but Y does not" on (module docstring); as said otherwise."""
    raw, folded = _words(question)
    for j in range(len(folded) - 1, 0, -1):
        if folded[j] not in CONTRASTS:
            continue
        if not any(w in WORKING for w in folded[max(0, j - WORKING_WORDS_BEFORE) : j]):
            continue
        rest = raw[j + 1 :]
        if any(w in NEGATORS for w in folded[j + 1 :]) or any(
                t.names & SYMPTOMS for t in SCORER.terms(" ".join(rest))):
            device = [w for w in raw[:j] if any(t.names & DEVICES for t in SCORER.terms(w))]
            return " ".join(device + rest) if SCORER.terms(" ".join(rest)) else question
    return question


def focused(question: str) -> str:
    """The settled question with what is not its topic dropped: the working part, then a purpose's usage words."""
    return without_purpose(without_working_part(question))
