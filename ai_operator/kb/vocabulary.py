"""A policy's vocabulary for the relevance score, parsed (pure, no I/O): what `relevance.Scorer` is built from.

A policy gives two things (see its `KnowledgeProfile`): a `Lexicon`, plain-text tables of its domain's words
(fillers, synonym sets with weights, phrases, negation, places, endings; the operator's is
policies/operator/lexicon.py, which documents the format), and a `WordAnalysis`, what its languages need: letters
folded before matching, each word's normal forms (a dictionary's lemma, a stemmer's stem), its part of speech.
`Vocabulary` parses the tables once, folded the way the texts they are matched against are.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import NamedTuple, Protocol

MIN_STEM = 4
NEAR_MIN_STEM = 6  # concept stems this long also match a word one letter off (an ASR mis-spelling: "интернед")
DROP = "_"  # a phrase's concept name that drops the phrase's words
_NON_WORD = re.compile(r"[^\w]+|_", re.UNICODE)


class Lexicon(Protocol):
    """The tables of a policy's lexicon module (whitespace-separated words; `CONCEPTS` blocks "name weight:
    stems", `PHRASES` lines "name: words" (a word ending in "=" only whole), `COMBINATIONS` lines "name: concepts"
    or "name: concepts | concepts that must be absent", a part written "+concept" keeps its own term, `IMPLIES`
    lines "concept: implied concept")."""

    MAX_CONCEPT_TAIL: int
    FILLER_WORDS: str
    CONCEPTS: str
    PLACES: str
    PHRASES: str
    COMBINATIONS: str
    DETACHED_ENDINGS: str
    LIGHT_VERBS: str
    NEGATORS: str
    PREFIX_NEGATORS: str  # negators that negate only the words after them (Russian "не"), not the word before
    NEGATED_VERBS: str
    NEGATED_NOUNS: str
    ENDINGS: str
    PHRASE_GAP: str  # words a phrase may have between two of its words (besides fillers): prepositions
    IMPLIES: str  # an article with the first concept also has the second ("slow: speed")
    LOCATED: str  # concepts of a question about where something is (an office): the place named must match
    ADDRESS: str  # concepts of an address asked for ("адрес", "где находится"): an article without one gives none
    MOTION: str  # concepts of going somewhere (leaving, moving house): the place gone to is a circumstance
    CIRCUMSTANCES: str  # concepts of the caller's situation (family, a trip, a purchase): background, if unanswered
    CLAUSE_OPENERS: str  # words that open a clause ("а", "но", "как", "где"): the question's focus starts at one


class WordAnalysis(Protocol):
    """What the policy's languages need for matching words (pure; `warm_up` may load a dictionary, once)."""

    @property
    def letters(self) -> Mapping[str, str]:
        """Folded before matching ("ё" -> "е", a Kazakh letter onto a Russian one; "" drops the letter)."""
        ...

    @property
    def spellings(self) -> Mapping[str, str]:
        """Normalised in the words the morphology reads ("ё" -> "е")."""
        ...

    @property
    def converb_endings(self) -> tuple[str, ...]:
        """A word ending so makes the next word an auxiliary verb (the lexicon's LIGHT_VERBS)."""
        ...

    def normal_forms(self, word: str) -> tuple[str, ...]:
        """`word` (lower case, unfolded) and, when it differs, its normal form (a lemma or a stem) last."""
        ...

    def dictionary_pos(self, word: str) -> str:
        """The part of speech a dictionary gives the word (OpenCorpora tags: NOUN, VERB, ADJF, ...), "" unknown."""
        ...

    def is_verb_form(self, word: str) -> bool:
        """A stemmer cut a verb's ending (person, tense) from the word."""
        ...

    def stem_first(self, word: str) -> bool:
        """The word's normal form is a stem that may be cut short: look the word itself up first."""
        ...

    def not_negation(self, negator: str, word: str) -> bool:
        """`negator` next to `word` is no negation (Kazakh "не" is "what")."""
        ...

    def negated_verb(self, word: str) -> bool:
        """`word` is a verb in a negative form that says something does not happen (Kazakh "жүктелмей"); a word
        that is none of the lexicon's concepts then reads as "does not work"."""
        ...

    def aside(self, word: str, before: tuple[str, ...]) -> str:
        """"person" or "place" when `word` (after the words `before` it) names a circumstance of the question
        rather than what it asks about: a person ("бабушка", "сосед") or a place gone to or stayed at ("на дачу",
        "саяжайға"); "" otherwise."""
        ...

    def ends_clause(self, word: str) -> bool:
        """`word` closes a clause (a Kazakh finite verb: "алдық", "болды"): the next word opens another."""
        ...

    def warm_up(self) -> None:
        """Load what the analysis needs now (at start), not in a caller's turn."""
        ...


