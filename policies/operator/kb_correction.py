"""What a caller finally asked (pure): a self-correction or a "not X but Y" contrast leaves the later clause.

A transcript keeps everything said: "сколько стоит ой нет подождите как баланс узнать", "не про оплату а про
роутер", "тариф емес теңгерім туралы". The knowledge base should be asked only what the caller settled on, so
`settled_question` keeps the words after the last self-correction marker ("нет подождите", "то есть",
"вернее", "точнее", "в смысле", "жоқ кешіріңіз", "дұрысы", "яғни", ...; a marker that may only restate, such
as "то есть", "в смысле", "яғни", only when what follows carries a topic of its own), and drops a negated topic before a
contrast ("не X а Y": Y; "X емес Y": Y). A negation of a verb is not a contrast of topics ("интернет не работает
а роутер горит" keeps both), a bare "нет" is not a correction ("нет интернета"), and a cut is made only when the
rest still has a content term; otherwise the question is kept as said.
"""

from __future__ import annotations

import re

from ai_operator.kb.kazakh import is_kazakh
from ai_operator.kb.morphology import russian_pos
from policies.operator.knowledge import SCORER

# self-correction markers (folded like `_words`), each a word sequence; the rest after the last one is the question
_MARKERS_TEXT = """
нет подождите|нет подожди|нет стоп|нет стойте|нет извините|нет нет|ой нет|хотя нет|нет не то|
то есть|вернее|точнее|в смысле|я имею в виду|имею в виду|извините не то|стоп стоп|
жок жок|жок токтаныз|жок кешириниз|жок кутиниз|жок кете турыныз|жок жок жок|дурысы|ягни|айтпакшы жок|
кешириниз кате|кате айттым|ой стоп|так стоп|ой подождите|ой секунду|токтаныз
"""
MARKERS = tuple(tuple(m.split()) for m in _MARKERS_TEXT.replace("\n", "").split("|") if m.strip())
# markers that may only restate ("расторгнуть договор ну то есть совсем отключиться"): they cut only when what
# follows carries a topic of its own (two content terms, one a topic word); otherwise both parts are kept
CLARIFIERS = frozenset({("то", "есть"), ("в", "смысле"), ("имею", "в", "виду"), ("я", "имею", "в", "виду"),
                        ("ягни",)})
OWN_TOPIC_TERMS = 2
_MARKERS_BY_FIRST: dict[str, list[tuple[str, ...]]] = {}
for _marker in MARKERS:
    _MARKERS_BY_FIRST.setdefault(_marker[0], []).append(_marker)
RU_NEGATOR = "не"
KK_NEGATOR = "емес"
CONTRAST = frozenset({"а", "но", "ал"})
PARTICIPLE = ("ган", "ген", "кан", "кен")  # folded
VERBAL = frozenset({"VERB", "INFN", "PRTS", "PRTF", "GRND", "PRED"})
MAX_NEGATED_WORDS = 4  # "не про оплату за интернет а ...": at most this many words between "не" and "а"
_FOLD = str.maketrans({"ё": "е", "қ": "к", "ғ": "г", "ұ": "у", "ү": "у", "ө": "о", "ә": "а", "і": "и", "ң": "н"})
_WORD = re.compile(r"\w+", re.UNICODE)


def _words(question: str) -> tuple[list[str], list[str]]:
    raw = _WORD.findall(question.lower())
    return raw, [w.translate(_FOLD) for w in raw]


def _has_content(words: list[str]) -> bool:
    return bool(SCORER.terms(" ".join(words)))


def _own_topic(words: list[str]) -> bool:
    terms = SCORER.terms(" ".join(words))
    return len(terms) >= OWN_TOPIC_TERMS and any(t.names and t.weight >= 1.0 for t in terms)


def _after_marker(folded: list[str], raw: list[str]) -> int:
    """The index after the last self-correction marker whose rest has content (a clarifier's: its own topic),
    0 when none."""
    start = 0
    for i, word in enumerate(folded):
        for marker in _MARKERS_BY_FIRST.get(word, ()):
            if tuple(folded[i : i + len(marker)]) == marker and i + len(marker) < len(folded):
                if marker == ("то", "есть") and folded[i + 2 : i + 3] == ["то"]:
                    continue  # "то есть то нет": on and off, no correction
                if marker in CLARIFIERS and not _own_topic(raw[i + len(marker) :]):
                    continue  # a restatement ("то есть совсем отключиться"): both parts are what was asked
                start = max(start, i + len(marker))
    return start


def _after_contrast(raw: list[str], folded: list[str]) -> int:
    """The index after a "не X а Y" contrast of topics (X holds no verb) or after "X емес" followed by more,
    0 when none."""
    start = 0
    for i, word in enumerate(folded):
        if word == KK_NEGATOR and 0 < i < len(folded) - 1 and not folded[i - 1].endswith(PARTICIPLE):
            start = max(start, i + 1)  # "тариф емес баланс"; "түскен емес" negates a verb: no contrast
        if word != RU_NEGATOR:
            continue
        for j in range(i + 1, min(len(folded), i + 2 + MAX_NEGATED_WORDS)):
            if folded[j] in CONTRAST and j > i + 1:
                between = [w for w in raw[i + 1 : j] if w != RU_NEGATOR]
                if between and not any(russian_pos(w) in VERBAL or is_kazakh(w) for w in between):
                    start = max(start, j + 1)
                break
    return start


def settled_question(question: str) -> str:
    """`question` without what the caller took back (see the module docstring)."""
    raw, folded = _words(question)
    start = max(_after_marker(folded, raw), _after_contrast(raw, folded))
    if start == 0 or start >= len(raw) or not _has_content(raw[start:]):
        return question
    return " ".join(raw[start:])
