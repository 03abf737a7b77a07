"""What a vendor's turn quotes: the trip rate, or why a figure in it is not one.

Owns `hear_quote` (and `hear_rate`, its rate alone). Over the figures of figures.py it decides each one's role:
- a phone number: eight or more digits in a row, masked digits ("98xxxxxxx"), or digits after a phone cue
  ("मेरा फ़ोन नंबर ...", "mera number ...");
- a per-unit rate: a figure said per ton/km/kilo/quintal ("पंद्रह सौ रुपये टन", "1500 per ton", "प्रति टन पंद्रह
  सौ", "एक टन का पंद्रह सौ", "टन के हिसाब से"), unless "total/कुल/पूरी गाड़ी" marks it as the trip figure;
- a count or measure ("20 टन", "दो दिन"): not money (figures.py marks it);
- a lower bound or a figure taken back at the turn's end ("bees hazaar se upar", "above twenty", "bees nahi"):
  not his figure yet (a cap is: "pachees se zyada nahi", "not more than twenty five thousand");
- one cost of the trip ("toll hi chaar hazaar ka hai", "डीज़ल में पंद्रह हज़ार"): not the rate, unless the turn
  sums the costs up ("sab milake pachees hazaar");
- the trip rate: the last remaining figure of at least MIN_HEARD_RATE (a range gives its upper end); a bare
  number that corrects an earlier figure borrows its multiplier ("पच्चीस हज़ार, नहीं नहीं, चौबीस" is 24,000);
- in rate talk (`anchor` given), a figure under a tenth of the anchor (`PLAUSIBLE_RANGE`) is no trip rate: "पाँच सौ" after "बीस हज़ार"
  on a 20,000 load is the hundreds of a figure already said, or an amount off it, never a deal at 500;
- in rate talk only (`anchor` given: the call is waiting for a rate), a bare number under MIN_HEARD_RATE
  ("पच्चीस दे दो", "bas pachees", "साढ़े बाईस फाइनल") is shorthand for thousands (or lakhs), the scale chosen by the
  load's anchor alone, never by the ceiling.
Per-unit talk without a figure ("kilo ke hisaab se lete hain") is reported too. Pure: no I/O.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from policies.freight.clauses import CORRECTIONS, NEGATORS
from policies.freight.figures import Figure, scan
from policies.freight.numerals import BARE_FRACTIONS, Token
from policies.freight.spelling import key, keys

MIN_HEARD_RATE = 500  # a figure below this is a count or a weight ("20 टन", "एक मिनट"), never a truck rate
SHORTHAND_SCALES = (1_000, 100_000)  # "पच्चीस" for 25,000, "सवा" for 1,25,000
SHORTHAND_RANGE = 3.0  # a shorthand reading must lie within anchor/3 .. anchor*3
PLAUSIBLE_RANGE = 10.0  # in rate talk, a figure under anchor/10 is no trip rate ("पाँच सौ" on a 20,000 load)


def _set(*words: str) -> frozenset[str]:
    return frozenset(key(w) for w in words)


# One cost of the trip: a figure said of it is no rate ("toll hi chaar hazaar ka hai").
COST_WORDS = _set("toll", "टोल", "diesel", "डीजल", "डीज़ल", "petrol", "पेट्रोल", "bhatta", "भत्ता", "tyre", "टायर",
                  "emi", "ईएमआई", "challan", "चालान", "hamali", "हमाली", "salary", "तनख्वाह", "tankhwah")  # fmt: skip
SUM_WORDS = _set("milake", "मिलाके", "मिलाकर", "milakar", "total", "टोटल", "kul", "कुल", "including", "sab", "सब",
                 "plus", "प्लस")  # fmt: skip
COST_REACH = 3  # words before a figure a cost word may stand ("toll hi chaar hazaar")
PER_WORDS = _set("प्रति", "per", "पर", "हर", "फी", "fi", "har", "prati", "pr")
UNIT_WORDS = _set(
    "टन", "ton", "tons", "tonne", "tonnes", "tan", "किलो", "kilo", "kg", "kgs", "केजी", "किलोग्राम", "kilogram",
    "किलोमीटर", "kilometer", "kilometre", "km", "kms", "किमी", "क्विंटल", "quintal", "kuntal", "कुंटल", "बोरी",
    "bori", "बोरा", "bag", "bags", "बैग", "पेटी", "peti", "कार्टन", "carton", "डिब्बा", "box", "पैलेट", "pallet",
)  # fmt: skip
LINK_WORDS = _set("का", "की", "के", "ka", "ki", "ke", "में", "mein", "me", "वाला", "vala", "wala", "rate", "रेट")
BASIS_WORDS = _set("हिसाब", "hisab", "hisaab", "wise", "vise", "basis", "rate", "रेट", "भाव", "bhav")
TOTAL_WORDS = _set(
    "total", "टोटल", "कुल", "kul", "पूरा", "पूरी", "पूरे", "pura", "puri", "pure", "trip", "ट्रिप", "फुल", "full",
    "मिलाकर", "milakar", "all", "lumpsum", "गाड़ी", "gaadi", "gadi",
)  # fmt: skip
PHONE_CUES = _set(
    "फोन", "phone", "fon", "नंबर", "नम्बर", "number", "numbar", "mobile", "मोबाइल", "whatsapp", "व्हाट्सएप",
    "व्हाट्सऐप", "contact", "कांटेक्ट", "कॉन्टैक्ट", "नं",
)  # fmt: skip
MASK = key("xxx")  # "98xxxxxxx": the masked rest of a phone number
# Words that make a bare number a rate in rate talk ("पच्चीस दे दो", "बीस में कर दूंगा", "pachees final").
RATE_CUES = _set(
    "लगेगा", "लगेंगे", "लगेगी", "lagega", "lagenge", "lagegi", "लगता", "lagta", "होगा", "hoga", "होंगे", "honge",
    "रेट", "rate", "भाड़ा", "bhada", "किराया", "kiraya", "final", "फाइनल", "फ़ाइनल", "चलेगा", "chalega", "मिलेगा",
    "milega", "देना", "dena", "दीजिए", "dijiye", "दीजिये", "दे", "de", "दूंगा", "dunga", "देंगे", "denge", "करूंगा",
    "karunga", "कर", "kar", "karo", "करो", "लो", "lo", "ले", "le", "पक्का", "pakka", "लास्ट", "last", "fix", "fixed",
    "में", "mein", "rupaye", "रुपये", "बनेगा", "banega", "jayega", "जाएगा", "सकता", "sakta", "सकते", "sakte",
)  # fmt: skip
BARE_WORDS = _set(
    "हां", "हाँ", "haan", "han", "हा", "जी", "ji", "बस", "bas", "सर", "sir", "भाई", "bhai", "भैया", "bhaiya", "तो",
    "to", "ही", "hi", "ठीक", "theek", "thik", "है", "hai", "ok", "okay", "ओके", "अच्छा", "achha", "acha", "चलो",
    "chalo", "मेरा", "mera", "अपना", "apna", "अरे", "are", "हम्म", "hmm", "उम्म", "umm", "मैडम", "madam", "देखिए",
    "dekhiye", "बोलो", "bolo", "बोलिए", "boliye", "सुनिए", "suniye", "यार", "yaar",
)  # fmt: skip
# A bound, not a figure: "bees hazaar se upar", "pachees se zyada"; "above twenty", "more than twenty".
BOUNDS = _set("ऊपर", "upar", "uper", "ज्यादा", "zyada", "jyada", "ziada", "above")
BOUNDS_BEFORE = _set("above", "over", "than")
# "साथ" (with) = साठ, "दो" (give), "एक" (a), "आधा" (half of anything: "aadha advance")
AMBIGUOUS = _set("साथ", "दो", "एक", "ek", *BARE_FRACTIONS)


@dataclass(frozen=True)
class Quote:
    """One turn's reading: the trip `rate` (None when none), and what the other figures were."""

    rate: int | None
    per_unit: bool = False  # a per-ton/km/kilo figure or per-unit talk, and no trip figure
    phone: bool = False  # he said a phone number
    shorthand: bool = False  # `rate` came from a bare "पच्चीस" in rate talk
    partial: bool = False  # in rate talk, money too small to be the trip rate ("पाँच सौ" on a 20,000 load)


