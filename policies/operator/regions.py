"""Region resolver: spoken text -> one of the 20 regions of Kazakhstan, with Almaty clarification. Pure.

`resolve_region(text)` returns a `RegionResult` with status `selected`, `ambiguous` (Almaty without "city" or
"region", or two different regions named), `not_found`, or `rejected` (only a place outside Kazakhstan, only
"Казахстан", or only a street named after a person such as "улица Абая"). The longest match wins, so
"Алматы облысы" is the region and "город Алматы" the city. `resolve_almaty_answer` reads the answer to the
clarification question; `is_region_change_request` recognises an explicit request to change the region.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from policies.operator.region_data import ALMATY_CITY, ALMATY_REGION, REGIONS, REGIONS_BY_CODE, SUFFIX_MAX
from policies.operator.text import fold

SELECTED = "selected"
AMBIGUOUS = "ambiguous"
NOT_FOUND = "not_found"
REJECTED = "rejected"
ALMATY_AMBIGUOUS = "ALMATY?"

_STREET_BEFORE = frozenset(
    {
        "улица",
        "улице",
        "улицу",
        "ул",
        "проспект",
        "проспекте",
        "пр",
        "просп",
        "переулок",
        "пер",
        "бульвар",
        "бульваре",
        "микрорайон",
        "мкр",
        "площадь",
        "имени",
        "им",
        "шоссе",
        "ulitsa",
        "prospekt",
        "street",
    }
)
_STREET_AFTER = frozenset(
    {"кошеси", "кошесинде", "кошесиндеги", "дангылы", "дангылында", "street", "avenue", "ave", "st"}
)
_FOREIGN = re.compile(
    r"\b(москв\w*|moscow|бишкек\w*|bishkek|ташкент\w*|tashkent|новосибирск\w*|омск\w*|оренбург\w*|самар\w*|"
    r"петербург\w*|питер\w*|екатеринбург\w*|астрахан\w*|барнаул\w*|челябинск\w*|росси\w*|кыргызстан\w*|"
    r"киргизи\w*|узбекистан\w*|russia|kyrgyzstan|uzbekistan)\b"
)
_KAZAKHSTAN = re.compile(r"\b(казахстан\w*|казакстан\w*|kazakhstan|qazaqstan)\b")
_ALMATY = re.compile(r"\b(алмат(ы\w{0,5}|е|у|ой)|almaty\w{0,2})\b")
_CITY_WORD = re.compile(r"\b(город\w*|гор|кала\w*|city|town)\b")
_REGION_WORD = re.compile(r"\b(област\w*|обл|облыс\w*|region|oblys\w*|район\w*)\b")
# The region word must be the object of the change verb: at most one word between them ("смените мой регион"),
# so a question such as "как поменять тариф в городе Павлодар?" is not a change request. In Kazakh the object
# comes before the verb and is nominative or accusative ("аймақты өзгерту"), never locative ("қалада өзгерту").
_CHANGE = re.compile(
    r"\b(смен\w*|помен\w*|измен\w*|переключ\w*|change|switch) (\w+ )?(регион\w*|област\w*|город\w*|region)\b|"
    r"\b(друг(ой|ую|ая) (регион|област\w*|город))\b|"
    r"\b(баска (аймак\w*|облыс\w*|онир\w*|кала\w*))\b|"
    r"\b(аймак|облыс|онир|кала)(ты|ти|ды|ди|ны|ни|ымды|имди|мды|мди)? (озгерт\w*|ауыстыр\w*)\b|"
    r"\b(another|other|different) region\b"
)


def _compile(alias: str) -> re.Pattern[str]:
    body = alias[3:] if alias.startswith("re:") else re.escape(alias).replace(r"\*", rf"\w{{0,{SUFFIX_MAX}}}")
    return re.compile(rf"\b(?:{body})\b")


_PATTERNS: tuple[tuple[str, re.Pattern[str]], ...] = (
    *((region.code, _compile(alias)) for region in REGIONS for alias in region.aliases),
    (ALMATY_AMBIGUOUS, _ALMATY),
)


@dataclass(frozen=True)
class RegionResult:
    """The resolver's answer. `region_code` and names are set only when `status` is `selected`."""

    status: str
    region_code: str = ""
    name_ru: str = ""
    name_kk: str = ""
    matched: str = ""
    candidates: tuple[str, ...] = field(default_factory=tuple)
    reason: str = ""

    @property
    def selected(self) -> bool:
        return self.status == SELECTED

    @property
    def almaty(self) -> bool:
        """Ambiguous between Almaty city and Almaty region (ask which)."""
        return self.status == AMBIGUOUS and set(self.candidates) == {ALMATY_CITY, ALMATY_REGION}


