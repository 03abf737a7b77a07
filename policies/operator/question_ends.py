"""Whether a caller's question, as ASR gives it at a short pause, is whole or stops where more must come. Pure.

`dangling(text)`: the transcript ends on a word that needs a continuation - a preposition ("сколько стоит тариф
на"), a conjunction ("интернет и", "или", kk "және", "немесе"), a word that announces its noun or verb ("мой",
"хочу узнать", "хотел бы"), a number that may go on ("тариф за две", "бес", "мың"), a filler ("ну", "э",
"как бы", kk "әлгі"), a self-correction still to be said ("нет подождите", "то есть", "вернее", "дұрысы"), a
Russian adjective that waits for its noun ("сколько стоит домашний") or a Kazakh genitive that waits for its
head ("интернеттің"). `kb_question(text)`: at least two words, and the
operator's knowledge base has a topic in it (the relevance scorer's concepts weigh `TOPIC_WEIGHT` together:
"сколько стоит тариф", "роуминг қалай қосамын"; "сколько стоит" or a bare "интернет" do not; a concept heavier
than a topic names what is not ours: "какая погода будет завтра"). `completeness.py`
calls a KB question that does not dangle a whole one.
"""

from __future__ import annotations

import re

from ai_operator.kb.morphology import russian_pos
from policies.operator.grammar import FILLER_PAIRS, FILLERS
from policies.operator.knowledge import SCORER
from policies.operator.text import fold

TOPIC_WEIGHT = 0.8  # concepts of the question together ("сколько стоит" + "интернет": price 0.4 + internet 0.4)
MIN_QUESTION_WORDS = 2


def _table(words: str) -> frozenset[str]:
    """A word list as written below (space-separated, folded: `text.fold`, Kazakh letters onto Russian ones)."""
    return frozenset(words.split())


_PREPOSITIONS = _table(
    "в во на по с со у к ко за о об обо от до из изо для про при без через над под между около после перед "
    "среди вместо кроме насчет касательно вроде")
_CONJUNCTIONS = _table(
    "и или а но что чтобы если когда потому поэтому либо причем также зато однако "  # Russian
    "жане мен бен пен немесе алде бирак ягни себеби ойткени егер ал")  # Kazakh (folded)
_ANNOUNCING = _table(  # a determiner waiting for its noun, a verb waiting for its object or infinitive
    "мой моя мое мои моего моей моему моим моих мою ваш ваша ваше ваши вашего вашей вашему вашим ваших вашу "
    "наш наша наше наши нашего нашей этот эта этого этой этих эту тот та того той тех свой свою своего своей "
    "своих какой какая какие какого каком какую который которая которое которые которого котором "
    "хочу хотел хотела хотели хотим хотелось бы узнать спросить уточнить подсказать сказать "
    "менин сизин билгим сурагым")
_NUMBERS = _table(
    "ноль нуль один одна одно одного две два двух три трех четыре четырех пять пяти шесть шести семь семи "
    "восемь восьми девять девяти десять десяти одиннадцать двенадцать пятнадцать двадцать двадцати тридцать "
    "сорок пятьдесят шестьдесят семьдесят восемьдесят девяносто сто двести триста четыреста пятьсот тысяча "
    "тысячи тысяч миллион полторы "  # Russian
    "нол бир еки уш торт бес алты жети сегиз тогыз он жиырма жийырма отыз кырык елу алпыс жетпис сексен "
    "токсан жуз мын")  # Kazakh (folded)
_FILLERS = (FILLERS - {"вот", "блин", "слушайте", "слушай"}) | {"эээ", "ммм", "мммм", "ааа", "мынау", "анау"}
_FILLER_SOUND = re.compile(r"^(м{2,}|э{2,}|а{2,}|ы{2,}|хм+)$")
_CORRECTIONS = _table(
    "нет подождите подожди стоп секунду секундочку минутку вернее точнее хотя ой извините тоесть смысле "
    "дурысы кешириниз токтаныз жок")
_PAIRS = FILLER_PAIRS | {("то", "есть"), ("в", "смысле"), ("а", "именно")}
_KK_GENITIVE = ("ның", "нің", "дың", "дің", "тың", "тің")  # "интернеттің ..." waits for what it is of
_DIGITS = re.compile(r"^\d+$")


def dangling(text: str) -> bool:
    """The transcript stops where more must come (see the module doc)."""
    words = fold(text).split()
    if not words:
        return False
    last = words[-1]
    if (last in _PREPOSITIONS or last in _CONJUNCTIONS or last in _ANNOUNCING or last in _NUMBERS
            or last in _FILLERS or last in _CORRECTIONS or _FILLER_SOUND.match(last) or _DIGITS.match(last)):
        return True
    if len(words) > 1 and (words[-2], last) in _PAIRS:
        return True
    raw = (text or "").lower().split()
    end = raw[-1].strip(".,!?…") if raw else ""
    return end.endswith(_KK_GENITIVE) or russian_pos(end) == "ADJF"  # "сколько стоит домашний ..."


def kb_question(text: str) -> bool:
    """At least two words, and the knowledge base's topics in them weigh `TOPIC_WEIGHT` (see the module doc)."""
    if len(fold(text).split()) < MIN_QUESTION_WORDS:
        return False
    weight = sum(term.weight for term in SCORER.terms(text) if term.names and term.weight <= 1.0)  # heavier: not
    # ours (another company, a bank, the weather)
    return weight >= TOPIC_WEIGHT
