"""Region resolver: spoken text -> one of the 20 regions of Kazakhstan, with Almaty clarification. Pure.

`resolve_region(text)` returns a `RegionResult` with status `selected`, `ambiguous` (Almaty without "city" or
"region", or two different regions named), `not_found`, or `rejected` (only a place outside Kazakhstan, only
"Казахстан", or only a street named after a person such as "улица Абая"). The longest match wins, so
"Алматы облысы" is the region and "город Алматы" the city. `resolve_almaty_answer` reads the answer to the
clarification question; `is_region_change_request` recognises an explicit request to change the region and
`resolve_region_change` finds the new region in it.

Names are matched on `grammar.analyse(text).words` (fillers dropped, a Kazakh copula removed, so
"Қарағандыданмын" reads "карагандыдан"); then `nlu_regions` drops streets and people's names, and
`grammar.choose` applies negation and self-correction ("не Караганда, а Павлодар" -> Павлодар,
"Павлодар емес, Қарағанды" -> Қарағанды, "не город, а область" -> the region).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import lru_cache

from policies.operator.grammar import AMBIGUOUS as GRAMMAR_AMBIGUOUS
from policies.operator.grammar import Mention, Utterance, analyse, choose, is_question
from policies.operator.nlu_regions import (
    Place,
    almaty_mentions,
    buried_correction,
    is_change,
    is_correction,
    is_person_name,
    is_street,
    names_a_street,
    only_glue,
    taken_back,
    where_he_lives,
)
from policies.operator.region_data import ALMATY_CITY, ALMATY_REGION, REGIONS, REGIONS_BY_CODE, SUFFIX_MAX
from policies.operator.region_news import tells_a_move
from policies.operator.region_sound import heard_name
from policies.operator.region_spelling import final_i_written, region_word_written, respelled

SELECTED = "selected"
AMBIGUOUS = "ambiguous"
NOT_FOUND = "not_found"
REJECTED = "rejected"
ALMATY_AMBIGUOUS = "ALMATY?"

_FOREIGN = re.compile(
    r"\b(москв\w*|moscow|бишкек\w*|bishkek|ташкент\w*|tashkent|новосибирск\w*|омск\w*|оренбург\w*|самар\w*|"
    r"петербург\w*|питер\w*|екатеринбург\w*|астрахан\w*|барнаул\w*|челябинск\w*|росси\w*|кыргызстан\w*|"
    r"киргизи\w*|узбекистан\w*|russia|kyrgyzstan|uzbekistan)\b"
)
_KAZAKHSTAN = re.compile(r"\b(казахстан\w*|казакстан\w*|kazakhstan|qazaqstan)\b")
_ALMATY = re.compile(r"\b(алмат(ы\w{0,5}|а|е|у|ой)|almaty\w{0,2})\b")


def _compile(alias: str) -> re.Pattern[str]:
    if alias.startswith("re:"):
        body = alias[3:]
    else:  # "обл*" in a longer alias: the region word itself takes any case ending ("облысындағы")
        body = re.escape(alias).replace(r"обл\*", r"обл\w*").replace(r"\*", rf"\w{{0,{SUFFIX_MAX}}}")
    return re.compile(rf"\b(?:{body})\b")


def _base(alias: str) -> str:
    """The stem of a one-word alias ending in "*" ("актобе*" -> "актобе"); "" when there is none."""
    if alias.startswith("re:") or not alias.endswith("*") or " " in alias:
        return ""
    return alias[:-1]


_LEAD = 3  # patterns are indexed by the first letters a matching word must start with (3: ~460 district aliases)
Alias = tuple[str, re.Pattern[str], str]  # region code, compiled alias, stem for the surname check


def _lead(alias: str) -> str:
    """The `_LEAD` letters every match of `alias` starts with ("" when the alias does not start with them)."""
    body = alias[3:] if alias.startswith("re:") else alias
    return body[:_LEAD] if re.fullmatch(rf"\w{{{_LEAD}}}", body[:_LEAD]) else ""


def _index() -> dict[str, tuple[Alias, ...]]:
    by_lead: dict[str, list[Alias]] = {"алм": [], "alm": []}
    for region in REGIONS:
        for alias in region.aliases:
            by_lead.setdefault(_lead(alias), []).append((region.code, _compile(alias), _base(alias)))
    for lead in ("алм", "alm"):  # "Алматы" alone: city or region, asked
        by_lead[lead].append((ALMATY_AMBIGUOUS, _ALMATY, "алмат"))
    return {k: tuple(v) for k, v in by_lead.items()}


_BY_LEAD = _index()  # "" holds the aliases without a plain `_LEAD`-letter start (tried on every utterance)
_ALMATY_COMPLEMENT = {"city": "region", "region": "city"}
_ALMATY_CODES = {"city": ALMATY_CITY, "region": ALMATY_REGION}
_ITSELF = frozenset({"само", "самой", "самом", "сама", "самого"})  # "в самой Алматы": the city itself
_ITSELF_AFTER = frozenset({"ози", "озинде", "озинен", "озиндемин", "озинденмин"})  # "Алматының өзі"


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


@lru_cache(maxsize=256)
def _places(utt: Utterance) -> tuple[list[Place], int, int]:
    """Place names in the caller's words, longest match first; plus how many were streets and names."""
    text, toks = utt.text, utt.words
    leads = {"", *(w[:_LEAD] for w in toks)}
    found: list[tuple[int, int, str, str]] = []
    for lead in leads:
        for code, pattern, base in _BY_LEAD.get(lead, ()):
            for m in pattern.finditer(text):
                found.append((m.start(), m.end(), code, base))
    kept = [
        a for a in found
        if not any(b is not a and b[0] <= a[0] and a[1] <= b[1] and (b[1] - b[0]) > (a[1] - a[0]) for b in found)
    ]
    places: dict[tuple[int, int], Place] = {}
    streets = names = 0
    for s, e, code, base in sorted(kept):
        a, b = utt.index_at(s), utt.index_at(e - 1) + 1
        if is_street(toks, a, b):
            streets += 1
            continue
        if is_person_name(toks, a, b, base):
            names += 1
            continue
        last = toks[b - 1]
        tail = last[len(base):] if base and last.startswith(base) else ""
        places.setdefault((a, b), Place(a, b, code, tail, toks[a - 1] if a > 0 else ""))
    return list(places.values()), streets, names


