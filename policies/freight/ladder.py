"""The rate ladder: anchor, exactly one seeded concession, and a ceiling that is never spoken.

Owns `concession_for` (the one authorised figure, drawn from the load's band with a seed derived from the call
id), `quote_zone` (where a vendor's quote sits against the ladder) and `ceiling_leaks` (the guard that finds the
ceiling in any spoken form: digits, Hindi or English words, k/हज़ार/लाख forms, a range end, or a bare
shorthand like "पच्चीस" for 25,000 said as an amount - "पच्चीस तक", not "एक लोड"). Pure: no I/O.
"""

from __future__ import annotations

import hashlib
import math

from policies.freight.figures import Figure, scan
from policies.freight.load import Load
from policies.freight.numerals import Token
from policies.freight.quotes import RATE_CUES
from policies.freight.spelling import key

CONCESSION_ROUNDING = 100  # spoken rates are round; the figure is rounded to this when the band allows
SHORTHAND_SCALES = (1_000, 100_000)  # "पच्चीस" for 25,000 and "सवा" for 1,25,000 in rate talk

# After a bare number, words that make it an amount ("पच्चीस तक", "बाईस में", "max 25"), besides rate words.
AMOUNT_FOLLOWERS = RATE_CUES | frozenset(
    key(w) for w in ("तक", "tak", "में", "mein", "पर", "par", "ही", "hi", "से", "se", "का", "ka", "तो", "to",
                     "max", "maximum", "upto", "only", "और", "aur", "या", "ya", "चल", "chal", "है", "hai")
)  # fmt: skip

ZONE_AT_OR_UNDER_ANCHOR = "at_or_under_anchor"
ZONE_IN_RANGE = "in_range"
ZONE_OVER_CEILING = "over_ceiling"


def _unit_interval(call_id: str) -> float:
    digest = hashlib.sha256(f"freight-concession:{call_id}".encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def concession_for(call_id: str, load: Load) -> int:
    """The one concession of this call: anchor + f * (ceiling - anchor), f drawn in the band from the call id.

    The same call id always gives the same figure; the figure is strictly between anchor and ceiling.
    """
    lo, hi = load.concession_band
    gap = load.ceiling - load.anchor
    f = lo + _unit_interval(call_id) * (hi - lo)
    exact = load.anchor + f * gap
    band_lo = max(load.anchor + 1, math.ceil(load.anchor + lo * gap))
    band_hi = min(load.ceiling - 1, math.floor(load.anchor + hi * gap))
    rounded = round(exact / CONCESSION_ROUNDING) * CONCESSION_ROUNDING
    if band_lo <= rounded <= band_hi:
        return rounded
    figure = round(exact)
    return min(max(figure, band_lo, load.anchor + 1), load.ceiling - 1)


def quote_zone(quote: int, load: Load) -> str:
    """Where a quote sits: at or under the anchor, in range (anchor < q <= ceiling), or over the ceiling."""
    if quote <= load.anchor:
        return ZONE_AT_OR_UNDER_ANCHOR
    if quote <= load.ceiling:
        return ZONE_IN_RANGE
    return ZONE_OVER_CEILING


def _said_as_amount(toks: list[Token], fig: Figure) -> bool:
    """Whether a bare number stands as an amount: at the end, or before a particle or rate word ("पच्चीस तक",
    "पच्चीस चलेगा"), not before a noun ("एक लोड", "एक बात")."""
    nxt = toks[fig.end_tok] if fig.end_tok < len(toks) else None
    return nxt is None or nxt.kind in ("question", "currency", "dash", "range") or nxt.text in AMOUNT_FOLLOWERS


def ceiling_leaks(text: str | None, ceiling: int) -> bool:
    """True when `text` voices the ceiling in any form (or a bare shorthand of it said as an amount)."""
    if not text:
        return False
    toks, figures = scan(text)
    for fig in figures:
        if (ceiling in fig.values or fig.plain == ceiling) and not fig.phone:
            return True
        if not fig.has_multiplier and not fig.measure and _said_as_amount(toks, fig):
            for scale in SHORTHAND_SCALES:
                if ceiling >= scale and any(v and abs(v * scale - ceiling) < 0.5 for v in fig.exact):
                    return True
    return False
