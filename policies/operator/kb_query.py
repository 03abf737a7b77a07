"""The question as the operator asks the knowledge base (pure): places named by the caller become their region.

Knowledge-base articles name a region the way its title does ("Плановые работы в Карагандинской области",
"Сервисный центр в Астане"); callers name a town inside it ("в Шахтинске", "Теміртауда"), an old name
("Целиноград"), an abbreviation ("ВКО") or "the capital" ("в столице", "елордада"). `knowledge_query` replaces
each place the region resolver finds (`regions.places_in`: streets and people's names are not places) by the
region's own name in the caller's language ("Карагандинская", "Астана"), so the relevance score compares one
region word with another. What the caller took back ("не про оплату а про роутер", "нет подождите ...") is
dropped first (kb_correction.py), then what is not its topic: a purpose's usage words ("чтоб ютуб смотреть") and
the part that still works ("вайфай есть а интернета нет"; kb_focus.py); everything else is kept as said.
"""

from __future__ import annotations

import re

from ai_operator.dialogue import KnowledgeSearch
from policies.operator.kb_correction import settled_question
from policies.operator.kb_focus import focused
from policies.operator.knowledge import REGION
from policies.operator.region_data import REGIONS_BY_CODE
from policies.operator.regions import places_in
from policies.operator.text import fold

_GENERIC = re.compile(r"\b(область|облысы|город|қаласы|области)\b", re.IGNORECASE)


def region_word(code: str, language: str) -> str:
    """The region's name without "область"/"облысы"/"город"/"қаласы" ("Карагандинская", "Астана")."""
    region = REGIONS_BY_CODE[code]
    return " ".join(_GENERIC.sub(" ", region.name(language)).split())


_OUR_NUMBER = re.compile(r"\b16\s?16\b")  # the support line said in digits: as "шестнадцать шестнадцать" is
# a home tariff by its name ("Дом 300", "Үй бес жүз"): "home" and a number, which carry little, are a tariff's name
_TARIFF_NAME = re.compile(
    r"\b(дом|үй|уй)\s+(?=(?:100|300|500|1000|сто|триста|пятьсот|тысяч[аиу]?|жүз|үш жүз|бес жүз|мың)\b"
    r"(?!\s+(?:лет|года?|метр\w*|этаж\w*|жыл\w*|квартир\w*)))", re.IGNORECASE)
# "пятисотый тариф" (the five-hundred one): the speed it names
_ORDINAL = re.compile(r"\b(сот|двухсот|трехсот|трёхсот|пятисот|тысячн)(ый|ого|ом|ому|ая|ой|ую|ые|ых)\b", re.IGNORECASE)
_ORDINAL_SPEED = {"сот": "сто", "двухсот": "двести", "трехсот": "триста", "трёхсот": "триста", "пятисот": "пятьсот",
                  "тысячн": "тысяча"}


def _named(question: str) -> str:
    """A tariff named ("дом 300", "пятисотый тариф") said as the tariff and the speed it is."""
    question = _TARIFF_NAME.sub(lambda m: f"тариф {m.group(1)} ", question)
    return _ORDINAL.sub(lambda m: f"{_ORDINAL_SPEED[m.group(1).lower()]} мегабит", question)


def knowledge_query(question: str, language: str) -> str:
    """`question` as finally asked (`kb_correction.settled_question`: what the caller took back is dropped;
    `kb_focus.focused`: what is not its topic), each
    place named in it replaced by its region's name (see the module docstring)."""
    question = _named(_OUR_NUMBER.sub("шестнадцать шестнадцать", focused(settled_question(question))))
    places = places_in(question)
    if not places:
        return question
    words = question.split()
    folded = [fold(w).strip() for w in words]
    out: list[str] = []
    done: set[int] = set()
    for i, word in enumerate(words):
        hit = next(((n, p) for n, p in enumerate(places)
                    if folded[i] and any(folded[i] == w or folded[i].startswith(w) for w in p.words)), None)
        if hit is None:
            out.append(word)
            continue
        n, place = hit
        if n not in done:
            done.add(n)
            out.append(region_word(place.code, language))
    return " ".join(out)


def knowledge_search(question: str, language: str, region_code: str) -> KnowledgeSearch:
    """The search the operator sends for a caller's question in `language` from `region_code` ("": none): the
    question as `knowledge_query` makes it, the region's entries and the national ones, and a Kazakh question with
    nothing relevant in Kazakh answered from the Russian entries. A call and `kb calibrate` ask alike."""
    fallback = ("ru",) if language == "kk" else ()
    return KnowledgeSearch(knowledge_query(question, language), language,
                           {REGION.key: region_code} if region_code else {}, fallback_languages=fallback)