def _read(text: str) -> Utterance:
    """The caller's words, analysed; when they name no place as said, with a region name an ASR mis-wrote ("павладар",
    "петро павловск", "ақтөбеліктерміз", "кордаи", "обылысы") respelled (region_spelling.py)."""
    utt = analyse(text or "")
    if (fixed := region_word_written(utt.words)) is not None:
        utt = analyse(" ".join(fixed))
    if _places(utt)[0]:
        return utt
    if (words := respelled(utt.words)) is not None:
        return analyse(" ".join(words))
    if (written := final_i_written(utt.words)) is not None and _places(again := analyse(" ".join(written)))[0]:
        return again
    return utt


def _matched(utt: Utterance, place: Place) -> str:
    return " ".join(utt.words[place.start:place.end])


def _decide(utt: Utterance, places: list[Place], streets: int, names: int) -> RegionResult:
    places = where_he_lives(utt.cyr, places)
    choice = choose(utt.cyr, [Mention(p.start, p.end, p.code) for p in places], strict=True)
    chosen = [p for p in places if p.code == choice.value]
    if choice.chosen and choice.value != ALMATY_AMBIGUOUS:
        return selected(str(choice.value), _matched(utt, chosen[-1]))
    concrete = [c for c in choice.candidates if c != ALMATY_AMBIGUOUS]
    if choice.status == GRAMMAR_AMBIGUOUS and len(concrete) == 1:
        return selected(concrete[0], " ".join(_matched(utt, p) for p in places if p.code == concrete[0]))
    matched = " ".join(_matched(utt, p) for p in places)
    if len(concrete) > 1:
        return RegionResult(AMBIGUOUS, matched=matched, candidates=tuple(concrete), reason="several regions named")
    if choice.value == ALMATY_AMBIGUOUS and (streets or names_a_street(utt.cyr) or _itself(utt.cyr, places)):
        # "Алматы, улица Толе би", "в самой Алматы": the city
        return selected(ALMATY_CITY, matched)
    if choice.value == ALMATY_AMBIGUOUS:
        return RegionResult(
            AMBIGUOUS, matched=matched, candidates=(ALMATY_CITY, ALMATY_REGION), reason="Almaty: city or region?"
        )
    text = utt.text
    if choice.rejected:
        return RegionResult(NOT_FOUND, reason="only a negated region")
    if _FOREIGN.search(text):
        return RegionResult(REJECTED, reason="place outside Kazakhstan")
    if streets:
        return RegionResult(REJECTED, reason="a street name, not a region")
    if names:
        return RegionResult(REJECTED, reason="a person's name, not a region")
    if _KAZAKHSTAN.search(text):
        return RegionResult(REJECTED, reason="the country, not a region")
    return RegionResult(NOT_FOUND, reason="no region or city recognised")


