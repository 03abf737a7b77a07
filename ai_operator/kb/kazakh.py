"""A suffix-aware Kazakh normaliser (pure): strips the agglutinated endings of a Kazakh word back to its stem.

Kazakh stacks suffixes in a fixed order after the stem: (verb) negation -> tense/aspect/participle -> person,
(noun) plural -> possessive -> case -> particle. `kazakh_stem` strips them from the end, one layer at a time
moving only inwards, the longest suffix first, where the sound before allows it ("-лар" after a vowel, "-тар"
after a voiceless consonant), never leaving fewer than `MIN_STEM` letters with a vowel in them: "интернетімді"
-> "интернет", "қосылғым" -> "қосыл", "төлемегенім" -> "төле", "тарифтеріңізде" -> "тариф". A heuristic: it
can over-cut a stem ("қарағандыда" -> "қараған"), the same way in a question and in an article.
"""

from __future__ import annotations

import re
from functools import lru_cache

MIN_STEM = 3
KAZAKH_LETTERS = frozenset("әғқңөұүһі")
_VOWELS = frozenset("аәеиоөуұүыіэюя")

# outermost first; a word's suffixes are stripped from the end, moving only inwards through the layers
_LAYERS_TEXT = (
    # particles and question markers glued by ASR
    "ғой қой ма ме ба бе па пе шы ші",
    # person (verbs and predicates)
    "мын мін бын бін пын пін мыз міз быз біз пыз піз сыңдар сіңдер сыздар сіздер сың сің сыз сіз м",
    # case
    "ның нің дың дің тың тің ға ге қа ке на не ны ні ды ді ты ті да де та те нда нде дан ден тан тен нан нен "
    "мен бен пен дағы дегі тағы тегі ндағы ндегі ша ше а е н",
    # possessive
    "ымыз іміз ыңыз іңіз ңыз ңіз сы сі ым ім ың ің ы і ң м",
    # plural
    "лар лер дар дер тар тер",
    # tense, aspect, participles, converbs, verbal nouns, moods, desire ("-ғысы келеді")
    "атын етін йтын йтін ғысы гісі қысы кісі ғым гім қым кім ғы гі қы кі ған ген қан кен мақ мек бақ бек пақ пек ады еді "
    "йды йді ды ді ты ті ып іп п у йық йік айық ейік са се",
    # negation
    "ма ме ба бе па пе",
)
LAYERS: tuple[tuple[str, ...], ...] = tuple(
    tuple(sorted(set(layer.split()), key=len, reverse=True)) for layer in _LAYERS_TEXT
)
_AFTER_VOWEL = frozenset("мнңпу")  # one-letter suffixes that follow a vowel ("төлеу", "қосамын" -> "қоса-м")
_VOICELESS = frozenset("кқпстшфхцчщ")  # "-та", "-қа", "-тар" follow these; "-да", "-ға", "-дар" the others


def is_kazakh(word: str) -> bool:
    """The word has a letter only Kazakh uses (ә, ғ, қ, ң, ө, ұ, ү, һ, і)."""
    return not KAZAKH_LETTERS.isdisjoint(word)


def _can_cut(word: str, suffix: str) -> bool:
    """Cut `suffix` only where Kazakh phonotactics put it: "-лар" after a vowel, "-тар" after a consonant, ..."""
    rest = word[: -len(suffix)]
    if len(rest) < MIN_STEM or _VOWELS.isdisjoint(rest):
        return False
    vowel_before = rest[-1] in _VOWELS
    first = suffix[0]
    if len(suffix) == 1:
        return len(rest) > MIN_STEM and (vowel_before if first in _AFTER_VOWEL else not vowel_before)
    if first in "тқкп":
        return rest[-1] in _VOICELESS
    if first in "дғгб":
        return rest[-1] not in _VOICELESS
    if first in "лн":
        return vowel_before or rest[-1] in "рйу"
    return True


