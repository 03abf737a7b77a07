"""Which service language the caller means: "ru", "kk", or an explicit unknown. Pure.

Built on `grammar`: the mentions of a language in the caller's words are found on the Cyrillic view (so
"qazaqsha", "Қазақша" and "казакша" look alike), including indirect names ("государственный язык",
"мемлекеттік тіл", "ана тілі", "state language" = kk; "язык межнационального общения" = ru), then `choose`
applies negation ("только не на русском" -> kk, "по-казахски не понимаю" -> ru, "орыс тілін білмеймін" -> kk,
"no not russian" -> kk) and self-correction ("сначала казахский нет давайте русский" -> ru). A language the
operator does not serve ("английский") gives `unsupported`; both named gives `ambiguous`; nothing gives
`unknown`. `how` tells whether the choice was named, corrected, or inferred from a negation. `spoken_language`:
the language a caller who names none simply talks in.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from policies.operator.grammar import AMBIGUOUS, CHOSEN, Mention, analyse, choose, content, is_question

SELECTED = "selected"
UNSUPPORTED = "unsupported"
UNKNOWN = "unknown"
COMPLEMENT = {"ru": "kk", "kk": "ru"}
MAX_BARE_CHANGE_WORDS = 3  # "давайте на казахском" is a change even without a switch verb

_RU = re.compile(r"^(русск\w*|русски|рус|орыс\w*|russian|русиан|по русски|russki\w*)$")
_KK = re.compile(r"^(казахск\w*|казахш\w*|казакш\w*|казах|казак|казакка|казактын|kazakh|kazakhsha|qazaq\w*)$")
_STATE = re.compile(r"^(государствен\w*|гос|мемлекеттик|state|ана|национальн\w*)$")
_LANGUAGE_NOUN = re.compile(r"^(язык\w*|тил\w*|language)$")
_INTERETHNIC = re.compile(r"^межнациональн\w*$")
_OTHER = re.compile(
    r"^(английск\w*|english|агылшын\w*|немецк\w*|german|французск\w*|french|турецк\w*|китайск\w*|chinese|"
    r"узбекск\w*|кыргызск\w*|киргизск\w*|украинск\w*)$"
)
_CHANGE_WORDS = re.compile(
    r"^(давай\w*|перейд\w*|переключ\w*|говори\w*|поговор\w*|можно|смен\w*|помен\w*|сойлей\w*|сойлесе\w*|"
    r"ауыстыр\w*|switch|speak|продолж\w*|жалгас\w*)$"
)
# Words that may stand beside a bare language name in a switch ("қазақша болсын", "русский язык").
_BARE_OK = re.compile(
    r"^(язык\w*|тил\w*|language|state|ок|ok|хорошо|ладно|жаксы|жарайды|болсын|керек|нужно|надо|лучше|плиз|"
    r"нет|жок|no|ой|тоесть|вернее|дурысы|imean|только|тек|государствен\w*|гос|мемлекеттик|ана|родн\w*|"
    r"удобнее|проще|ынгайлы|онай|prefer|rather|не|без|not|емес)$"
)
_NOT_UNDERSTOOD = re.compile(
    r"^(понима\w*|пойм\w*|зна\w*|владе\w*|говор\w*|разговарива\w*|understand|speak|know|"
    r"билмей\w*|тусинбей\w*|сойлемей\w*|сложно|трудно|тяжело|киын\w*|нашар|плохо)$"
)


@dataclass(frozen=True, slots=True)
class LanguageResult:
    """`value` is "ru"/"kk" when `status` is selected; `how`: named, correction, negation, indirect."""

    status: str
    value: str | None = None
    how: str = ""
    reason: str = ""

    @property
    def selected(self) -> bool:
        return self.status == SELECTED


def _mentions(toks: tuple[str, ...]) -> tuple[list[Mention], bool, bool]:
    found: list[Mention] = []
    indirect = other = False
    skip = -1
    for i, t in enumerate(toks):
        if i <= skip:
            continue
        nxt = toks[i + 1] if i + 1 < len(toks) else ""
        if _RU.match(t):
            found.append(Mention(i, i + 1, "ru"))
        elif _KK.match(t):
            found.append(Mention(i, i + 1, "kk"))
        elif _STATE.match(t) and _LANGUAGE_NOUN.match(nxt):
            found.append(Mention(i, i + 2, "kk"))
            indirect, skip = True, i + 1
        elif _INTERETHNIC.match(t):
            found.append(Mention(i, i + 1, "ru"))
            indirect = True
        elif _OTHER.match(t):
            other = True
    return found, indirect, other


def understand_language(text: str) -> LanguageResult:
    """What language `text` asks for (see the module docstring)."""
    toks = analyse(text).cyr
    mentions, indirect, other = _mentions(toks)
    if not mentions:
        if other:
            return LanguageResult(UNSUPPORTED, reason="a language the operator does not serve")
        return LanguageResult(UNKNOWN, reason="no language named")
    choice = choose(toks, mentions, COMPLEMENT)
    if choice.status == CHOSEN:
        how = "indirect" if indirect and choice.how == "named" else choice.how
        return LanguageResult(SELECTED, choice.value, how, f"{how}: {choice.value}")
    if choice.status == AMBIGUOUS:
        return LanguageResult(UNKNOWN, reason="both languages named")
    return LanguageResult(UNKNOWN, reason=f"language {choice.how}")


# A caller who answers the language question by simply talking ("здравствуйте я из Павлодара хотел узнать по
# тарифам", "сәлеметсіз бе мен Ақтөбеденмін интернет жоқ") has chosen the language he talks in: at least
# `SPOKEN_MIN_WORDS` words that say something (not a greeting, "алло", "вы меня слышите").
SPOKEN_MIN_WORDS = 3
_KAZAKH_LETTERS = frozenset("әғқңөұүһі")
_KAZAKH_WORDS = frozenset({"мен", "сен", "биз", "бар", "жок", "керек", "деп", "еди", "едим", "гой", "гана", "ма", "ме",
                           "ба", "бе", "па", "пе", "кандай", "калай", "канша", "кайда", "иа", "ия", "жаксы"})
_SAYS_NOTHING = re.compile(
    r"^(алло|ало|алле|але|да|нет|здравствуйте|здрасте|здрасьте|добрый|день|вечер|утро|привет|слышно|слышите|"
    r"слышишь|меня|вы|я|ты|вот|эээ|ээ|мм|ммм|ассалаумагалейкум|салеметсиз|салем|саламатсызба|сизди|естимин|"
    r"естисиз|бе|ма|иа|ия|hello|hi|yes|ok|окей)$"
)


def spoken_language(text: str) -> str | None:
    """The language the caller talks in when he names none: "kk" for Kazakh letters or Kazakh words, "ru" for
    other Cyrillic speech; None for a greeting, "алло, вы меня слышите", or too few words to tell."""
    toks = analyse(text).cyr
    named, _, other = _mentions(toks)
    if named or other:
        return None  # a language named ("русский или казахский"), or one not served: not what he talks in
    saying = [t for t in content(toks) if not _SAYS_NOTHING.match(t)]
    if len(saying) < SPOKEN_MIN_WORDS:
        return None
    raw = (text or "").lower()
    if _KAZAKH_LETTERS & set(raw) or any(t in _KAZAKH_WORDS for t in toks):
        return "kk"
    cyrillic = sum("а" <= ch <= "я" or ch == "ё" for ch in raw)
    latin = sum("a" <= ch <= "z" for ch in raw)
    return "ru" if cyrillic > latin else None


def language_change(text: str) -> str | None:
    """The language an utterance asks to switch to after the choice, or None.

    A switch is a short utterance that is just a language ("на казахском", "қазақша болсын"), one with a switch
    word ("давайте по-русски"), or one about understanding ("я по-казахски не понимаю"). A question or a topic
    that mentions a language ("есть ли каналы на казахском языке", "русский канал") is not a switch.
    """
    result = understand_language(text)
    if not result.selected:
        return None
    toks = analyse(text).cyr
    rest = [t for t in content(toks) if not _RU.match(t) and not _KK.match(t)]
    if len(rest) < MAX_BARE_CHANGE_WORDS and not is_question(toks) and all(_BARE_OK.match(t) for t in rest):
        return result.value  # "на казахском", "орысша болсын", not "русский канал"
    if any(_CHANGE_WORDS.match(t) for t in toks):
        return result.value
    if not is_question(toks) and any(_NOT_UNDERSTOOD.match(t) for t in toks):
        return result.value  # "мен қазақша білмеймін", "я по-русски плохо понимаю"
    return None
