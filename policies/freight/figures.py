"""The grammar of spoken figures (`find_figures`) and saying them (`say_rate`, `say_number`, `say_decimal`).

A *figure* is a maximal run of number tokens read the spoken-Indian way: units, सौ, then descending multipliers
(करोड़ > लाख > हज़ार), with साढ़े/सवा/पौने modifying the next group and डेढ़/ढाई as units. Two figures side by side
or joined by '-'/से/या/to/or form a range ("बाईस-तेईस हज़ार"): the bare lower end borrows the upper end's
multiplier and the range is heard as its upper end. Digits said one by one ("1 9 5 0 0", "एक नौ पांच शून्य
शून्य") are one figure; eight or more digits in a row (one by one or in groups, "91234 56789") are a phone
number (`Figure.phone`), never money. "दो" is the number two only next to another number ("दो लाख", "एक दो");
otherwise it is the verb ("दे दो"). What a figure *means* in the turn (a trip rate, a per-ton rate, a phone
number, a bare "पच्चीस" for 25,000) is decided in quotes.py. Pure: no I/O.
"""

from __future__ import annotations

import itertools
import re
from dataclasses import dataclass

from policies.freight.numerals import HINDI_UNITS, MEASURES, Token, tokenize
from policies.freight.spelling import key

RUPEES_WORD = "रुपये"
MIN_SPELLED_DIGITS = 4  # "1 9 5 0 0": four or more digits said one by one are one figure
PHONE_DIGITS = 8  # this many digits in a row (one by one or in groups) are a phone number
HALF_LOW, HALF_HIGH = 11, 39  # "X pachaas" is X thousand five hundred (but "chalees pachaas" is 40 to 50)
_DO = key("दो")  # two, or the imperative "give" ("दे दो")
_NUMERIC = ("num", "unit", "en_unit", "en_tens", "hundred", "big", "frac_mod", "dash", "range")
# The multipliers say_number speaks, biggest first.
SPOKEN_SCALES = ((10_000_000, "करोड़"), (100_000, "लाख"), (1_000, "हज़ार"), (100, "सौ"))
_STARTS = ("num", "unit", "en_unit", "en_tens", "hundred", "frac_mod")


@dataclass(frozen=True)
class Figure:
    """One heard figure: `value` (upper end of a range), every end in `values`, the span in normalised text."""

    value: int
    values: tuple[int, ...]
    start: int
    end: int
    has_multiplier: bool  # a सौ/हज़ार/लाख/k/... word is part of it
    has_digits: bool
    last_multiplier: int  # the smallest multiplier applied (1 when none)
    measure: bool  # a bare number followed by a measure word ("20 टन")
    exact: tuple[float, ...] = ()  # the ends before rounding ("साढ़े बाईस" -> 22.5)
    first_tok: int = 0  # token indices (tokenize) of the figure: first, and one past the last
    end_tok: int = 0
    phone: bool = False  # eight or more digits in a row: a phone number
    spelled: bool = False  # digits said one by one
    plain: int | None = None  # the value word for word when a colloquial tail was read ("एक लाख एक" -> 100001)


@dataclass
class _Run:
    value: float
    start_tok: int
    end_tok: int  # exclusive
    has_multiplier: bool
    has_digits: bool
    last_multiplier: int
    plain: float | None = None