def resolve_region(text: str) -> RegionResult:
    """Resolve a caller's words to a region (see the module docstring for the statuses). A name said alone and
    heard wrong ("кастанаи", "торас") is read too (region_sound.py): only here, in an answer to the region
    question, not in a later turn, where a word alone is more often a question ("интернет")."""
    utt = _read(text)
    if not _places(utt)[0] and (words := heard_name(utt.words)) is not None:
        utt = analyse(" ".join(words))
    return _decide(utt, *_places(utt))


@dataclass(frozen=True)
class NamedPlace:
    """A place named in an utterance: its region and the (folded) words that name it."""

    code: str
    words: tuple[str, ...]


def places_in(text: str) -> list[NamedPlace]:
    """The places named in `text` that belong to one region (towns, old names, "столица"; not "Алматы" alone,
    not streets or people's names), in order."""
    utt = _read(text)
    places, _streets, _names = _places(utt)
    return [NamedPlace(p.code, utt.words[p.start:p.end]) for p in sorted(places, key=lambda p: p.start)
            if p.code != ALMATY_AMBIGUOUS]


_NOT_ASKING = re.compile(r" (не знаю|не помню|не уверен\w*|билмеймин|билмеймиз|есимде жок) ")  # no question after it
# greetings that end on a question particle ("сәлеметсіз бе", "қалыңыз қалай"): no question of ours
_GREETING = re.compile(r" (салеметсиз(дер)? бе|саламатсыз(дар)? ба|калыныз калай|жагдайыныз калай|как дела) ")


def question_beside_region(text: str) -> str | None:
    """What a caller asks in the same breath as naming the region ("я из Павлодара, сколько стоит Дом 1000",
    "Ақтөбеденмін, роутер жалға қанша тұрады"): the words beside the place when they ask something, else None
    ("я из Павлодара", "Павлодар облысынан хабарласып тұрмын": the region alone)."""
    utt = _read(text)
    spans = [(p.start, p.end) for p in _places(utt)[0]]
    if not spans or only_glue(utt.cyr, spans):
        return None
    rest = [k for k in range(len(utt.words)) if not any(s <= k < e for s, e in spans)]
    said = _GREETING.sub(" ", f" {' '.join(utt.cyr[k] for k in rest)} ").strip()
    if not is_question(said.split()) or _NOT_ASKING.search(f" {said} "):
        return None  # "я из Павлодара, не знаю какой тариф": no question
    return " ".join(utt.words[k] for k in rest)



def resolve_region_change(text: str) -> RegionResult:
    """The new region in a change request: the place moved away from ("с Караганды", "Қарағандыдан") is not it."""
    utt = _read(text)
    places, streets, names = _places(utt)
    targets = [p for p in places if not p.source]
    if places and not targets and tells_a_move(utt.cyr):  # "мы переехали из Шымкента": where to is to be asked
        return RegionResult(NOT_FOUND, reason="only the place moved away from")
    return _decide(utt, targets or places, streets, names)  # "регион неправильный, я из Тараза": he lives there


_NO_NO = re.compile(r"^\W*(?:(?:не|нет|жоқ|жок|no)\W+){2,}(?=(?:я|мы|мен|біз|биз)\b)", re.IGNORECASE)


