"""Spelling keys: one comparison form for a Hindi word however an STT or a vendor wrote it.

Owns `key(word)`: Devanagari is transliterated to a plain Latin skeleton (inherent vowel and schwa deletion,
long and short vowels merged, nukta dropped, chandrabindu as anusvara), and that skeleton and any romanised
Hindi or English word are folded the same way (ee/ii -> i, oo/uu -> u, aa -> a, doubled letters single, z -> j,
w -> v, ph -> f, a vowel's trailing h dropped). So पच्चीस, पच्चिस, pachees, pachchis and pachis share one key, as do
हज़ार, हजार, hazaar and hajar. Every word table of the policy is keyed with `key`; tokens are looked up by it.
Pure: no I/O.
"""

from __future__ import annotations

import re
import unicodedata
from functools import lru_cache

VIRAMA = "\u094d"
NUKTA = "\u093c"
_CONSONANTS = {
    "क": "k", "ख": "kh", "ग": "g", "घ": "gh", "ङ": "n", "च": "ch", "छ": "chh", "ज": "j", "झ": "jh", "ञ": "n",
    "ट": "t", "ठ": "th", "ड": "d", "ढ": "dh", "ण": "n", "त": "t", "थ": "th", "द": "d", "ध": "dh", "न": "n",
    "प": "p", "फ": "f", "ब": "b", "भ": "bh", "म": "m", "य": "y", "र": "r", "ल": "l", "व": "v", "श": "sh",
    "ष": "sh", "स": "s", "ह": "h", "ळ": "l",
}  # fmt: skip
_MATRAS = {
    "ा": "a", "ि": "i", "ी": "i", "ु": "u", "ू": "u", "ृ": "ri", "े": "e", "ै": "ai", "ो": "o", "ौ": "au",
    "ॅ": "e", "ॉ": "o", "ॆ": "e", "ॊ": "o",
}  # fmt: skip
_VOWELS = {
    "अ": "a", "आ": "a", "इ": "i", "ई": "i", "उ": "u", "ऊ": "u", "ऋ": "ri", "ए": "e", "ऐ": "ai", "ओ": "o",
    "औ": "au", "ऍ": "e", "ऑ": "o", "ऎ": "e", "ऒ": "o",
}  # fmt: skip
_NASALS = ("\u0901", "\u0902")  # chandrabindu, anusvara: both "n"
_VISARGA = "\u0903"

# Latin folding, in order: vowel pairs, consonant pairs, doubled letters, a vowel's trailing h.
_LATIN_SUBS = (
    (re.compile(r"ee|ii"), "i"),
    (re.compile(r"oo|uu"), "u"),
    (re.compile(r"aa+"), "a"),
    (re.compile(r"ph"), "f"),
    (re.compile(r"z"), "j"),
    (re.compile(r"w"), "v"),
    (re.compile(r"q"), "k"),
    (re.compile(r"ou"), "au"),
    (re.compile(r"ein$"), "en"),  # mein -> men (में)
    (re.compile(r"(th|dh|kh|gh|bh|jh|sh|ch|[a-z])\1+"), r"\1"),  # kk -> k, chch -> ch, thth -> th, ll -> l
    (re.compile(r"([kgcjtdpb])\1?h"), r"\1h"),  # tth -> th, cch -> ch ('c' alone only in English words)
    (re.compile(r"(?<=[aeiou])h$"), ""),  # barah -> bara, chhah -> chha
)


def _transliterate(word: str) -> str:
    """Devanagari letters to a Latin skeleton with the usual schwa deletion (करना -> karna, इकतीस -> iktis)."""
    units: list[list[str]] = []  # [consonant, vowel, kind] kind: "c" consonant, "v" independent vowel, "x" other
    for ch in word:
        if ch in _CONSONANTS:
            units.append([_CONSONANTS[ch], "a", "c", "inherent"])
        elif ch in _MATRAS and units and units[-1][2] == "c":
            units[-1][1], units[-1][3] = _MATRAS[ch], ""
        elif ch == VIRAMA and units and units[-1][2] == "c":
            units[-1][1], units[-1][3] = "", ""
        elif ch in _VOWELS:
            units.append(["", _VOWELS[ch], "v", ""])
        elif ch in _NASALS:
            units.append(["n", "", "x", ""])
        elif ch == _VISARGA:
            units.append(["h", "", "x", ""])
        elif ch.isascii():
            units.append([ch, "", "x", ""])
    n = len(units)
    conjunct = n > 1 and units[-2][2] == "c" and not units[-2][1]  # the schwa stays after one: शून्य -> shunya
    if n > 1 and units[-1][3] == "inherent" and not conjunct:
        units[-1][1] = ""
    for i in range(1, n - 1):
        u, prev, nxt = units[i], units[i - 1], units[i + 1]
        if u[3] == "inherent" and prev[1] and nxt[2] == "c" and nxt[1]:
            u[1] = ""
    return "".join(c + v for c, v, _, _ in units)


def fold_latin(word: str) -> str:
    """A Latin word's key: lower case, letters only, spelling variants folded (see the module docstring)."""
    w = re.sub(r"[^a-z0-9']", "", word.lower())
    for pattern, repl in _LATIN_SUBS:
        w = pattern.sub(repl, w)
    return w or word


@lru_cache(maxsize=8192)
def key(word: str) -> str:
    """The comparison key of one word, Devanagari or Latin (digits and other symbols are kept as they are)."""
    if not word:
        return word
    w = unicodedata.normalize("NFC", unicodedata.normalize("NFD", word).replace(NUKTA, ""))
    if any("\u0900" <= ch <= "\u097f" for ch in w):
        w = _transliterate(w)
    if w.isdigit():
        return w
    return fold_latin(w)


def keys(text: str) -> tuple[str, ...]:
    """The keys of the whitespace-separated words of `text` (for phrase tables)."""
    return tuple(key(w) for w in text.split())