def _parse_run(toks: list[Token], i: int) -> _Run | None:
    """Read one figure starting at token `i`; None when the tokens there make no number (a lone साढ़े).

    When a multiplier cannot apply ("तेईस हज़ार बाईस हज़ार", "तीन सौ चार सौ") the figure ends before the units
    that preceded it, so those units start the next figure.
    """
    st: dict = {"total": 0.0, "cur": None, "units": False, "hundred": False, "en_tens": False, "adj": None,
                "last_big": float("inf"), "mult": False, "digits": False, "last_mult": 1}  # fmt: skip
    snap: tuple[dict, int] | None = None  # state and token index before the latest units after a multiplier
    j = i
    while j < len(toks):
        t = toks[j]
        starts_group = t.kind in ("frac_mod", "num", "unit", "en_unit", "en_tens") and st["mult"]
        if starts_group and not st["units"] and st["adj"] is None:
            snap = (dict(st), j)
        if t.kind == "frac_mod":
            if st["units"] or st["adj"] is not None:
                break
            st["adj"] = t.value
        elif t.kind in ("num", "unit", "en_unit", "en_tens"):
            if st["units"]:
                if st["en_tens"] and t.kind == "en_unit" and 0 < t.value < 10:
                    st["cur"] += t.value
                    st["en_tens"] = False
                    j += 1
                    continue
                if st["mult"] and not st["hundred"] and t.kind == "en_tens" and 0 < st["cur"] < 10:
                    st["cur"] = st["cur"] * 100 + t.value  # "twenty three thousand two fifty": 23,250
                    st["hundred"], st["en_tens"] = True, True
                    j += 1
                    continue
                break
            st["cur"] = (st["cur"] or 0.0) + t.value + (st["adj"] or 0.0)
            st["adj"] = None
            st["units"], st["en_tens"] = True, t.kind == "en_tens"
            st["digits"] = st["digits"] or t.kind == "num"
        elif t.kind in ("hundred", "big"):
            blocked = st["hundred"] if t.kind == "hundred" else t.value >= st["last_big"]
            if blocked:
                if snap is not None and st["units"]:
                    st, j = snap
                break
            if t.text == "k" and not st["units"]:
                break
            if st["cur"] is None:
                if j == i and t.kind == "big":
                    break  # a bare multiplier ("हज़ार बातें") starts no figure
                st["cur"] = 1.0 + (st["adj"] or 0.0)
                st["adj"] = None
            if t.kind == "hundred":
                st["cur"] *= 100
                st["hundred"] = True
            else:
                st["total"] += st["cur"] * t.value
                st["cur"], st["hundred"], st["last_big"] = None, False, t.value
            st["units"], st["en_tens"], st["mult"], st["last_mult"] = False, False, True, int(t.value)
        else:
            break
        j += 1
    if snap is not None and st["units"] and not st["hundred"] and st["cur"] is not None:
        st, j = _colloquial_tail(toks, st, j, snap)
    if j == i or (st["cur"] is None and not st["mult"]):
        return None
    return _Run(st["total"] + (st["cur"] or 0.0), i, j, st["mult"], st["digits"], st["last_mult"], st.get("plain"))


def _colloquial_tail(toks: list[Token], st: dict, j: int, snap: tuple[dict, int]) -> tuple[dict, int]:
    """A bare number after the last multiplier, as people say it: "एक लाख पच्चीस" is 1,25,000 (thousands after
    a lakh), "तेईस हज़ार पांच" is 23,500 (hundreds after a thousand). A tail a measure follows ("दो लाख दस दिन")
    or a lone "दो" ("बीस हज़ार दो": give) is no part of the figure; before a currency word the figure is read word
    for word ("एक लाख एक रुपये" is 1,00,001, as say_rate says it)."""
    nxt = toks[j] if j < len(toks) else None
    if nxt is not None and nxt.kind == "currency":
        return st, j
    if (nxt is not None and nxt.text in MEASURES) or (j - snap[1] == 1 and toks[snap[1]].text == _DO):
        return snap
    st["plain"] = st["total"] + st["cur"]
    if st["last_big"] == 100_000 and st["cur"] < 100:
        st["cur"] *= 1_000
    elif st["last_big"] == 1_000 and st["cur"] < 10:
        st["cur"] *= 100
    return st, j


def is_number(toks: list[Token], i: int) -> bool:
    """Whether token `i` is a number word here: "दो" only next to a number ("दो लाख", "एक दो"), not "दे दो"."""
    t = toks[i]
    if t.kind not in _STARTS:
        return False
    if t.text != _DO:
        return True
    nxt = toks[i + 1].kind if i + 1 < len(toks) else ""
    prev = toks[i - 1].kind if i > 0 else ""
    return nxt in _NUMERIC or prev in ("num", "unit", "en_unit", "dash", "range")


def _digit(toks: list[Token], i: int) -> str | None:
    """The digit token `i` says one by one ("5", "पांच", "five"), or None."""
    t = toks[i]
    if t.kind == "num" and len(t.text) == 1:
        return t.text
    if t.kind in ("unit", "en_unit") and t.value == int(t.value) and 0 <= t.value <= 9 and is_number(toks, i):
        return str(int(t.value))
    return None