_SKIP = LINK_WORDS | _set("से", "se")


def _skip(toks: list[Token], i: int, step: int) -> int:
    """From index `i` in direction `step`, the first token that is no currency and no link word."""
    while 0 <= i < len(toks) and (toks[i].kind == "currency" or toks[i].text in _SKIP):
        i += step
    return i


def _at(toks: list[Token], i: int) -> str:
    return toks[i].text if 0 <= i < len(toks) else ""


def _currency_next_to(toks: list[Token], fig: Figure) -> bool:
    near = (fig.first_tok - 1, fig.end_tok)
    return any(0 <= i < len(toks) and toks[i].kind == "currency" for i in near)


def _per_unit(toks: list[Token], fig: Figure) -> bool:
    """Whether `fig` is said per ton/km/kilo (see the module docstring); a total marker before it wins."""
    b = _skip(toks, fig.first_tok - 1, -1)
    if _at(toks, b) in TOTAL_WORDS or _at(toks, b - 1) in TOTAL_WORDS:
        return False
    a = _skip(toks, fig.end_tok, 1)
    if _at(toks, a) in PER_WORDS and _at(toks, a + 1) in UNIT_WORDS:
        return True  # "1500 per ton", "पंद्रह सौ प्रति टन"
    if _at(toks, a) in UNIT_WORDS:
        basis = _at(toks, _skip(toks, a + 1, 1)) in BASIS_WORDS
        if fig.has_multiplier or _currency_next_to(toks, fig) or basis:
            return True  # "पंद्रह सौ रुपये टन", "₹1500/ton", "1500 टन के हिसाब से"
    if _at(toks, b) in BASIS_WORDS:
        return _at(toks, _skip(toks, b - 1, -1)) in UNIT_WORDS  # "टन के हिसाब से पंद्रह सौ"
    if _at(toks, b) in UNIT_WORDS:
        if _at(toks, b - 1) in PER_WORDS:
            return True  # "प्रति टन पंद्रह सौ", "per km 40 rupaye"
        if b < fig.first_tok - 1:  # "एक टन का पंद्रह सौ", "टन का पंद्रह सौ" (but "बीस टन का ..." is the load)
            prev = toks[b - 1] if b > 0 else None
            return prev is None or prev.kind not in ("num", "unit", "en_unit") or prev.value == 1
    return False


