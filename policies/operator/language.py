"""Language detector: natural text (Russian, Kazakh, Latin transliteration) -> "ru", "kk" or None. Pure.

Works on folded text (see `text.fold`), so "Қазақша!", "казакша" and "qazaqsha" look alike. Text naming both
languages, or neither, gives None and the policy re-asks. `language_change` is the stricter test used after the
language is chosen: a short utterance that is just a language, or one with an explicit "switch" word.
"""

from __future__ import annotations

import re

from policies.operator.text import fold, words

LANGUAGES: tuple[str, ...] = ("ru", "kk")
DTMF_LANGUAGE: dict[str, str] = {"1": "ru", "2": "kk"}
MAX_BARE_CHANGE_WORDS = 3  # "давайте на казахском" counts as a change without a switch verb

_RU = re.compile(
    r"\b(русск\w*|по русски|орысша|орыс\w* тил\w*|орыс ша|russian|russk\w*|po russki\w*|russkii|orys\w*|на русском)\b"
)
_KK = re.compile(
    r"\b(казакша|казак тил\w*|казакш\w*|казахск\w*|на казахском|kazakh(?!stan)\w*|kazaksha|qazaq(?!stan)\w*|kazak tili\w*)\b"
)
_STRICT = {"ru": "ru", "rus": "ru", "kk": "kk", "kaz": "kk", "kz": "kk"}
_CHANGE_WORDS = re.compile(
    r"\b(давай\w*|перейд\w*|переключ\w*|говори\w*|поговор\w*|можно|смен\w*|помен\w*|сойлей\w*|сойлесе\w*|"
    r"ауыстыр\w*|switch|speak)\b"
)


def detect_language(text: str) -> str | None:
    """ "ru" or "kk" when `text` names exactly one of them (any script, extra words allowed); else None."""
    folded = fold(text)
    ru = _RU.search(folded) is not None
    kk = _KK.search(folded) is not None
    if ru == kk:
        return None
    return "ru" if ru else "kk"


def strict_language(value: str) -> str | None:
    """A code ("ru", "kk", also "rus"/"kaz"/"kz") or natural text -> "ru"/"kk"; None when it is neither."""
    code = _STRICT.get((value or "").strip().lower())
    return code or detect_language(value or "")


def language_change(text: str) -> str | None:
    """The language an utterance explicitly asks to switch to, or None (a question mentioning a language is not)."""
    lang = detect_language(text)
    if lang is None:
        return None
    if len(words(text)) <= MAX_BARE_CHANGE_WORDS or _CHANGE_WORDS.search(fold(text)):
        return lang
    return None