def _digit_figure(toks: list[Token], i: int) -> tuple[Figure, int] | None:
    """Digits said one by one from token `i`, or digit groups adding up to a phone number; None otherwise."""
    j, digits = i, ""
    while j < len(toks) and (d := _digit(toks, j)) is not None:
        digits, j = digits + d, j + 1
    counting = all(int(b) - int(a) == 1 for a, b in itertools.pairwise(digits))  # "1 2 3 4": a mic test
    spelled = j - i >= MIN_SPELLED_DIGITS and digits[0] != "0" and not counting
    if not spelled:  # groups of digits ("91234 56789", "9123456789"): only a phone number is read this way
        j = i
        groups: list[str] = []
        while j < len(toks) and toks[j].kind == "num" and toks[j].text.isdigit():
            groups, j = [*groups, toks[j].text], j + 1
        digits = "".join(groups)
        grouped = len(groups) >= 2 and not all(g.endswith("00") for g in groups)  # "25000 30000" is no phone
        if len(digits) < PHONE_DIGITS or not (grouped or (len(groups) == 1 and len(digits) >= 10)):
            return None
    if j < len(toks) and toks[j].kind in ("hundred", "big"):
        return None  # "एक दो तीन चार हज़ार" is no digit string
    phone = len(digits) >= PHONE_DIGITS
    value = 0 if phone else int(digits)
    fig = Figure(value=value, values=(value,), start=toks[i].start, end=toks[j - 1].end, has_multiplier=False,
                 has_digits=True, last_multiplier=1, measure=False, exact=(float(value),), first_tok=i,
                 end_tok=j, phone=phone, spelled=True)  # fmt: skip
    return fig, j


def _runs(toks: list[Token], i: int = 0) -> list[_Run]:
    out: list[_Run] = []
    while i < len(toks):
        if is_number(toks, i):
            run = _parse_run(toks, i)
            if run is not None:
                out.append(run)
                i = run.end_tok
                continue
        i += 1
    return out


def find_figures(text: str) -> list[Figure]:
    """Every figure in `text`, in order, ranges merged (a range's `value` is its upper end)."""
    return scan(text)[1]


def scan(text: str, toks: list[Token] | None = None) -> tuple[list[Token], list[Figure]]:
    """The tokens of `text` (or the given `tokenize(text)`) and every figure in it (digit strings and phone
    numbers included), in order."""
    toks = tokenize(text) if toks is None else toks
    figures: list[Figure] = []
    start = 0
    i = 0
    while i < len(toks):
        found = _digit_figure(toks, i) if toks[i].kind in ("num", "unit", "en_unit") else None
        if found is None:
            i += 1
            continue
        figures += _word_figures(toks, start, i)
        figures.append(found[0])
        start = i = found[1]
    figures += _word_figures(toks, start, len(toks))
    return toks, figures