def per_unit_talk(words: list[str]) -> bool:
    """Per-unit talk without a figure: "per ton", "प्रति किलोमीटर", "kilo ke hisaab se", "टन वाइज़"."""
    for i, w in enumerate(words):
        if w in UNIT_WORDS:
            if i > 0 and words[i - 1] in PER_WORDS:
                return True
            rest = [x for x in words[i + 1 : i + 4] if x not in LINK_WORDS]
            if rest and rest[0] in BASIS_WORDS:
                return True
    return False


def _cost_item(toks: list[Token], fig: Figure) -> bool:
    """A figure said of one cost of the trip ("toll hi chaar hazaar ka hai", "डीज़ल में पंद्रह हज़ार जाता है"), not
    the rate: a cost word just before it, and nothing in the turn that sums it up ("sab milake", "total")."""
    words = [t.text for t in toks]
    if any(w in SUM_WORDS for w in words):
        return False
    return any(t.text in COST_WORDS for t in toks[max(0, fig.first_tok - COST_REACH) : fig.first_tok])


def _phone(toks: list[Token], fig: Figure) -> bool:
    if fig.phone:
        return True
    nxt = toks[fig.end_tok] if fig.end_tok < len(toks) else None
    if fig.has_digits and nxt is not None and nxt.text == MASK:
        return True  # "98xxxxxxx"
    if fig.has_multiplier or _currency_next_to(toks, fig) or not (fig.has_digits or fig.spelled):
        return False
    return any(t.text in PHONE_CUES for t in toks[max(0, fig.first_tok - 4) : fig.first_tok])


def _shorthand(toks: list[Token], figs: list[Figure], anchor: int) -> int | None:
    """A bare "पच्चीस" in rate talk read at the anchor's scale (thousands or lakhs), or None."""
    words = [t.text for t in toks if t.kind in ("word", "range")]
    cue = any(w in RATE_CUES for w in words)
    bare = all(w in BARE_WORDS for w in words)
    if not (cue or bare):
        return None
    for fig in reversed(figs):
        exact = max(fig.exact) if fig.exact else 0.0
        single = fig.end_tok - fig.first_tok == 1 and toks[fig.first_tok].text in AMBIGUOUS
        if fig.has_multiplier or fig.measure or fig.phone or single or not 0 < exact < MIN_HEARD_RATE:
            continue
        best = min(SHORTHAND_SCALES, key=lambda s: abs(math.log(exact * s / anchor)))
        value = round(exact * best)
        if anchor / SHORTHAND_RANGE <= value <= anchor * SHORTHAND_RANGE:
            return value
        return None
    return None