def resolve_region_correction(text: str, current: str) -> RegionResult | None:
    """The region the caller corrects to, once one is set ("не Павлодар а Караганда", "Павлодар емес Қарағанды",
    "я ошибся Актобе", "Актобе" alone; `nlu_regions.is_correction`; inside a longer sentence that asks nothing,
    `nlu_regions.buried_correction`): the new region, or Almaty to ask "city or region?"; None when the words are
    not a correction. The region already set, named again by another of its places ("не
    Караганда а Темиртау", "да да Павлодар Павлодар"), is confirmed again; "не Павлодар а Павлодар" is none."""
    utt = _read(_NO_NO.sub("", text or ""))  # "не не не я в Талдыкоргане": "no no no", no place negated
    places, streets, names = _places(utt)
    in_almaty = current in _ALMATY_CODES.values()
    if in_almaty and all(p.code == ALMATY_AMBIGUOUS for p in places):
        return _almaty_switch(utt, places, current)
    choice = choose(utt.cyr, [Mention(p.start, p.end, p.code) for p in places], strict=True)
    if not is_correction(utt.cyr, places):
        buried = buried_correction(utt.cyr, places, current)  # "я вам сказала Павлодар а мы ... в Актобе"
        return _decide(utt, [buried], streets, names) if buried is not None else None
    kept = {p.code for p in places} - set(choice.rejected)
    if not choice.chosen and len(kept) == 1 and kept != {ALMATY_AMBIGUOUS}:  # "Караганда, а не Павлодар"
        places = [p for p in places if p.code in kept]
    result = _decide(utt, places, streets, names)
    if result.almaty and in_almaty and not choice.rejected:
        return None  # "Алматы" said again in Almaty: not a correction
    if result.almaty or (result.selected and result.region_code != current):
        return result
    said = {_matched(utt, p) for p in places}
    if result.selected and (len(said) > 1 or not any(taken_back(utt.cyr, p) for p in places)):
        return result  # "не Караганда а Темиртау", "да да Павлодар Павлодар": the region set, said again (not
    return None  # "не Павлодар а Павлодар")


def _almaty_switch(utt: Utterance, places: list[Place], current: str) -> RegionResult | None:
    """In Almaty, the city for the region or back ("не город а область", "қала емес облыс", "я в самом городе
    Алматы", "жоқ Алматының өзі"): the other one, when the words say only that."""
    chosen = _city_or_region(utt.cyr)
    toks = utt.cyr
    if chosen is None and _itself(toks, places):
        chosen = selected(ALMATY_CITY, "алматы")
    if chosen is None or not only_glue(toks, [(p.start, p.end) for p in places]):
        return None
    return chosen  # the other one, or the one set said again ("город город", "иә облыс"): no question either way


def _itself(toks: Sequence[str], places: Sequence[Place]) -> bool:
    """Almaty named as the city itself: "Алматының өзі", "в самой Алматы", "в Алматы, в самом городе"."""
    in_the_city = any(t in _ITSELF and toks[k + 1 : k + 2] in (("городе",), ("городу",)) for k, t in enumerate(toks))
    return any(in_the_city or set(toks[p.end : p.end + 1]) & _ITSELF_AFTER or set(toks[p.start - 1 : p.start]) & _ITSELF
               for p in places if p.code == ALMATY_AMBIGUOUS)


def _city_or_region(toks: Sequence[str]) -> RegionResult | None:
    """Almaty city or region as the words choose it ("город", "не город а область", "қала емес облыс"), or None."""
    choice = choose(toks, almaty_mentions(toks), _ALMATY_COMPLEMENT, strict=True)
    if choice.chosen and choice.value in _ALMATY_CODES:
        return selected(_ALMATY_CODES[choice.value], "город" if choice.value == "city" else "область")
    return None


def resolve_almaty_answer(text: str) -> RegionResult:
    """The answer to "city or region?": a named region wins; else "город"/"қала" -> city, "область"/"облыс" ->
    region, with negation and correction ("не город а область", "қала емес облыс", "облыс емес")."""
    direct = resolve_region(text)
    if direct.selected:
        return direct
    chosen = _city_or_region(analyse(text or "").cyr)
    if chosen is not None:
        return chosen
    return RegionResult(AMBIGUOUS, candidates=(ALMATY_CITY, ALMATY_REGION), reason="Almaty: city or region?")


def is_region_change_request(text: str) -> bool:
    """An explicit request to change the region ("смените регион на Павлодар", "аймақты Павлодарға ауыстырыңыз",
    "басқа аймақ"); a question about something else in a city is not."""
    utt = _read(text)
    places, _streets, _names = _places(utt)
    return is_change(utt.cyr, places)
