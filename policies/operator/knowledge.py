"""The operator's knowledge base as it declares it to the runtime (`KNOWLEDGE`, a `dialogue.KnowledgeProfile`):
entries in Russian or Kazakh, scoped by region (an ISO 3166-2:KZ code, "*" for the whole country), and scored
for relevance with the telecom lexicon (lexicon.py) and Russian/Kazakh word analysis: pymorphy3's Russian lemmas
and the Kazakh suffix stripper (`RussianKazakh`). The runtime's knowledge base knows none of this itself.
"""

from __future__ import annotations

import re

import policies.operator.lexicon as lexicon
from ai_operator.dialogue import KnowledgeProfile, KnowledgeScope
from ai_operator.kb.kazakh import is_kazakh, is_kazakh_negated_verb, is_kazakh_verb_form, kazakh_oblique
from ai_operator.kb.morphology import normal_forms, russian_noun_reading, russian_pos, warm_up
from ai_operator.kb.relevance import PERSON, PLACE, Scorer
from policies.operator.kb_classifier import CLASSIFIER
from policies.operator.language import LANGUAGES

REGION = KnowledgeScope(key="region", field="regions", everywhere="*", pattern=r"[A-Z]{2}-[A-Z0-9]{1,3}",
                        example="an ISO 3166-2 code such as KZ-71")


# Russian prepositions whose noun is a circumstance (at most one adjective or pronoun between): a place or person
# one is at or comes from ("к свекрови", "у соседей", "из деревни"), and with the accusative, where one goes ("на
# дачу", "на каникулы"; "в продаже", "в лифте" stay what is asked about)
AT_PREPOSITIONS = frozenset(["к", "ко", "у", "из", "от", "при", "около", "возле"])
TO_PREPOSITIONS = frozenset(["на", "в", "во"])


# Kazakh finite verb endings the suffix stripper does not cut: past tense by person, "-ды" after a vowel (the
# accusative takes "-ны" there), "when" clauses ("жатқанда"); auxiliaries that end a clause
KAZAKH_FINITE = re.compile(r"(?:[дт][ыі](?:м|қ|к|ңыз|ңіз|мыз|міз)|[аеиоуыіәөұү][дт][ыі]|[ыі]л[дт][ыі]|[ғгқк][ае]нд[ае])$")
KAZAKH_CLAUSE_VERBS = frozenset(["болды", "еді", "екен", "болдық", "болдым"])


class RussianKazakh:
    """Word analysis for Russian and Kazakh (`ai_operator.kb.vocabulary.WordAnalysis`)."""

    def __init__(self) -> None:
        self.letters = {"ё": "е", "қ": "к", "ғ": "г", "ұ": "у", "ү": "у", "ө": "о", "ә": "а", "і": "и", "ң": "н",
                        "һ": "х", "ъ": "", "ь": ""}  # Kazakh letters onto their nearest Russian ones
        self.spellings = {"ё": "е"}
        self.converb_endings = ("ып", "ип", "п", "май", "мей", "пай", "пей", "бай", "бей")

    def normal_forms(self, word: str) -> tuple[str, ...]:
        return normal_forms(word)

    def dictionary_pos(self, word: str) -> str:
        return russian_pos(word)

    def is_verb_form(self, word: str) -> bool:
        return is_kazakh_verb_form(word)

    def stem_first(self, word: str) -> bool:
        return is_kazakh(word)

    def not_negation(self, negator: str, word: str) -> bool:
        return negator == "не" and is_kazakh(word)

    def negated_verb(self, word: str) -> bool:
        return (is_kazakh(word) or not russian_pos(word)) and is_kazakh_negated_verb(word)

    def aside(self, word: str, before: tuple[str, ...]) -> str:
        """A Russian person (not one a tariff is "для"); a place: a Kazakh noun in an oblique case, a Russian noun
        after a preposition of place (`AT_PREPOSITIONS`, `TO_PREPOSITIONS` with the accusative)."""
        if is_kazakh(word) or not russian_pos(word):
            return PLACE if kazakh_oblique(word) else ""
        animate, cases = russian_noun_reading(word)
        near = before[-1:] if not before or russian_pos(before[-1]) not in ("ADJF", "NPRO") else before[-2:-1]
        if animate:
            return PERSON if near != ("для",) else ""
        return PLACE if near and (near[0] in AT_PREPOSITIONS or (near[0] in TO_PREPOSITIONS and "accs" in cases)) else ""

    def ends_clause(self, word: str) -> bool:
        """A Kazakh finite verb (a verb form that is no converb; a past tense, "-ды" after a vowel, which no
        accusative is; a "when" clause's "-ғанда"): Kazakh puts the verb last in its clause."""
        if word in KAZAKH_CLAUSE_VERBS:
            return True
        return (is_kazakh(word) or not russian_pos(word)) and not word.endswith(self.converb_endings) and (
            is_kazakh_verb_form(word) or KAZAKH_FINITE.search(word) is not None)

    def warm_up(self) -> None:
        warm_up()


SCORER = Scorer(lexicon, RussianKazakh())
KNOWLEDGE = KnowledgeProfile(name="operator", languages=LANGUAGES, scope=REGION, scorer=SCORER, classifier=CLASSIFIER)