def _corrected(toks: list[Token], money: list[Figure]) -> int | None:
    """A bare last figure correcting an earlier one with a multiplier, read at that multiplier, or None; bare
    corrections between them are taken back too ("बाईस हज़ार नहीं नहीं तेईस मतलब साढ़े बाईस" is 22,500)."""
    if len(money) < 2:
        return None
    last = money[-1]
    prev = next((f for f in reversed(money[:-1]) if f.has_multiplier), None)
    exact = max(last.exact) if last.exact else 0.0
    if last.has_multiplier or prev is None or not 0 < exact < MIN_HEARD_RATE:
        return None
    between = [t.text for t in toks[prev.end_tok : last.first_tok]]
    if not any(w in NEGATORS or w in CORRECTIONS for w in between):
        return None
    value = round(exact * prev.last_multiplier)
    return value if prev.value / 2 <= value <= prev.value * 2 else None


def _not_the_figure(toks: list[Token], fig: Figure) -> bool:
    """A lower bound ("bees hazaar se upar", "above twenty") or a figure taken back ("bees nahi"): he has not
    said his figure yet."""
    after = toks[fig.end_tok] if fig.end_tok < len(toks) else None
    if after is not None and after.text in NEGATORS and fig.end_tok + 1 == len(toks):
        return True  # "rate hoga bees nahi" (its correction, if it comes, is the figure after it)
    a = fig.end_tok
    while a < len(toks) and (toks[a].kind in ("currency", "range") or toks[a].text in _SKIP):
        a += 1
    if _at(toks, a) in BOUNDS:
        return _at(toks, a + 1) not in NEGATORS  # "pachees se zyada nahi": a cap, his figure
    b = fig.first_tok - 1
    return _at(toks, b) in BOUNDS_BEFORE and not any(_at(toks, k) in NEGATORS for k in (b - 1, b - 2))  # "not more
    # than twenty thousand", "no more than": a cap


def hear_quote(text: str, *, anchor: int | None = None, tokens: list[Token] | None = None) -> Quote:
    """Read one vendor turn for a trip rate. `anchor`: the call waits for a rate (enables the bare shorthand);
    `tokens`: `tokenize(text)` when the caller has it already."""
    toks, figs = scan(text, tokens)
    phone = per_unit = False
    money: list[Figure] = []
    for fig in figs:
        if _phone(toks, fig):
            phone = True
        elif _per_unit(toks, fig):
            per_unit = True
        elif not fig.measure and not _cost_item(toks, fig) and not _not_the_figure(toks, fig):
            money.append(fig)
    corrected = _corrected(toks, money)
    if corrected is not None:
        return Quote(corrected, phone=phone)
    floor = MIN_HEARD_RATE if anchor is None else max(MIN_HEARD_RATE, anchor / PLAUSIBLE_RANGE)
    rates = [f.value for f in money if f.value >= floor]  # in rate talk, "पाँच सौ" on a 20,000 load is no rate
    if rates:
        return Quote(rates[-1], phone=phone)
    if not per_unit:
        per_unit = per_unit_talk([t.text for t in toks])
    if per_unit:
        return Quote(None, per_unit=True, phone=phone)
    if anchor is not None and money:
        value = _shorthand(toks, money, anchor)
        if value is not None:
            return Quote(value, phone=phone, shorthand=True)
    return Quote(None, phone=phone, partial=any(MIN_HEARD_RATE <= f.value < floor for f in money))


def hear_rate(text: str) -> int | None:
    """The trip rate a vendor said (the last rate-sized figure that is no phone number, per-unit rate or
    measure; a range gives its upper end), or None. No shorthand: see `hear_quote`."""
    return hear_quote(text).rate


__all__ = ["MIN_HEARD_RATE", "PLAUSIBLE_RANGE", "Quote", "hear_quote", "hear_rate", "keys", "per_unit_talk"]
