"""Search-query preparation (pure): the full-text part of a hybrid search as a `simple`-config tsquery.

The `simple` configuration does no stemming, so content words become prefix terms cut before a typical
Russian/Kazakh ending ("тарифы" -> 'тариф':*, "төлемді" -> 'төлем':*) and are OR-ed; question words and
particles are dropped so that a match means a shared *topic* word. `synonym_patterns` adds the stems of the
lexicon synonym sets the question names (the profile's scorer, relevance.py), so the text match also finds
paraphrases. The stop words are Russian and Kazakh (the HashEmbedder shares them); a word of another language
that is a stop word there is simply a term here, which the relevance score then weighs with its own lexicon.
"""

from __future__ import annotations

import re

MIN_TERM_CHARS = 2
EXACT_MAX_CHARS = 3  # shorter words are matched whole
PREFIX_MIN_CHARS = 5
SUFFIX_CUT = 4
MAX_TERMS = 24
MAX_SYNONYM_TERMS = 8

_STOPWORDS_TEXT = """
    и в во на с со по к ко у о об от до за из для не ни а но или ли же бы то что как где когда какой какая какие
    каким какую какое мне меня мой моя мои моё мое я вы вас вам ваш ваша ваши это этот эта эти есть можно нужно надо
    там тут так уже еще ещё сколько почему зачем кто чем если при через без под над про сейчас здравствуйте
    пожалуйста скажите подскажите хочу хотел хотела хотим его её ее их он она они мы нас нам будет был была было
    и мен менің маған менде сен сіз сіздің сізге сізде біз біздің бізге да де та те ма ме ба бе па пе бұл осы сол
    не неге қалай қандай қайда қашан неше қанша кім бар жоқ керек болады бола ма ғой ғана үшін туралы
    сәлеметсіз сәлем айтыңызшы өтінемін шығар деген еді екен және немесе мүмкін
"""
STOPWORDS = frozenset(_STOPWORDS_TEXT.split())

_WORD_RE = re.compile(r"\w+", re.UNICODE)


def query_terms(text: str) -> list[str]:
    """Content words of `text`, lower-cased, deduplicated, in order."""
    out: list[str] = []
    for word in _WORD_RE.findall(text.lower()):
        if len(word) < MIN_TERM_CHARS or word in STOPWORDS or word.isdigit() or word in out:
            continue
        out.append(word)
    return out[:MAX_TERMS]


def term_pattern(word: str) -> str:
    """One tsquery operand for a word: whole for short words, else a prefix without the usual ending."""
    if len(word) <= EXACT_MAX_CHARS:
        return f"'{word}'"
    stem = word if len(word) <= PREFIX_MIN_CHARS else word[: max(PREFIX_MIN_CHARS, len(word) - SUFFIX_CUT)]
    return f"'{stem}':*"


def term_patterns(text: str) -> list[str]:
    """The tsquery operand of each content word, deduplicated."""
    patterns: list[str] = []
    for word in query_terms(text):
        p = term_pattern(word.replace("'", ""))
        if p not in patterns:
            patterns.append(p)
    return patterns


def synonym_patterns(stems: list[tuple[str, bool]], already: list[str] | None = None) -> list[str]:
    """tsquery operands for the lexicon synonyms of the question's topics (`stems`: the scorer's
    `synonym_stems`), not in `already`: a prefix for a stem, the whole word for a whole-word entry."""
    seen = set(already or ())
    out: list[str] = []
    for word, exact in stems:
        clean = word.replace("'", "").replace("\\", "")
        if not clean:
            continue
        p = f"'{clean}'" if exact or len(clean) <= EXACT_MAX_CHARS else f"'{clean}':*"
        if p not in seen:
            seen.add(p)
            out.append(p)
    return out[:MAX_SYNONYM_TERMS]