class Combination(NamedTuple):
    """A `Lexicon.COMBINATIONS` line: the concept `name` a question has when it has all of `parts` and none of
    `absent`; its `consumed` parts (those not written "+concept") then have no term of their own."""

    name: str
    parts: frozenset[str]
    absent: frozenset[str]
    consumed: frozenset[str]


def _combination(line: str) -> Combination:
    """A `Lexicon.COMBINATIONS` line "name: part +kept | absent" parsed."""
    name, _, rest = line.partition(":")
    parts, _, absent = rest.partition("|")
    written = parts.split()
    return Combination(name.strip(), frozenset(p.lstrip("+") for p in written), frozenset(absent.split()),
                       frozenset(p for p in written if not p.startswith("+")))


class Vocabulary:
    """A `Lexicon`'s tables parsed and folded with a `WordAnalysis`'s letters."""

    def __init__(self, lexicon: Lexicon, words: WordAnalysis) -> None:
        self._fold = str.maketrans(dict(words.letters))
        self._spell = str.maketrans(dict(words.spellings))
        self.max_tail = lexicon.MAX_CONCEPT_TAIL
        self.endings = frozenset(lexicon.ENDINGS.split())
        self.longest_ending = max(map(len, self.endings))
        self.fillers = frozenset(self.fold_words(lexicon.FILLER_WORDS))
        self.index: dict[str, tuple[tuple[str, ...], bool]] = {}
        self.weights: dict[str, float] = {}
        self.surface: dict[str, dict[str, bool]] = {}
        for block in re.split(r"\n(?=\S)", lexicon.CONCEPTS.strip()):
            head, _, stems = block.partition(":")
            name, weight = head.split()
            self.weights[name] = float(weight)
            for raw in stems.split():
                exact = raw.endswith("=")
                self.surface.setdefault(name, {})[raw.rstrip("=").lower()] = exact
                for key in self.fold_words(raw.rstrip("=")):
                    names = self.index.get(key, ((), exact))[0]
                    self.index[key] = ((*names, name) if name not in names else names, exact)
        self.near: dict[str, set[str]] = {}  # a long stem and each of its one-letter deletions -> the stems
        for key, (_, exact) in self.index.items():
            if len(key) >= NEAR_MIN_STEM and not exact:
                for variant in {key, *_deletions(key)}:
                    self.near.setdefault(variant, set()).add(key)
        self.phrases_by_first: dict[str, list[tuple[tuple[str, ...], str]]] = {}
        for line in lexicon.PHRASES.strip().splitlines():
            name, _, words_text = line.partition(":")
            seq = tuple(self.fold(raw.rstrip("=")) + ("=" if raw.endswith("=") else "") for raw in words_text.split())
            self.phrases_by_first.setdefault(seq[0].rstrip("="), []).append((seq, name.strip()))
        self.negators = frozenset(self.fold_words(lexicon.NEGATORS))
        self.prefix_negators = frozenset(self.fold_words(lexicon.PREFIX_NEGATORS))
        self.negated_verbs = tuple(self.fold_words(lexicon.NEGATED_VERBS))
        self.negated_nouns = tuple(self.fold_words(lexicon.NEGATED_NOUNS))
        self.places = frozenset(lexicon.PLACES.split())
        self.light_verbs = tuple(self.fold_words(lexicon.LIGHT_VERBS))
        self.detached = frozenset(lexicon.DETACHED_ENDINGS.split())  # compared unfolded: "ден" is not "день"
        self.phrase_gap = (frozenset(self.fold_words(lexicon.PHRASE_GAP)) | self.fillers) - self.negators
        self.implies = [(name.strip(), implied.strip()) for name, _, implied in
                        (line.partition(":") for line in lexicon.IMPLIES.strip().splitlines())]
        self.located = frozenset(lexicon.LOCATED.split())
        self.address = frozenset(lexicon.ADDRESS.split())
        self.motion = frozenset(lexicon.MOTION.split())
        self.circumstances = frozenset(lexicon.CIRCUMSTANCES.split())
        self.clause_openers = frozenset(self.fold_words(lexicon.CLAUSE_OPENERS))
        self.combinations = [_combination(line) for line in lexicon.COMBINATIONS.strip().splitlines()]

    def fold(self, text: str) -> str:
        """Lower-case, fold the analysis's letters, punctuation and hyphens -> single spaces."""
        return " ".join(_NON_WORD.sub(" ", (text or "").lower().translate(self._fold)).split())

    def fold_words(self, text: str) -> list[str]:
        return self.fold(text).split()

    def raw_words(self, text: str) -> list[str]:
        """The words of `text` lower-cased but not folded (what the morphology reads), aligned with `fold_words`."""
        return _NON_WORD.sub(" ", (text or "").lower().translate(self._spell)).split()

    def stem(self, word: str) -> str:
        """`word` without up to two of the lexicon's `ENDINGS`, never shorter than `MIN_STEM`."""
        for _ in range(2):
            for n in range(min(self.longest_ending, len(word) - MIN_STEM), 0, -1):
                if word[-n:] in self.endings:
                    word = word[:-n]
                    break
            else:
                break
        return word

    def concepts_of(self, word: str) -> tuple[str, ...]:
        """The concepts whose longest stem starts `word` (a folded word); () when none. A stem matches a word whose
        ending is at most `MAX_CONCEPT_TAIL` letters (and at most two more than the stem is long)."""
        for k in range(len(word), 1, -1):
            tail = len(word) - k
            if tail > min(self.max_tail, k + 2):
                if tail > self.max_tail:
                    return ()
                continue
            entry = self.index.get(word[:k])
            if entry is None or (entry[1] and tail):
                continue
            return entry[0]
        return ()

    def concepts_near(self, word: str) -> tuple[str, ...]:
        """The concepts of a stem at least `NEAR_MIN_STEM` letters long that starts `word` (a folded word unknown
        to the dictionary) but for one letter (one missing, extra, wrong or two swapped, never the first), with
        the tail `concepts_of` allows: how an ASR mis-spells a word ("интернед", "раутер", "преставка"). () when
        none, or when stems of different concepts are equally near."""
        for k in range(len(word), NEAR_MIN_STEM - 2, -1):
            tail = len(word) - k
            if tail > self.max_tail:
                return ()
            prefix = word[:k]
            found = {key for variant in {prefix, *_deletions(prefix)} for key in self.near.get(variant, ())
                     if _one_edit(prefix, key) and tail <= min(self.max_tail, len(key) + 2)}
            names = {self.index[key][0] for key in found}
            if len(names) == 1:
                return names.pop()
            if names:
                return ()
        return ()


def _deletions(word: str) -> set[str]:
    """`word` with each one of its letters but the first left out."""
    return {word[:i] + word[i + 1 :] for i in range(1, len(word))}


def _one_edit(a: str, b: str) -> bool:
    """`a` and `b` differ by exactly one letter left out, added, changed or two neighbours swapped, not the first."""
    if a == b or a[:1] != b[:1] or abs(len(a) - len(b)) > 1:
        return False
    i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    if len(a) == len(b):
        return a[i + 1 :] == b[i + 1 :] or (a[i : i + 2] == b[i : i + 2][::-1] and a[i + 2 :] == b[i + 2 :])
    longer, shorter = (a, b) if len(a) > len(b) else (b, a)
    return longer[i + 1 :] == shorter[i:]
