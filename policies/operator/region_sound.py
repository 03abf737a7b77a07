"""A region's or large town's name said alone and mis-written by a speech recogniser beyond what
`region_spelling` reads (pure, no I/O): vowels and consonants heard alike ("кастанаи", "икибастус", "жесказхан",
"торас", "атирав", "октао"), or one sound off in a long name ("шимкен", "урялск", "петрапаловск").

`heard_name(words)` gives the caller's (folded) words with the name respelled as a region alias writes it, or None.
It is read only when the caller's answer is a name and nothing else (every other word glue: "город", "облысы",
"я из", "алло"; `nlu_regions.only_glue`) and when the word is no Russian word the dictionary knows ("семья" is
no Семей): a sentence, where far more ordinary words lie near a name, is left to `region_spelling`.

Names are compared by their sound key: unstressed vowels alike (о=а; е, э, я, ы, й=и), voiced consonants as
their voiceless pairs (б=п, в=ф, г=к, д=т, ж=ш, з=с; х=к, дж=ж), a soft sign dropped, a letter written twice once, and a
final "ау" as an ASR writes it ("ао", "ав"). A key of `MIN_KEY` letters must match whole; one of `MIN_NEAR_KEY`
letters or more may be one sound off. A key two regions share (Орал and Арал) names neither.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from functools import lru_cache

from ai_operator.kb.kazakh import is_kazakh_verb_form
from ai_operator.kb.morphology import russian_pos
from policies.operator.nlu_regions import only_glue
from policies.operator.region_data import OWN_ALIASES, SUFFIX_MAX
from policies.operator.region_spelling import one_edit

MIN_KEY = 5  # sounds a name's key must have to be matched at all ("тараз", "семей", "актау"; not "орал")
MIN_NEAR_KEY = 8  # ... and to be matched one sound off ("петрапаловск"; not "орталык", centre, for Аркалык)
MIN_CUT_KEY = 6  # ... or with its last sound not heard ("шимкен", "улыто"; `_SOFT_END`)
# Real places whose names sound like another region's town: with them, that sound names neither ("аралда" is
# in Aral, Kyzylorda, not in Орал) or their own region ("зеленовск", West Kazakhstan, is no Зыряновск)
SOUNDALIKES: dict[str, tuple[str, ...]] = {"KZ-43": ("re:арал(|да|дан|га|дын)",), "KZ-27": ("зеленовск*",)}
_SOFT_END = frozenset("туй")  # a final sound an ASR drops: "т" after "н" ("шымкен(т)"), "у" after "а" ("улыта(у)"),
# "й" after a vowel ("рудны(й)")
MAX_WORDS = 2  # words an ASR may have split the name into ("усть каминогорск")
_PLAIN = re.compile(r"[а-я ]+")
_KIND_WORDS = frozenset({"город", "г", "село", "поселок", "район", "аул", "станция"})  # "город абай": a phrase
_SIMPLE_RE = re.compile(r"([а-я ]+)\(([а-я|]*)\)\??")  # "re:семе(й|я|е|ю|ем)": a stem and its endings
_KEY = str.maketrans({"о": "а", "е": "и", "э": "и", "я": "и", "ы": "и", "й": "и", "ю": "у", "ь": "", "б": "п",
                      "в": "ф", "г": "к", "д": "т", "ж": "ш", "з": "с", "х": "к", "щ": "ш"})
_FINAL_AU = re.compile(r"а[вуо]$")  # "атырау" heard "атирав", "актау" written "октао"
_DOUBLE = re.compile(r"(.)\1+")
# a case ending a name heard whole may carry, with a Kazakh "I am" after it ("тарастан", "шимкенттенмин")
_CASE_ENDING = re.compile(r"(?:а|е|у|ом|ем|ой|ы|и|я|ю|да|де|та|те|дан|ден|тан|тен|нан|нен|га|ге|ка|ке|нын|нин|дын|дин|тын|"
                          r"тин)?(?:мын|мин|пын|пин|бын|бин)?")


def sound_key(word: str) -> str:
    """`word` (folded, Cyrillic) as it sounds, for comparison (see the module docstring)."""
    w = _FINAL_AU.sub("ау", _DOUBLE.sub(r"\1", word.replace("дж", "ж").replace(" ", "")))
    return w.translate(_KEY)


def _bodies(alias: str) -> list[tuple[str, bool]]:
    """The plain names an alias stands for, each with whether a case ending may follow it."""
    if alias.startswith("re:"):
        m = _SIMPLE_RE.fullmatch(alias[3:])
        return [] if m is None else [(m[1] + ending, False) for ending in {*m[2].split("|"), ""}]
    body = alias.removesuffix("*")
    if "*" in body or "обл" in body or not _PLAIN.fullmatch(body) or body.split()[0] in _KIND_WORDS:
        return []
    return [(body, alias.endswith("*"))]


def _names() -> dict[str, tuple[str, str, bool]]:
    """Sound key -> (region code, the name as an alias writes it, whether an ending may follow); keys two regions
    share are left out."""
    out: dict[str, tuple[str, str, bool]] = {}
    shared: set[str] = set()
    for code in OWN_ALIASES:
        for alias in (*OWN_ALIASES[code], *SOUNDALIKES.get(code, ())):
            if "алма" in alias:
                continue  # "алма ата" sounds like "алмады" (did not take); Almaty is asked about whatever is heard
            for body, open_end in _bodies(alias):
                key = sound_key(body)
                if len(key) < MIN_KEY:
                    continue
                if key in out and out[key][0] != code:
                    shared.add(key)
                out.setdefault(key, (code, body, open_end))
    return {k: v for k, v in out.items() if k not in shared}


_NAMES = _names()
_BY_LENGTH: dict[int, tuple[str, ...]] = {}
for _key in _NAMES:
    _BY_LENGTH[len(_key)] = (*_BY_LENGTH.get(len(_key), ()), _key)


def _name_of(word: str, one_off: bool = True) -> tuple[str, str] | None:
    """(the name as an alias writes it, the ending after it) when `word` sounds like one region's name; a name
    matched whole wins over one a sound off, and two regions a sound off name neither. A sound off: the first
    sound as heard, and either both `MIN_NEAR_KEY` long or the name's last sound not heard (`one_off`: looked
    for at all)."""
    whole: dict[str, tuple[str, str]] = {}
    near: dict[str, tuple[str, str]] = {}
    for cut in range(len(word), max(len(word) - SUFFIX_MAX, 1) - 1, -1):
        key, ending = sound_key(word[:cut]), word[cut:]
        if key in _NAMES and (not ending or (_NAMES[key][2] and _CASE_ENDING.fullmatch(ending))):
            code, body, _ = _NAMES[key]
            whole.setdefault(code, (body, ending))
    key = sound_key(word)  # a name a sound off is the whole word: no ending ("шимкен", not "жалга" for Шалкар)
    for n in (len(key) - 1, len(key), len(key) + 1) if one_off else ():
        for name in _BY_LENGTH.get(n, ()):
            code, body, _ = _NAMES[name]
            long_enough = min(len(key), n) >= MIN_NEAR_KEY and key[0] == name[0]  # "бойынша" is no Тайынша
            cut_short = n >= MIN_CUT_KEY and name[:-1] == key and body[-1] in _SOFT_END
            if (long_enough and one_edit(key, name)) or cut_short:
                near.setdefault(code, (body, ""))
    for found in (whole, near):
        if len(found) == 1:
            return next(iter(found.values()))
        if found:
            return None
    return None


@lru_cache(maxsize=1024)
def _heard(words: tuple[str, ...]) -> tuple[str, ...] | None:
    for size in range(1, MAX_WORDS + 1):
        for i in range(len(words) - size + 1):
            if not only_glue(words, [(i, i + size)]):
                continue
            said = "".join(words[i : i + size])
            if not _PLAIN.fullmatch(said) or (size == 1 and russian_pos(said)):
                continue  # Latin, or a Russian word the dictionary knows ("семья", "работа")
            hit = _name_of(said, one_off=size > 1 or not is_kazakh_verb_form(said))  # a Kazakh verb: whole names only
            if hit is not None:
                return (*words[:i], hit[0] + hit[1], *words[i + size :])
    return None


def heard_name(words: Sequence[str]) -> list[str] | None:
    """`words` (folded) with a bare region name an ASR mis-wrote respelled, or None (see the module docstring)."""
    found = _heard(tuple(words))
    return None if found is None else list(found)