def _word_figures(all_toks: list[Token], lo: int, hi: int) -> list[Figure]:
    """The figures of tokens lo..hi (no digit strings among them); token indices are into `all_toks`."""
    runs = _runs(all_toks[:hi], lo)
    toks = all_toks
    figures: list[Figure] = []
    k = 0
    while k < len(runs):
        a = runs[k]
        b = runs[k + 1] if k + 1 < len(runs) else None
        gap = toks[a.end_tok : b.start_tok] if b is not None else None
        adjacent = b is not None and not gap and not a.has_multiplier and b.has_multiplier
        separated = b is not None and gap is not None and len(gap) == 1 and gap[0].kind in ("dash", "range")
        if b is not None and (adjacent or (separated and (b.has_multiplier or not a.has_multiplier))):
            low = a.value
            if not a.has_multiplier and b.has_multiplier and a.value * b.last_multiplier < b.value * 10:
                low = a.value * b.last_multiplier
            ends = (round(low), round(b.value))
            figures.append(
                Figure(
                    value=max(ends),
                    values=ends,
                    start=toks[a.start_tok].start,
                    end=toks[b.end_tok - 1].end,
                    has_multiplier=a.has_multiplier or b.has_multiplier,
                    has_digits=a.has_digits or b.has_digits,
                    last_multiplier=b.last_multiplier,
                    measure=False,
                    exact=(low, b.value),
                    first_tok=a.start_tok,
                    end_tok=b.end_tok,
                )
            )
            k += 2
            continue
        if b is not None and not gap and _and_a_half(a, b):  # "ikkees pachaas": 21,500, not 21 and 50 (50,000)
            value = round(a.value) * 1000 + 500
            figures.append(Figure(value=value, values=(value,), start=toks[a.start_tok].start,
                                  end=toks[b.end_tok - 1].end, has_multiplier=True, has_digits=False,
                                  last_multiplier=1000, measure=False, exact=(value,), first_tok=a.start_tok,
                                  end_tok=b.end_tok))
            k += 2
            continue
        nxt = toks[a.end_tok] if a.end_tok < len(toks) else None
        measure = not a.has_multiplier and nxt is not None and nxt.text in MEASURES
        value = round(a.value)
        figures.append(
            Figure(
                value=value,
                values=(value,),
                start=toks[a.start_tok].start,
                end=toks[a.end_tok - 1].end,
                has_multiplier=a.has_multiplier,
                has_digits=a.has_digits,
                last_multiplier=a.last_multiplier,
                measure=measure,
                exact=(a.value,),
                first_tok=a.start_tok,
                end_tok=a.end_tok,
                plain=None if a.plain is None else round(a.plain),
            )
        )
        k += 1
    return figures


def _and_a_half(a: _Run, b: _Run) -> bool:
    """Two bare numbers said together, a two-digit one and then "पचास" (fifty): thousands and five hundred, the
    shorthand of rates ("ikkees pachaas", "bais pachas"): no range runs from 21 to 50."""
    return (not a.has_multiplier and not b.has_multiplier and not a.has_digits and not b.has_digits
            and HALF_LOW <= a.value <= HALF_HIGH and b.value == 50)



def say_number(n: int) -> str:
    """An integer in spoken Hindi words, Indian grouping: 125000 -> 'एक लाख पच्चीस हज़ार'."""
    if n < 0:
        raise ValueError(f"say_number: negative number {n}")
    if n < 100:
        return HINDI_UNITS[n]
    parts: list[str] = []
    rest = n
    for scale, word in SPOKEN_SCALES:
        count, rest = divmod(rest, scale)
        if count:  # under a crore every count is < 100; crores may recurse ("सौ करोड़")
            parts += [say_number(count), word]
    if rest:
        parts.append(HINDI_UNITS[rest])
    return " ".join(parts)


def say_rate(n: int) -> str:
    """A rupee figure as the TTS should speak it: 23500 -> 'तेईस हज़ार पांच सौ रुपये'."""
    return f"{say_number(int(n))} {RUPEES_WORD}"


def say_decimal(x: float) -> str:
    """A weight-like quantity in words: 7.5 -> 'साढ़े सात', 1.5 -> 'डेढ़', 20 -> 'बीस'."""
    whole = int(x)
    frac = round(x - whole, 3)
    if frac == 0:
        return say_number(whole)
    if frac == 0.5:
        return {0: "आधा", 1: "डेढ़", 2: "ढाई"}.get(whole) or f"साढ़े {say_number(whole)}"
    digits = f"{x:.3f}".rstrip("0").split(".")[1]
    return f"{say_number(whole)} दशमलव " + " ".join(say_number(int(d)) for d in digits)


def spell_digits(text: str) -> str:
    """Replace every digit run in free text by Hindi words ('12 सितंबर' -> 'बारह सितंबर'), for spoken forms."""

    def repl(m: re.Match[str]) -> str:
        raw = m.group(0).replace(",", "")
        try:
            return say_decimal(float(raw)) if "." in raw else say_number(int(raw))
        except ValueError:
            return " ".join(say_number(int(c)) for c in raw if c.isdigit())

    digits_fixed = text.translate(str.maketrans("०१२३४५६७८९", "0123456789"))
    return re.sub(r"\d+(?:[.,]\d+)*", repl, digits_fixed)
