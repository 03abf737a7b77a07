"""Number vocabulary of spoken Hindi, Hinglish and English, and the tokenizer that reads STT text with it.

Owns text normalisation (nukta dropped, chandrabindu -> anusvara, Devanagari digits -> Latin, lower case),
the word tables (एक .. निन्यानवे with their common spellings, सौ/हज़ार/लाख/करोड़, साढ़े/सवा/पौने, डेढ़/ढाई,
English and romanised multipliers, currency words) keyed by `spelling.key` (so पच्चिस, pachees and pachchis
are पच्चीस, and unnis hajar is उन्नीस हज़ार), and `tokenize`, which turns text into typed tokens (their `text`
is the spelling key) with their character spans in the normalised text. Pure: no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from policies.freight.spelling import key

NUKTA = "\u093c"
CHANDRABINDU = "\u0901"
ANUSVARA = "\u0902"
_DEVANAGARI_DIGITS = str.maketrans("०१२३४५६७८९", "0123456789")


def normalize(text: str) -> str:
    """Normal form every comparison uses: NFD without nukta, chandrabindu as anusvara, Latin digits, lower case."""
    t = unicodedata.normalize("NFD", text or "")
    t = t.replace(NUKTA, "").replace(CHANDRABINDU, ANUSVARA)
    t = unicodedata.normalize("NFC", t).translate(_DEVANAGARI_DIGITS)
    return t.lower()


# 0..99 in their standard spelling: index = value. say_rate speaks these; hear_rate also knows the variants.
HINDI_UNITS: tuple[str, ...] = (
    "शून्य", "एक", "दो", "तीन", "चार", "पांच", "छह", "सात", "आठ", "नौ",
    "दस", "ग्यारह", "बारह", "तेरह", "चौदह", "पंद्रह", "सोलह", "सत्रह", "अठारह", "उन्नीस",
    "बीस", "इक्कीस", "बाईस", "तेईस", "चौबीस", "पच्चीस", "छब्बीस", "सत्ताईस", "अट्ठाईस", "उनतीस",
    "तीस", "इकतीस", "बत्तीस", "तैंतीस", "चौंतीस", "पैंतीस", "छत्तीस", "सैंतीस", "अड़तीस", "उनतालीस",
    "चालीस", "इकतालीस", "बयालीस", "तैंतालीस", "चौवालीस", "पैंतालीस", "छियालीस", "सैंतालीस", "अड़तालीस", "उनचास",
    "पचास", "इक्यावन", "बावन", "तिरेपन", "चौवन", "पचपन", "छप्पन", "सत्तावन", "अट्ठावन", "उनसठ",
    "साठ", "इकसठ", "बासठ", "तिरसठ", "चौंसठ", "पैंसठ", "छियासठ", "सड़सठ", "अड़सठ", "उनहत्तर",
    "सत्तर", "इकहत्तर", "बहत्तर", "तिहत्तर", "चौहत्तर", "पचहत्तर", "छिहत्तर", "सतहत्तर", "अठहत्तर", "उन्यासी",
    "अस्सी", "इक्यासी", "बयासी", "तिरासी", "चौरासी", "पचासी", "छियासी", "सत्तासी", "अट्ठासी", "नवासी",
    "नब्बे", "इक्यानवे", "बानवे", "तिरानवे", "चौरानवे", "पचानवे", "छियानवे", "सत्तानवे", "अट्ठानवे", "निन्यानवे",
)  # fmt: skip

# Other spellings an STT writes for the same numbers.
HINDI_VARIANTS: dict[str, int] = {
    "पाँच": 5, "छः": 6, "छे": 6, "पन्द्रह": 15, "सतरह": 17, "अट्ठारह": 18, "अठ्ठारह": 18,
    "उन्तीस": 29, "तेंतीस": 33, "चौतीस": 34, "पैतीस": 35, "सैतीस": 37, "उन्तालीस": 39, "ब्यालीस": 42,
    "तेंतालीस": 43, "चवालीस": 44, "चौआलीस": 44, "पैतालीस": 45, "सैतालीस": 47, "इक्कयावन": 51,
    "इक्यान": 51, "तिरपन": 53, "चव्वन": 54, "उन्सठ": 59, "चौसठ": 64, "पैसठ": 65, "सरसठ": 67,
    "उनासी": 79, "उन्नासी": 79, "नव्वासी": 89, "नवासि": 89, "इक्यानबे": 91, "बानबे": 92, "तिरानबे": 93,
    "चौरानबे": 94, "पचानबे": 95, "छियानबे": 96, "सत्तानबे": 97, "अट्ठानबे": 98, "निन्यानबे": 99,
    "सत्ताइस": 27, "अट्ठाइस": 28, "बाइस": 22, "तेइस": 23, "छियालिस": 46,
    # romanised spellings the transliterated key does not reach (the key already folds aa/ee/oo, doubled letters)
    "sunya": 0, "shuny": 0, "chhah": 6, "chah": 6, "chhe": 6, "che": 6, "athhara": 18, "atharah": 18,
    "unnees": 19, "unnis": 19, "unis": 19, "bis": 20, "tais": 23, "teyis": 23, "tyeis": 23, "pacchis": 25,
    "chhabis": 26, "chabbis": 26, "sattais": 27, "athais": 28, "atthais": 28, "unatis": 29, "ikatis": 31,
    "battis": 32, "taintis": 33, "chautis": 34, "pentis": 35, "chattis": 36, "saintis": 37, "adtis": 38,
    "artis": 38, "chalis": 40, "paintalis": 45, "pachas": 50, "pachpan": 55, "sath": 60, "sattar": 70,
    "baish": 22, "teish": 23, "chobbish": 24, "chobish": 24, "pochish": 25,  # as a Bengali speaker says them
    "assi": 80, "nabbe": 90, "nabe": 90, "navve": 90, "चोबीस": 24, "चौबिस": 24, "chobis": 24, "chobbis": 24,
    "पाच": 5, "pach": 5, "paach": 5,
    "ikki": 21, "इक्की": 21, "teyi": 23, "tei": 23, "तेई": 23, "chauvi": 24, "चौवी": 24, "pachi": 25, "पच्ची": 25,
    "chhabbi": 26, "chabbi": 26, "छब्बी": 26,  # as a Punjabi speaker says them
}  # fmt: skip

ENGLISH_UNITS: dict[str, int] = {
    "zero": 0, "one": 1, "two": 2, "three": 3, "four": 4, "five": 5, "six": 6, "seven": 7, "eight": 8,
    "nine": 9, "ten": 10, "eleven": 11, "twelve": 12, "thirteen": 13, "fourteen": 14, "fifteen": 15,
    "sixteen": 16, "seventeen": 17, "eighteen": 18, "nineteen": 19,
}  # fmt: skip
ENGLISH_TENS: dict[str, int] = {
    "twenty": 20, "thirty": 30, "forty": 40, "fourty": 40, "fifty": 50, "sixty": 60, "seventy": 70,
    "eighty": 80, "ninety": 90,
}  # fmt: skip

HUNDRED_WORDS = ("सौ", "hundred", "sau", "sow")
BIG_WORDS: dict[str, int] = {
    "हजार": 1_000, "thousand": 1_000, "hazar": 1_000, "hazaar": 1_000, "hajar": 1_000, "hajaar": 1_000,
    "hazzar": 1_000, "k": 1_000, "thousands": 1_000,
    "लाख": 100_000, "lakh": 100_000, "lakhs": 100_000, "lac": 100_000, "lacs": 100_000, "lakh's": 100_000,
    "lakha": 100_000, "करोड": 10_000_000, "crore": 10_000_000, "crores": 10_000_000, "cr": 10_000_000,
    "karod": 10_000_000, "karor": 10_000_000, "million": 1_000_000,
}  # fmt: skip
# साढ़े X = X + 1/2, सवा X = X + 1/4, पौने X = X - 1/4 (of whatever multiplier follows).
FRACTION_MODIFIERS: dict[str, float] = {
    "साढे": 0.5, "सवा": 0.25, "पौने": -0.25, "पौन": -0.25, "saade": 0.5, "sade": 0.5, "saadhe": 0.5,
    "sadhe": 0.5, "sawa": 0.25, "sava": 0.25, "paune": -0.25, "pone": -0.25, "सव्वा": 0.25, "savva": 0.25,
    "पोने": -0.25, "पौणे": -0.25, "poune": -0.25, "sarhe": 0.5, "saarhe": 0.5, "साड़े": 0.5,
    "sadha": 0.5, "saadha": 0.5, "साढा": 0.5, "sare": 0.5, "saare": 0.5,  # Rajasthani, Bengali-accented साढ़े
}  # fmt: skip
# Units of their own: डेढ़ 1.5, ढाई 2.5, आधा 0.5, पौना 0.75 ("पौना लाख" = 75,000), with the spellings an STT writes.
FRACTION_UNITS: dict[str, float] = {
    "डेढ": 1.5, "डेढ़": 1.5, "ढाई": 2.5, "अढाई": 2.5, "dedh": 1.5, "derh": 1.5, "dhai": 2.5,
    "dhaai": 2.5, "adhai": 2.5, "डेड": 1.5, "ढेड": 1.5, "ढेढ": 1.5, "देढ": 1.5, "dhed": 1.5, "dhedh": 1.5,
    "dhaee": 2.5, "dhayi": 2.5, "ढाइ": 2.5, "adhaai": 2.5, "आधा": 0.5, "आधे": 0.5, "आधी": 0.5, "adha": 0.5,
    "adhe": 0.5, "adhi": 0.5, "half": 0.5, "पौना": 0.75, "pauna": 0.75, "pona": 0.75, "quarter": 0.25,
}  # fmt: skip
# A bare fraction is no figure of its own in rate talk ("aadha advance dena hoga" is no 50,000).
BARE_FRACTIONS = ("आधा", "आधे", "आधी", "adha", "adhe", "adhi", "half", "पौना", "pauna", "pona", "quarter")
POINT_WORDS = ("point", "पॉइंट", "पॉइन्ट", "प्वाइंट", "दशमलव", "decimal", "poin")
RANGE_WORDS = ("से", "या", "to", "or", "se", "ya")
CURRENCY_WORDS = (
    "₹", "रुपये", "रुपए", "रूपये", "रूपए", "रुपया", "रूपया", "रुपयों", "rupees", "rupee", "rupaye", "rupaiye",
    "rs", "inr", "rupye", "rupay", "rupiya", "rupaiya", "rupya", "rupe", "rupaiya",
)  # fmt: skip
# Words after a bare number that make it a measure, not money (for the ceiling guard's shorthand check).
MEASURE_WORDS = (
    "टन", "ton", "tons", "tonne", "tonnes", "किलो", "kg", "kilo", "फीट", "फुट", "ft", "feet", "foot", "दिन",
    "day", "days", "घंटे", "घंटा", "hour", "hours", "बजे", "baje", "तारीख", "तारीक", "पहिया", "चक्का", "wheel",
    "wheeler", "गाड़ी", "गाडी", "गाड़ियां", "गाडियां", "km", "किलोमीटर", "मिनट", "minute", "minutes", "मीटर",
    "नंबर", "सितंबर", "अक्टूबर", "नवंबर", "दिसंबर", "जनवरी", "फरवरी", "मार्च", "अप्रैल", "मई", "जून", "जुलाई",
    "अगस्त", "बजकर", "पैलेट", "बोरी", "बोरे", "ट्रक", "truck", "trucks", "वाली", "वाला", "साल", "saal", "year",
    "years", "महीने", "महीना", "month", "months", "हफ्ते", "week", "बार", "baar", "times", "लोग", "log", "आदमी",
    "प्रतिशत", "percent", "परसेंट", "टायर", "tyre", "tire", "gaadi", "gadi", "gaadiyan", "din", "ghante", "ghanta",
    "minute", "mint", "tarikh", "number", "नम्बर", "quintal", "क्विंटल", "kilometer", "kilometre", "kms", "मिनिट",
    "फुट", "feet", "meter", "metre", "piece", "पीस", "डिब्बे", "कार्टन", "carton", "cartons",
)  # fmt: skip


def _table() -> dict[str, tuple[str, float]]:
    table: dict[str, tuple[str, float]] = {}
    for value, word in enumerate(HINDI_UNITS):
        table[key(word)] = ("unit", float(value))
    for word, value in HINDI_VARIANTS.items():
        table.setdefault(key(word), ("unit", float(value)))
    for word, value in ENGLISH_UNITS.items():
        table[key(word)] = ("en_unit", float(value))
    for word, value in ENGLISH_TENS.items():
        table[key(word)] = ("en_tens", float(value))
    for word in HUNDRED_WORDS:
        table[key(word)] = ("hundred", 100.0)
    for word, value in BIG_WORDS.items():
        table[key(word)] = ("big", float(value))
    for word, fraction in FRACTION_MODIFIERS.items():
        table[key(word)] = ("frac_mod", fraction)
    for word, fraction in FRACTION_UNITS.items():
        table[key(word)] = ("unit", fraction)
    for word in RANGE_WORDS:
        table[key(word)] = ("range", 0.0)
    for word in POINT_WORDS:
        table[key(word)] = ("point", 0.0)
    for word in CURRENCY_WORDS:
        table[key(word)] = ("currency", 0.0)
    return table


WORDS: dict[str, tuple[str, float]] = _table()
MEASURES: frozenset[str] = frozenset(key(w) for w in MEASURE_WORDS)


@dataclass(frozen=True)
class Token:
    """One token of normalised text: `kind` is num, unit, en_unit, en_tens, hundred, big, frac_mod, range,
    dash, currency, question, point (a decimal point said as a word), or word (anything else); `text` is the word's spelling key (digits as written)."""

    kind: str
    value: float
    text: str
    start: int
    end: int


