"""Text normalisation shared by the operator's detectors (language, region, intents). Pure.

`fold` lower-cases, maps `ё` to `е`, folds Kazakh-specific Cyrillic letters onto their nearest Russian ones
(қ->к, ғ->г, ұ/ү/ў->у, ө->о, ә->а, і->и, ң->н, һ->х), turns hyphens and punctuation into spaces and collapses
whitespace, so one set of patterns serves Russian, Kazakh and Latin transliterations.
"""

from __future__ import annotations

import re

_KK_FOLD = str.maketrans(
    {
        "ё": "е",
        "қ": "к",
        "ғ": "г",
        "ұ": "у",
        "ў": "у",  # "кентаўдан": the Kazakh "у" after a vowel as some recognisers write it
        "ү": "у",
        "ө": "о",
        "ә": "а",
        "і": "и",
        "ң": "н",
        "һ": "х",
        "ъ": "",
        "«": " ",
        "»": " ",
    }
)
_NON_WORD = re.compile(r"[^\w]+", re.UNICODE)
_SPACES = re.compile(r"\s+")


def fold(text: str) -> str:
    """Lower-case, fold Kazakh letters, replace punctuation/hyphens by single spaces; padded with one space."""
    t = (text or "").lower().translate(_KK_FOLD)
    t = _NON_WORD.sub(" ", t).replace("_", " ")
    t = _SPACES.sub(" ", t).strip()
    return f" {t} " if t else " "