def selected(code: str, matched: str = "") -> RegionResult:
    """A `selected` result for a known ISO code (raises KeyError for an unknown code)."""
    region = REGIONS_BY_CODE[code]
    return RegionResult(SELECTED, code, region.name_ru, region.name_kk, matched)


def _is_street(folded: str, start: int, end: int) -> bool:
    before = folded[:start].split()
    after = folded[end:].split()
    return bool(before and before[-1] in _STREET_BEFORE) or bool(after and after[0] in _STREET_AFTER)


def _matches(folded: str) -> tuple[list[tuple[int, int, str, str]], int]:
    found: list[tuple[int, int, str, str]] = []
    streets = 0
    for code, pattern in _PATTERNS:
        for m in pattern.finditer(folded):
            if _is_street(folded, m.start(), m.end()):
                streets += 1
                continue
            found.append((m.start(), m.end(), code, m.group(0)))
    kept = [
        a
        for a in found
        if not any(
            b is not a and b[0] <= a[0] and a[1] <= b[1] and (b[1] - b[0]) > (a[1] - a[0]) for b in found
        )
    ]
    unique = {(s, e): (s, e, code, m) for s, e, code, m in kept}
    return list(unique.values()), streets


def resolve_region(text: str) -> RegionResult:
    """Resolve a caller's words to a region (see the module docstring for the statuses)."""
    folded = fold(text)
    kept, streets = _matches(folded)
    codes = list(dict.fromkeys(code for _s, _e, code, _m in sorted(kept)))
    concrete = [c for c in codes if c != ALMATY_AMBIGUOUS]
    matched = " ".join(m for _s, _e, _c, m in sorted(kept))
    if len(concrete) == 1:
        return selected(concrete[0], matched)
    if len(concrete) > 1:
        return RegionResult(
            AMBIGUOUS, matched=matched, candidates=tuple(concrete), reason="several regions named"
        )
    if codes:  # only "Алматы"
        return RegionResult(
            AMBIGUOUS,
            matched=matched,
            candidates=(ALMATY_CITY, ALMATY_REGION),
            reason="Almaty: city or region?",
        )
    if _FOREIGN.search(folded):
        return RegionResult(REJECTED, reason="place outside Kazakhstan")
    if streets:
        return RegionResult(REJECTED, reason="a street name, not a region")
    if _KAZAKHSTAN.search(folded):
        return RegionResult(REJECTED, reason="the country, not a region")
    return RegionResult(NOT_FOUND, reason="no region or city recognised")


def resolve_almaty_answer(text: str) -> RegionResult:
    """The answer to "city or region?": a named region wins; else "город"/"қала" -> city, "область"/"облыс" -> region."""
    direct = resolve_region(text)
    if direct.selected:
        return direct
    folded = fold(text)
    city = _CITY_WORD.search(folded) is not None
    region = _REGION_WORD.search(folded) is not None
    if city and not region:
        return selected(ALMATY_CITY, "город")
    if region and not city:
        return selected(ALMATY_REGION, "область")
    return RegionResult(AMBIGUOUS, candidates=(ALMATY_CITY, ALMATY_REGION), reason="Almaty: city or region?")


def is_region_change_request(text: str) -> bool:
    """An explicit request to change the region ("смените регион на Павлодар", "басқа аймақ")."""
    return _CHANGE.search(fold(text)) is not None