_TOKEN_RE = re.compile(
    r"(?P<num>\d+(?:[.,]\d+)*)"
    r"|(?P<word>[a-z'\u0900-\u0963\u0970-\u097f]+)"
    r"|(?P<dash>[-\u2013\u2014~])"
    r"|(?P<rupee>₹)"
    r"|(?P<q>\?)"
)
_SLASH_DASH_RE = re.compile(r"/\s*-")
_EN_COMPOUND_RE = re.compile(
    r"\b(" + "|".join(ENGLISH_TENS) + r")-(one|two|three|four|five|six|seven|eight|nine)\b"
)
_SPACE_GROUP_RE = re.compile(r"\b(\d{1,3})((?: \d{3})+)\b(?![.,]\d)")
_MAGNITUDE = r"(lakhs?|lacs?|thousands?|ha[zj]aa?r|crores?|हजार|लाख)"
_EN_NUMBER = r"((?:(?:" + "|".join(ENGLISH_TENS) + r") )?[a-z0-9]+)"  # "twenty two", "twenty", "22", "five"
_HUNDREDS = r"(?:(?:\S+ ){0,2}(?:hundred|sau|सौ)(?!\S)|\d{1,3}\b)"  # "five hundred", "saadhe teen sau", "500"
# "twenty one thousand and five hundred", "bees hazaar aur dhai sau": the "and" after a magnitude joins the hundreds
# that follow it; "der lakh" and
# "dher lakh" are डेढ़ लाख as an STT writes it (alone "der" is देर, late, and "dher" ढेर, a lot: never a figure).
_JOINS = (
    (re.compile(rf"(?<!\S){_MAGNITUDE} (?:and|aur|और) (?={_HUNDREDS})"), r"\1 "),
    (re.compile(rf"\bdh?er {_MAGNITUDE}"), r"dedh \1"),
)
# English fractions of a magnitude in the forms the Hindi grammar reads ("one and a half lakh" = डेढ़ लाख).
_ENGLISH_FRACTIONS = tuple(
    (re.compile(pattern), repl)
    for pattern, repl in (
        (rf"\ban? {_MAGNITUDE} and an? half\b", r"dedh \1"),
        (rf"\b([a-z0-9]+) {_MAGNITUDE} and an? half\b", r"saade \1 \2"),
        (rf"\b([a-z0-9]+) {_MAGNITUDE} less an? quarter\b", r"paune \1 \2"),
        (rf"\b((?:{'|'.join(ENGLISH_TENS)}) [a-z]+) and (?:a )?half\b", r"saade \1"),  # before "one and a half"
        (r"\bone and (?:a )?half\b", "dedh"),
        (r"\btwo and (?:a )?half\b", "dhai"),
        (rf"\b{_EN_NUMBER} and (?:a )?half\b", r"saade \1"),
        (rf"\b{_EN_NUMBER} and (?:a )?quarter\b", r"sava \1"),
        (r"\bquarter to ([a-z0-9]+)\b", r"paune \1"),
        (r"\bthree quarters?(?: of)?(?: an?)?\b", "pauna"),
        (r"\b(?:a )?half (?:of )?an?\b", "half"),
        (r"\b(?:a )?quarter (?:of )?an?\b", "quarter"),
    )
)


