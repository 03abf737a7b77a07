"""The shared grammar of the operator's detectors: token normalisation, negation scope, self-correction. Pure.

`analyse(text)` turns an ASR transcript into an `Utterance` with two aligned token views:

- `words`: folded tokens in their own script (see `text.fold`), fillers removed ("ну", "э", "ммм", "как бы",
  "слушайте", "әлгі"), Latin look-alikes inside Cyrillic words fixed ("бiлмеймiн"), spelling variants made
  canonical ("рақмет" -> "рахмет"), contractions merged ("don t" -> "dont") and a Kazakh copula dropped after a
  case ending ("қарағандыданмын" -> "карагандыдан"). The region resolver reads these.
- `cyr`: the same tokens with Latin transliterated to Cyrillic ("qazaqsha" -> "казакша", "operatorga qosynyz"
  -> "операторга косыныз"), except the English words the lexicons know ("please", "not", "russian"). The
  language, handoff, closing and region-change detectors read these.

`choose(tokens, mentions, complement)` decides between named values the way a person hears them: a negated
mention ("не на русском", "по-казахски не понимаю", "қала емес", "орыс тілін білмеймін") is excluded; a
self-correction or contrast ("нет", "то есть", "вернее", "дұрысы", "жоқ", "а", "но") makes the last stated
choice win; with two options, excluding one chooses the other. Anything else is an explicit unknown.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache

from policies.operator.text import fold

CHOSEN = "chosen"
AMBIGUOUS = "ambiguous"
UNKNOWN = "unknown"

# --- normalisation tables --------------------------------------------------------------------------------------
FILLERS = frozenset(
    {"ну", "э", "ээ", "эм", "эмм", "хм", "ммм", "мм", "м", "ааа", "аа", "короче", "типа", "слушайте", "слушай",
     "значит", "вот", "блин", "алги", "жанагы", "енди", "uh", "um", "uhm", "hmm", "erm", "well"}
)
FILLER_PAIRS = frozenset({("как", "бы"), ("это", "самое"), ("так", "сказать"), ("в", "общем"), ("you", "know")})
_FILLER_RE = re.compile(r"^(м{2,}|э{2,}|а{3,}|ы{2,}|хм+|mm+|uh+|um+|hm+|eh+|ah+)$")
CANON: Mapping[str, str] = {
    "ракмет": "рахмет", "рахмед": "рахмет", "рахмат": "рахмет", "рахметь": "рахмет", "rakhmet": "рахмет",
    "rahmet": "рахмет", "raqmet": "рахмет", "спс": "спасибо", "пасиб": "спасибо", "спасиб": "спасибо",
    "хош": "кош", "досвидания": "до свидания", "досвиданья": "до свидания", "свиданья": "свидания",
    "пжл": "пожалуйста", "пж": "пожалуйста", "плиз": "please", "pls": "please", "plz": "please",
}
_MERGE: Mapping[tuple[str, str], str] = {
    ("don", "t"): "dont", ("do", "not"): "dont", ("can", "t"): "cant",
    ("то", "есть"): "тоесть", ("i", "mean"): "imean", ("кем", "нибудь"): "кемнибудь",
    ("кого", "нибудь"): "когонибудь", ("кто", "нибудь"): "ктонибудь", ("кем", "то"): "кемнибудь",
    ("кого", "то"): "когонибудь", ("кто", "то"): "ктонибудь", ("that", "s"): "thats",
}
# English words the lexicons use: kept in Latin in the `cyr` view instead of transliterated.
ENGLISH = frozenset(
    {"please", "not", "no", "dont", "cant", "never", "without", "except", "i", "me", "my", "to", "with", "a",
     "an", "the", "in", "on", "of", "from", "and", "or", "but", "than", "actually", "imean", "wait", "sorry",
     "speak", "understand", "know", "want", "need", "prefer", "rather", "better", "like", "russian", "kazakh",
     "english", "language", "state", "native", "human", "person", "someone", "somebody", "anyone", "agent",
     "manager", "specialist", "consultant", "representative", "live", "real", "connect", "transfer", "talk",
     "put", "get", "give", "call", "bot", "robot", "machine", "are", "you", "bye", "goodbye", "thanks", "thank",
     "thats", "all", "nothing", "else", "see", "region", "city", "change", "switch", "moved", "another",
     "other", "different", "through", "is", "it", "that", "s", "do", "can", "will", "would", "what", "how"}
)
_LATIN_IN_CYR = str.maketrans("aeopcxykmthbi", "аеорсхукмтнви")
_HAS_CYR = re.compile(r"[а-я]")
_HAS_LAT = re.compile(r"[a-z]")
_TRANSLIT = (
    ("shch", "щ"), ("sh", "ш"), ("ch", "ч"), ("zh", "ж"), ("kh", "х"), ("gh", "г"), ("ts", "ц"), ("ya", "я"),
    ("yu", "ю"), ("yo", "е"),
)
_LETTERS = str.maketrans(
    {"a": "а", "b": "б", "c": "к", "d": "д", "e": "е", "f": "ф", "g": "г", "h": "х", "i": "и", "j": "ж",
     "k": "к", "l": "л", "m": "м", "n": "н", "o": "о", "p": "п", "q": "к", "r": "р", "s": "с", "t": "т",
     "u": "у", "v": "в", "w": "у", "x": "кс", "z": "з", "ä": "а", "ö": "о", "ü": "у", "ğ": "г", "ı": "ы",
     "ş": "ш", "ç": "ч", "ñ": "н"}
)
_Y_AFTER_VOWEL = re.compile(r"(?<=[aeiouаеиоуыэяю])y")
# A Kazakh copula after a case or "-лық" ending: "қарағандыданмын", "павлодардамын", "шымкенттікпін".
_COPULA = re.compile(
    r"(?<=\w{3})(дан|ден|тан|тен|нан|нен|да|де|та|те|лык|лик|дык|дик|тык|тик|"
    r"dan|den|tan|ten|nan|nen|da|de|ta|te|lyq|lyk|lik|tyq|tik)(мын|мин|пын|пин|бын|бин|мыз|миз|пыз|пиз|быз|биз|"
    r"myn|min|pyn|pin|byn|bin|myz|miz|byz|biz)$"
)

# --- negation and correction ------------------------------------------------------------------------------------
PRE_NEG = frozenset({"не", "ни", "без", "кроме", "чем", "than", "not", "dont", "cant", "never", "without", "except"})
WEAK = frozenset({"плохо", "слабо", "нашар", "poorly", "badly"})  # "плохо говорю по-русски"
DIFFICULT = frozenset(
    {"сложно", "трудно", "тяжело", "неудобно", "непонятно", "киын", "киынмын", "hard", "difficult"}
)
STRICT_POST_NEG = frozenset({"емес", "емеспин", "емеспиз"})
POST_NEG = frozenset({"емес", "емеспин", "емеспиз", "плохо", "нашар", "жаман", "гори", *DIFFICULT})
COGNITIVE = re.compile(
    r"^(понима\w*|пойм\w*|зна\w*|говор\w*|разговарива\w*|владе\w*|умею|speak|understand|know|talk|"
    r"хоч\w*|хотел\w*|нуж\w*|надо|want|need|like)$"
)
_LIVE_VERB = re.compile(r"^(живу|живем|проживаю|проживаем|нахожусь|находимся|звоню|live|am)$")
# A Kazakh verb in the negative: stem + -ма/-ме/-ба/-бе/-па/-пе + person or mood ("білмеймін", "қоспаңыз").
_KK_NEG_VERB = re.compile(
    r"^(бил|тусин|тур|сойле|сойлес|кос|жалга|шакыр|байланыстыр|ауыстыр|озгерт|кел|кала|бер|унат|айт|тында)"
    r"(ме|ма|пе|па|бе|ба)(й|и|с|ды|ди|ныз|низ|н|ндар|ндер)\w*$"
)
_KK_COGNITIVE_NEG = re.compile(r"^(бил|тусин|сойле)(ме|бе|пе)(й|с)\w*$")
CORRECTION = frozenset(
    {"нет", "жок", "жо", "no", "тоесть", "вернее", "точнее", "лучше", "дурысы", "ягни", "ой", "хотя",
     "давайте", "давай", "actually", "imean", "sorry", "wait", "извините", "кешириниз"}
)
CONTRAST = frozenset({"а", "но", "бирак", "but", "instead", "ал"})
OR = frozenset({"или", "либо", "немесе", "алде", "or"})
GLUE = frozenset(
    {"на", "по", "в", "во", "из", "с", "со", "от", "к", "ко", "до", "только", "именно", "тек", "тилин", "тили",
     "тилинде", "тилде", "тилинен", "тилине", "язык", "языке", "языка", "языком", "я", "мен", "мне", "маган",
     "вообще", "совсем", "особо", "очень", "тоже", "мулдем", "онша", "жаксы", "хорошо", "то", "же", "уж",
     "in", "on", "to", "the", "a", "i", "me", "my", "really", "very", "well", "much", "at", "all", "speak",
     "understand", "know", "please", "пожалуйста", "отинемин", "бола", "прям", "прямо", "еще"}
)
POLITE = frozenset(
    {"пожалуйста", "please", "отинемин", "отиниш", "будьте", "добры", "девушка", "извините", "кешириниз",
     "можно", "мне", "маган", "ка", "ну", "давайте", "срочно", "быстрее", "тез"}
)
QUESTION = frozenset(
    {"как", "какой", "какая", "какие", "сколько", "почему", "зачем", "где", "когда", "ли", "калай", "канша",
     "кайда", "кашан", "неге", "неше", "кандай", "ма", "ме", "ба", "бе", "па", "пе", "how", "what", "why",
     "where", "when"}
)


@dataclass(frozen=True, slots=True)
class Utterance:
    """A normalised transcript: aligned token views (see the module docstring)."""

    words: tuple[str, ...]
    cyr: tuple[str, ...]
    text: str  # `words` as one padded string (" a b "), for the alias patterns of the region resolver
    cyr_text: str  # `cyr` likewise, for phrase patterns

    def index_at(self, offset: int) -> int:
        """The token index of character `offset` of `text`."""
        return self.text.count(" ", 0, offset + 1) - 1


@dataclass(frozen=True, slots=True)
class Mention:
    """A named value at token span [start, end)."""

    start: int
    end: int
    value: str


@dataclass(frozen=True, slots=True)
class Choice:
    """What `choose` understood: `status` is chosen, ambiguous or unknown; `how` says why."""

    status: str
    value: str | None = None
    how: str = ""
    candidates: tuple[str, ...] = ()
    rejected: tuple[str, ...] = ()

    @property
    def chosen(self) -> bool:
        return self.status == CHOSEN


def to_cyrillic(word: str) -> str:
    """Latin transliteration of Kazakh/Russian to folded Cyrillic ("qosynyzshy" -> "косынызшы")."""
    w = _Y_AFTER_VOWEL.sub("й", word)
    for src, dst in _TRANSLIT:
        w = w.replace(src, dst)
    return w.replace("y", "ы").translate(_LETTERS)


def _fix_mixed(word: str) -> str:
    if _HAS_LAT.search(word) and _HAS_CYR.search(word):
        return word.translate(_LATIN_IN_CYR)
    return word


def _merge(raw: list[str]) -> list[str]:
    out: list[str] = []
    i = 0
    while i < len(raw):
        pair = (raw[i], raw[i + 1]) if i + 1 < len(raw) else None
        if pair in FILLER_PAIRS:
            i += 2
            continue
        if pair is not None and pair in _MERGE:
            out.append(_MERGE[pair])
            i += 2
            continue
        w = raw[i]
        if w == "cannot":
            w = "cant"
        out.append(w)
        i += 1
    return out


@lru_cache(maxsize=512)
def analyse(text: str) -> Utterance:
    """Normalise an ASR transcript into aligned token views (cached: the detectors share one analysis)."""
    raw = [_fix_mixed(w) for w in fold(text).split()]
    kept = [w for w in raw if w not in FILLERS and not _FILLER_RE.match(w)]
    words: list[str] = []
    for w in _merge(kept):
        canon = CANON.get(w, w)
        words.extend(canon.split())
    words = [_COPULA.sub(r"\1", w) for w in words]
    cyr = tuple(to_cyrillic(w) if _HAS_LAT.search(w) and w not in ENGLISH else w for w in words)
    return Utterance(tuple(words), cyr, _padded(words), _padded(cyr))


def _padded(tokens: Sequence[str]) -> str:
    return f" {' '.join(tokens)} " if tokens else " "


_KK_PLURAL = "(?:лар|лер|дар|дер|тар|тер)?"
_KK_POSSESSIVE = "(?:ымыз|имиз|ыныз|иниз|ныз|низ|ым|им|м|ын|ин|ы|и|сы|си)?"
_KK_CASE = (
    "(?:мен|пен|бен|га|ге|ка|ке|на|не|а|е|ды|ди|ты|ти|ны|ни|н|дын|дин|тын|тин|нын|нин|да|де|та|те|нда|нде|"
    "дан|ден|тан|тен|нан|нен)?"
)


def kk_noun(*stems: str) -> re.Pattern[str]:
    """A folded Kazakh noun from `stems` with any plural, possessive and case ending ("мамандарыңызбен")."""
    return re.compile(f"^(?:{'|'.join(stems)}){_KK_PLURAL}{_KK_POSSESSIVE}{_KK_CASE}$")


def kk_negative_verb(token: str) -> bool:
    """A Kazakh verb in the negative form ("билмеймин", "коспаныз", "келмейди"), on folded Cyrillic."""
    return _KK_NEG_VERB.match(token) is not None


def _starts(mentions: Sequence[Mention]) -> set[int]:
    return {m.start for m in mentions}


def _pre_negated(toks: Sequence[str], start: int, strict: bool, ends: set[int]) -> bool:
    verb = _LIVE_VERB if strict else COGNITIVE
    i, steps = start - 1, 0
    while i >= 0 and steps < 4:
        t = toks[i]
        if t in PRE_NEG or (not strict and t in DIFFICULT):
            return True
        if verb.match(t):
            return i > 0 and (toks[i - 1] in PRE_NEG or (not strict and toks[i - 1] in WEAK))
        if not strict and _KK_COGNITIVE_NEG.match(t):
            k = i
            while k > 0 and toks[k - 1] in GLUE and k not in ends:
                k -= 1
            return k not in ends  # "білмеймін орысша" (verb first), unless it follows another language
        if t not in GLUE:
            return False
        i, steps = i - 1, steps + 1
    return False


def _post_negated(toks: Sequence[str], end: int, starts: set[int], strict: bool) -> bool:
    j, steps = end, 0
    while j < len(toks) and steps < 4:
        if j in starts:
            return False
        t = toks[j]
        if t in ("не", "not", "dont", "cant", "ни") and not strict:
            k = j + 1
            while k < len(toks) and toks[k] in GLUE and k not in starts:
                k += 1
            return k not in starts
        if t in (STRICT_POST_NEG if strict else POST_NEG) or kk_negative_verb(t):
            return True
        if t not in GLUE and (strict or not COGNITIVE.match(t)):
            return False
        j, steps = j + 1, steps + 1
    return False


def is_negated(toks: Sequence[str], mention: Mention, mentions: Sequence[Mention] = (), strict: bool = False) -> bool:
    """Is `mention` inside a negation's scope? ("не на русском", "без оператора", "русский не понимаю",
    "қала емес", "орыс тілін білмеймін", "мне сложно на русском", "i dont speak russian").

    `strict` (places): only a direct negation counts ("не в Караганде", "не живу в ...", "Павлодар емес"),
    so "я из Павлодара не знаю какой тариф" keeps Павлодар."""
    ends = {m.end for m in mentions}
    return _pre_negated(toks, mention.start, strict, ends) or _post_negated(
        toks, mention.end, _starts(mentions), strict
    )


def _resets_between(toks: Sequence[str], lo: int, hi: int) -> bool:
    return any(t in CORRECTION or t in CONTRAST for t in toks[lo:hi])


def _trailing_no(toks: Sequence[str], end: int) -> bool:
    rest = [t for t in toks[end:] if t not in POLITE and t not in GLUE]
    return len(rest) == 1 and rest[0] in ("нет", "жок", "жо", "no")


def choose(
    toks: Sequence[str],
    mentions: Sequence[Mention],
    complement: Mapping[str, str] | None = None,
    *,
    strict: bool = False,
) -> Choice:
    """The value the caller means among `mentions`; see the module docstring (`strict`: see `is_negated`)."""
    ordered = sorted(mentions, key=lambda m: m.start)
    current: list[str] = []
    rejected: list[str] = []
    corrected = False
    prev_end = 0
    for n, m in enumerate(ordered):
        if n and _resets_between(toks, prev_end, m.start) and current:
            current, corrected = [], True
        last = n == len(ordered) - 1
        disjunct = n > 0 and any(t in OR for t in toks[prev_end:m.start])  # "русский или казахский не знаю"
        if not disjunct and (is_negated(toks, m, ordered, strict) or (last and _trailing_no(toks, m.end))):
            rejected.append(m.value)
            current = [v for v in current if v != m.value]
        else:
            rejected = [v for v in rejected if v != m.value]
            if m.value not in current:
                current.append(m.value)
        prev_end = m.end
    if len(current) == 1:
        return Choice(CHOSEN, current[0], "correction" if corrected else "named", rejected=tuple(rejected))
    if len(current) > 1:
        return Choice(AMBIGUOUS, candidates=tuple(current), how="several named", rejected=tuple(rejected))
    if rejected and complement:
        left = {complement[v] for v in rejected if v in complement} - set(rejected)
        if len(left) == 1:
            return Choice(CHOSEN, left.pop(), "negation", rejected=tuple(rejected))
    return Choice(UNKNOWN, how="only negated" if rejected else "nothing named", rejected=tuple(rejected))


def content(toks: Sequence[str]) -> list[str]:
    """The tokens that carry meaning: politeness words and glue removed."""
    return [t for t in toks if t not in POLITE and t not in GLUE]


def is_question(toks: Sequence[str]) -> bool:
    """A question word or particle is present (ru "как", "сколько"; kk "қалай", "ма"; en "how")."""
    return any(t in QUESTION for t in toks)