_VERBAL_LAYERS = (1, 5)  # person and tense/aspect layers of `LAYERS`: a word that had one of these cut is a verb form


@lru_cache(maxsize=65536)
def kazakh_stem(word: str) -> str:
    """`word` without its inflectional suffixes (see the module docstring): at each step the longest suffix of
    the layers not yet passed, outermost layer first on a tie."""
    return _strip(word)[0]


def is_kazakh_verb_form(word: str) -> bool:
    """A person, tense, aspect or participle suffix was cut from `word` ("істейді", "кетемін", "көрсетіледі"): a
    verb form, which says less about a question's topic than a noun does."""
    return _strip(word)[1]


# a verb in the negative: a stem, the negation suffix where the sound before allows it (-ма after a vowel or a
# sonorant, -ба after a voiced consonant, -па after a voiceless one) and a verbal ending ("жүктелмей", "бітпейді",
# "ашылмады", "көрінбеген"); a noun in "-ма" takes other endings ("программаны")
_NEGATED_VERB = re.compile(
    r"^(?P<stem>\w*[аәеиоөуұүыіэюя]\w*?)(?:(?<=[аәеиоөуұүыіэюярлйу])м|(?<=[мнңзж])б|(?<=[кқпстшфхцч])п)[аеә]"
    r"(?:й|йды|йді|йтын|йтін|ймын|ймін|йсың|йсің|йсыз|йсіз|ймыз|йміз|ды|ді|дым|дім|ған|ген|са|се|с|у|сын|сін)$")
# verbs whose negative says what the caller knows or wants, not that something does not happen
NOT_SYMPTOMS = ("біл", "түсін", "қала", "ұна", "жара", "ойла", "сен")


def is_kazakh_negated_verb(word: str) -> bool:
    """`word` is a Kazakh verb in the negative ("жүктелмей", "бітпейді", "ашылмады"): something does not happen
    (not "білмеймін", what the caller does not know)."""
    match = _NEGATED_VERB.match(word)
    return match is not None and not match["stem"].startswith(NOT_SYMPTOMS)


_CASE_LAYER = 2  # the case layer of `LAYERS`
# case endings of a circumstance: dative (where to), locative (where), ablative (where from), instrumental (with
# whom); not the accusative of what is acted on, nor the genitive of whose thing is asked about ("әкімдігінің")
OBLIQUE_CASES = frozenset(["ға", "ге", "қа", "ке", "на", "не", "да", "де", "та", "те", "нда", "нде", "дан", "ден", "тан",
                           "тен", "нан", "нен", "мен", "бен", "пен"])


def kazakh_oblique(word: str) -> bool:
    """An oblique case ending (`OBLIQUE_CASES`) was cut from `word` ("саяжайға", "ауылда", "көршімен"): it names
    where or with whom, a circumstance rather than what is asked about."""
    stem, _, case = _strip(word)
    if stem[-1] in "ую":  # a verbal noun: "тіркелуге" (to register) is the action asked about
        return False
    return case in OBLIQUE_CASES and (case not in ("на", "не") or stem[-1] in "ыі")  # "үйі-не", not "дәріха-на"


@lru_cache(maxsize=65536)
def _strip(word: str) -> tuple[str, bool, str]:
    verbal = False
    case = ""
    layer = 0
    while layer < len(LAYERS):
        best: tuple[int, int, str] | None = None
        for k in range(layer, len(LAYERS)):
            cut = next((s for s in LAYERS[k] if word.endswith(s) and _can_cut(word, s)), None)
            if cut is not None and (best is None or len(cut) > len(best[2])):
                best = (len(cut), k, cut)
        if best is None:
            break
        word, layer = word[: -best[0]], best[1] + 1
        verbal = verbal or best[1] in _VERBAL_LAYERS
        case = best[2] if best[1] == _CASE_LAYER else case
    return word, verbal, case