def _num_value(text: str) -> float | None:
    """'23,000' -> 23000, '1,25,000' -> 125000, '22.5' -> 22.5; None for junk like '1.2.3'."""
    if "," in text:
        parts = text.split(",")
        if "." in parts[-1]:
            return None
        if all(p.isdigit() for p in parts) and all(len(p) in (2, 3) for p in parts[1:]):
            return float("".join(parts))
        return None
    try:
        return float(text)
    except ValueError:
        return None


def prepare(text: str) -> str:
    """Normalise and tidy STT text: '23000/-' loses its '/-', '23 000' becomes '23000'."""
    t = normalize(text)
    t = _SLASH_DASH_RE.sub(" ", t)
    t = _EN_COMPOUND_RE.sub(r"\1 \2", t)
    if "half" in t or "quarter" in t:
        for pattern, repl in _ENGLISH_FRACTIONS:
            t = pattern.sub(repl, t)
    for pattern, repl in _JOINS:
        t = pattern.sub(repl, t)
    return _SPACE_GROUP_RE.sub(lambda m: m.group(1) + m.group(2).replace(" ", ""), t)


def _decimal_digit(tok: Token) -> str | None:
    if tok.kind == "num" and len(tok.text) == 1:
        return tok.text
    if tok.kind in ("unit", "en_unit") and tok.value in range(10):
        return str(int(tok.value))
    return None


def _said_decimals(toks: list[Token]) -> list[Token]:
    """A decimal point said as a word joins a whole number and the digits after it into one number token:
    "do point paanch" and "one point five" are 2.5 and 1.5 ("one point five lakh" = 1,50,000)."""
    if not any(t.kind == "point" for t in toks):
        return toks
    out: list[Token] = []
    i = 0
    while i < len(toks):
        t = toks[i]
        whole = t.kind in ("num", "unit", "en_unit", "en_tens") and t.value == int(t.value)
        if whole and i + 2 < len(toks) and toks[i + 1].kind == "point" and _decimal_digit(toks[i + 2]) is not None:
            j, digits = i + 2, ""
            while j < len(toks) and (d := _decimal_digit(toks[j])) is not None:
                digits, j = digits + d, j + 1
            start, value = t.start, int(t.value)
            if t.kind == "en_unit" and value < 10 and out and out[-1].kind == "en_tens":  # "twenty four point five"
                start, value = out[-1].start, value + int(out.pop().value)
            text = f"{value}.{digits}"
            out.append(Token("num", float(text), text, start, toks[j - 1].end))
            i = j
            continue
        out.append(t)
        i += 1
    return out


def tokenize(text: str) -> list[Token]:
    """Typed tokens of `prepare(text)`; '23k' gives a num and a big token."""
    out: list[Token] = []
    for m in _TOKEN_RE.finditer(prepare(text)):
        s, e = m.start(), m.end()
        if m.group("num"):
            value = _num_value(m.group("num"))
            out.append(Token("num" if value is not None else "word", value or 0.0, m.group("num"), s, e))
        elif m.group("word"):
            word = key(m.group("word"))
            kind, value = WORDS.get(word, ("word", 0.0))
            out.append(Token(kind, value, word, s, e))
        elif m.group("dash"):
            out.append(Token("dash", 0.0, m.group("dash"), s, e))
        elif m.group("rupee"):
            out.append(Token("currency", 0.0, "₹", s, e))
        else:
            out.append(Token("question", 0.0, "?", s, e))
    return _said_decimals(out)
