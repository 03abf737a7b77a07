"""Absolute relevance of a knowledge-base hit to a question (pure, no I/O): does this article answer it at all?

The hybrid search ranks (reciprocal rank fusion): its score says which entry is *nearest*, never whether the
nearest is any good, so a weather question still gets a "best" tariff article. `Scorer.relevance(question,
title, text)` answers that separately, from the words: the share of the question's content that the article covers.
Nothing here knows a language or a domain: a `Scorer` is built from a policy's `Lexicon` (its vocabulary) and
`WordAnalysis` (its languages' letters and morphology), e.g. the operator's telecom lexicon with Russian and
Kazakh morphology (policies/operator/knowledge.py); the policy hands it to the runtime in its `KnowledgeProfile`.

1. Both texts are folded (lower case, the analysis's letter folding, e.g. `ё`->`е` and Kazakh letters onto
   Russian ones, punctuation -> spaces) and cut into words; digits are dropped.
2. Word sequences of `lexicon.PHRASES` become one concept (up to two `PHRASE_GAP` words or fillers may stand
   between their words: "ремонт на сети"; none after a negator: "не заплатил" is a debt, "не могу оплатить" no); a negator next to a "works"/"internet" word makes
   "does not work" (`broken`; a `PREFIX_NEGATORS` word only before it: "связь не выходя" is no complaint); every other word is a concept of `lexicon.CONCEPTS` (Russian and Kazakh
   synonyms in one set, by stem; a word neither the dictionary knows nor the analysis reads as a Kazakh form also by a
   long stem one letter off, an ASR's mis-spelling: "интернед", `Vocabulary.concepts_near`), a filler (dropped; so are a Kazakh auxiliary verb after a converb and a case
   ending written apart), or else a plain word compared by its stem (Russian and Kazakh endings stripped, two
   letters of tail tolerated); a number said as a word carries no topic, like digits. Where the question has all
   the parts of a `lexicon.COMBINATIONS` line, the combination replaces them ("вернёте ... деньги": a refund).
3. Each question term weighs what its concept says (topic 1.0; facets such as price, time, place and words all
   articles share less; products and companies that are not ours a lot more), a plain word 1.0 (a verb, Russian
   by its part of speech or Kazakh by its suffixes, half: it says less of what is asked about than a noun; a
   word no candidate article has more, a Russian noun or adjective most, but a circumstance the `WordAnalysis`
   reads (a person; a place gone to, in a question about going: `lexicon.MOTION`) less; so do, when the article
   lacks them, a plain word, a situation (`lexicon.CIRCUMSTANCES`) or a place only in the clauses before the
   question's focus, `Scorer.context`, clauses.py: "мы купили квартиру | как провести интернет"). In a question, a verb the
   analysis reads as negated ("жүктелмей") is "does not work". The relevance is the weight of the
   question terms the article has over the weight of all of them, halved when what matched weighs less than one
   topic word: an article that only shares "price" or a city does not answer. In a question about where
   something is (`lexicon.LOCATED`: an office) the place named weighs 3x, and an article that shares only that
   place, or gives no address to a question asking only where such a place is, covers nothing (located.py); an
   article has the concepts its own concepts imply (`lexicon.IMPLIES`: slow -> speed). An article's example
   questions (a KB line's "questions") count as what it covers when one is near the question from both sides
   (examples.py).
4. Among the candidates the store orders by `Relevance.rank`: the score, then the share of the question the
   title holds (which article is *about* it), then the best single sentence; a title topic the question does not
   name counts a little against ("Смена тарифа" for "какие тарифы есть").

`RELEVANCE_GATE` is the threshold calibrated with the operator's lexicon on the labelled questions in
tests/data/kb_relevance.jsonl (in-scope and out-of-scope, Russian and Kazakh, ASR-style; see
tests/test_kb_relevance.py, which prints the figures).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache, partial

from ai_operator.kb.clauses import CONTEXT_FACTOR, TOPIC_WEIGHT, covered_share, sentences
from ai_operator.kb.clauses import background as clause_background
from ai_operator.kb.examples import Example, by_examples, read_examples
from ai_operator.kb.located import LOCATED_PLACE_WEIGHT, covers_nothing, is_place
from ai_operator.kb.vocabulary import DROP, Lexicon, Vocabulary, WordAnalysis

RELEVANCE_GATE = 0.6
PLAIN_WEIGHT = 1.0
POS_WEIGHT = {"ADVB": 0.5, "PRED": 0.5, "COMP": 0.5, "NUMR": 0.3, "VERB": 0.5, "INFN": 0.5, "GRND": 0.5, "PRTF": 0.5, "PRTS": 0.5}  # a plain word by part of speech (else 1)
POS_DROPPED = frozenset({"NPRO", "CONJ", "PRCL", "PREP", "INTJ"})  # pronouns and function words carry no topic
UNSEEN_WEIGHT = 1.5  # a plain word no candidate article has: most likely what the question is really about
UNSEEN_NOUN_WEIGHT = 2.0  # ... and more so a noun or adjective ("коммуналку", "торговый"): the thing asked about
UNSEEN_ASIDE_WEIGHT = 0.5  # ... but a circumstance (`Term.aside`: "на дачу", "сосед") of a question that names a
# topic of ours less: it is not what is asked ("ты робот или человек" names none: there "человек" is the question)
MIN_SHARED = 5  # plain words shorter than this match only whole
STEM_TAIL = 2  # letters a plain word may have beyond a shared stem
TITLE_BONUS = 0.6  # ordering only: the share of the question its title has says which article is about it
SENTENCE_BONUS = 0.1  # ordering only: an article with one sentence that holds the question answers it better
UNASKED_TITLE_PENALTY = 0.05  # ordering only, per topic of the title the question does not name ("Смена тарифа")
SYNONYMS_PER_SET = 2  # stems of a synonym set added to the full-text query (the first listed: the commonest)
PHRASE_GAP_WORDS = 2  # fillers or prepositions a phrase may have between two of its words
BROKEN = "broken"
PERSON, PLACE = "person", "place"  # the circumstances a plain word may name (`WordAnalysis.aside`)
LIGHT_VERB_TAIL = 10  # letters of tense, person and number an auxiliary verb may carry ("тастадыңыздар")


@dataclass(frozen=True)
class Term:
    """One content term of a text: a set of concept names (synonym sets that share the word), or a plain
    word's stem (`names` empty)."""

    key: str
    names: frozenset[str]
    weight: float
    noun: bool = False  # a plain noun or adjective: what a question is about, when no article has it
    aside: str = ""  # a plain word naming a circumstance, `PERSON` or `PLACE` (`WordAnalysis.aside`)


@dataclass(frozen=True)
class DocTerms:
    """What an article offers for matching: its concepts and the prefixes of its plain words' stems."""

    concepts: frozenset[str]
    prefixes: frozenset[str]


@dataclass(frozen=True)
class Relevance:
    """How much of a question an article covers: `score` in [0, 1] (what the gate compares), `title` the share
    of the question its title alone covers, and the terms found and missing."""

    score: float
    title: float = 0.0
    matched: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    sentence: float = 0.0  # the share of the question that one sentence of the article covers (the best one)
    unasked: int = 0  # topics the article's title names that the question does not: it is about something else

    @property
    def rank(self) -> float:
        """Ordering key among hits: the score, near ties broken by the title and by the best single sentence."""
        return (self.score + TITLE_BONUS * self.title + SENTENCE_BONUS * self.sentence
                - UNASKED_TITLE_PENALTY * self.unasked)


def _starts(word: str, stems: tuple[str, ...]) -> bool:
    return any(word.startswith(s) for s in stems)


def _phrase_word(word: str, part: str, first: bool) -> bool:
    """A phrase's word matches a word it starts; a phrase's two-letter first word ("до", "на", "wi") and a word
    written with "=" ("күн=") only the whole word: "долг сколько" is not "до скольки", "күні" is not "күн"."""
    if part.endswith("="):
        return word == part[:-1]
    return word == part if first and len(part) <= 2 else word.startswith(part)


def _prefixes(word: str) -> set[str]:
    """`word` and its prefixes at most `STEM_TAIL` letters shorter (none shorter than `MIN_SHARED`)."""
    low = max(min(len(word), MIN_SHARED), len(word) - STEM_TAIL)
    return {word[:k] for k in range(low, len(word) + 1)}


def _has(doc: DocTerms, term: Term) -> bool:
    if term.names:
        return not term.names.isdisjoint(doc.concepts)
    return not _prefixes(term.key).isdisjoint(doc.prefixes)


class Scorer:
    """The relevance score with one policy's vocabulary (see the module docstring). Pure; the texts' terms are
    cached per scorer (a search scores one question against several articles, which come back search after
    search). `gate`: the relevance below which the knowledge base does not know the answer."""

    gate = RELEVANCE_GATE
    has, prefixes = staticmethod(_has), staticmethod(_prefixes)

    def __init__(self, lexicon: Lexicon, words: WordAnalysis) -> None:
        self.words = words
        self.vocabulary = Vocabulary(lexicon, words)
        self.fold = self.vocabulary.fold
        self.stem = self.vocabulary.stem
        self.concepts_of = self.vocabulary.concepts_of
        self._cached_terms: Callable[[str], tuple[Term, ...]] = lru_cache(maxsize=1024)(self._terms)
        self.doc_terms: Callable[..., DocTerms] = lru_cache(maxsize=4096)(self._doc_terms)
        self.read_terms, self.read_doc = self._terms, self._doc_terms  # uncached: an article's examples' terms
        self.examples_of: Callable[[str, tuple[str, ...]], tuple[Example, ...]] = lru_cache(maxsize=1024)(
            partial(read_examples, self))  # an article's examples (title, questions), read once
        self.context: Callable[[str], frozenset[str]] = lru_cache(maxsize=1024)(partial(clause_background, self))
        words.warm_up()  # a dictionary is loaded with the lexicon (daemon start), never in a caller's turn

    def clear_question_cache(self) -> None:
        """Forget the cached terms of texts (benchmarks measure a question new to every cache)."""
        self._cached_terms.cache_clear()  # type: ignore[attr-defined]
        self.context.cache_clear()  # type: ignore[attr-defined]

    def _concept(self, names: tuple[str, ...]) -> Term:
        return Term("|".join(names), frozenset(names), max(self.vocabulary.weights[n] for n in names))

    def _phrase_at(self, words: list[str], raw: list[str], used: list[bool], i: int,
                   seq: tuple[str, ...]) -> list[int] | None:
        """Where `seq` is in `words` from `i`, passing over up to `PHRASE_GAP_WORDS` words of the lexicon's
        `PHRASE_GAP` or fillers between its words ("ремонт на сети", "жылдамдығын қалай дұрыс тексеремін"); None
        if absent or a word of it is used."""
        at, j = [], i
        for n, part in enumerate(seq):
            for _ in range(PHRASE_GAP_WORDS if n and not (n == 1 and seq[0] in self.vocabulary.negators) else 0):
                j += (j < len(words) and self._gap_word(words[j], raw[j]) and not _phrase_word(words[j], part, False))
            if j >= len(words) or used[j] or not _phrase_word(words[j], part, not n):
                return None
            at.append(j)
            j += 1
        return at

    def _gap_word(self, word: str, raw: str) -> bool:
        """A word a phrase may pass over: a preposition of `PHRASE_GAP` or a filler, as said or by its normal form
        ("проверить реальную скорость": "реальный" is a filler)."""
        v = self.vocabulary
        if word in v.phrase_gap:
            return True
        forms = self.words.normal_forms(raw)
        normal = self.fold(forms[-1]) if len(forms) > 1 else word
        return normal != word and normal in v.phrase_gap and not self.concepts_of(word)

    def _light_verb(self, word: str, before: str) -> bool:
        """An auxiliary verb after a converb (Kazakh "өшіріп тастадыңыздар", "сынып қалды", "істемей қалды"): it
        says how the action went, not what it was, so it is no term."""
        return before.endswith(self.words.converb_endings) and any(
            word.startswith(v) and len(word) - len(v) <= LIGHT_VERB_TAIL for v in self.vocabulary.light_verbs)

    def terms(self, text: str) -> list[Term]:
        """The content terms of `text` in order, deduplicated (see the module docstring)."""
        return list(self._cached_terms(text))

    def _terms(self, text: str, keep_parts: bool = False) -> tuple[Term, ...]:
        v = self.vocabulary
        words = v.fold_words(text)
        raw = v.raw_words(text)
        if len(raw) != len(words):  # a word made only of folded-away letters: fall back to the folded words
            raw = words
        out: dict[str, Term] = {}
        used = [False] * len(words)
        for i, first in enumerate(words):  # phrases first
            for k in range(len(first), 1, -1):
                for seq, name in v.phrases_by_first.get(first[:k], ()):
                    if (at := self._phrase_at(words, raw, used, i, seq)) is not None:
                        used[at[0] : at[-1] + 1] = [True] * (at[-1] + 1 - at[0])  # a passed-over filler too
                        for part in name.split("+"):
                            if part != DROP:
                                out.setdefault(part, self._concept((part,)))
        for i, word in enumerate(words):  # "не работает", "интернет жоқ", "нет сигнала": does not work
            if word not in v.negators or used[i]:  # (a negator in a phrase is the phrase's: "или нет")
                continue
            near = [j for j in range(i - 3, i + 4) if j != i and 0 <= j < len(words) and (
                words[j] not in v.fillers or _starts(words[j], v.negated_verbs))]  # "не будет" too
            after = [j for j in near if j > i][:2]
            before = [j for j in near if j < i][-1:] if word not in v.prefix_negators else []
            for j in (*after, *before):  # the nearest words that are not fillers: "интернет мүлдем жоқ"
                if self.words.not_negation(word, raw[j]):
                    continue  # Kazakh "не" is "what": "не істеу керек" asks what to do
                if not used[j] and words[j] not in v.negators:
                    if _starts(words[j], v.negated_verbs):
                        used[j] = True
                    elif not _starts(words[j], v.negated_nouns):
                        continue
                    out.setdefault(BROKEN, self._concept((BROKEN,)))
                    break
        for i, word in enumerate(words):
            if used[i] or word.isdigit() or word in v.fillers or raw[i] in v.detached or (
                    i and self._light_verb(word, words[i - 1])):
                continue
            term = self._word_term(word, raw[i], tuple(raw[max(0, i - 2) : i]), asked=not keep_parts)
            if term is not None:
                out.setdefault(term.key if term.names else "w:" + term.key, term)
        named = {n for t in out.values() for n in t.names}
        for name, parts, absent, consumed in v.combinations:  # "вернёте ... деньги": a refund, wherever they are
            if parts <= named and absent.isdisjoint(named):  # the combination is what was asked: its parts are no
                if not keep_parts:  # terms of their own (an article that names it still says each), but a "+" part
                    out = {k: t for k, t in out.items() if not t.names or not t.names <= consumed}
                out.setdefault(name, self._concept((name,)))
                named.add(name)  # a later combination may take this one as a part
        return tuple(out.values())

    def _word_term(self, word: str, raw: str, before: tuple[str, ...] = (), asked: bool = True) -> Term | None:
        """The term of one word (after the words `before` it): a concept of the word, else of its normal form (e.g.
        a Russian lemma or a Kazakh stem, the `WordAnalysis`'s); in a question (`asked`), a negated verb is
        "does not work"; else the stem of the normal form as a plain word (marked `aside` when the analysis reads
        it as a circumstance); None for a filler."""
        forms = self.words.normal_forms(raw)
        concepts_of = self.concepts_of
        normal = self.fold(forms[-1]) if len(forms) > 1 else word
        dictionary_pos = self.words.dictionary_pos(raw)
        if dictionary_pos == "NUMR" or (normal != word and normal in self.vocabulary.fillers
                                        and not concepts_of(word)):
            return None  # a number said carries no topic (like digits); "тұрады" (costs) is a concept, "тұр" no
        if self.words.stem_first(raw) or normal == word or not dictionary_pos:  # a cut stem: the word first
            names = concepts_of(word) or (concepts_of(normal) if normal != word else ())
        else:  # a dictionary's lemma first: "закинуть" (pay), not the prefix of "закинул"
            names = concepts_of(normal) or concepts_of(word)
        if not names and asked and not dictionary_pos and not self.words.stem_first(raw) and not (
                self.words.is_verb_form(raw)):  # no dictionary's word nor a Kazakh form: mis-spelt by an ASR?
            names = self.vocabulary.concepts_near(word)
        if names:
            return self._concept(names)
        if asked and BROKEN in self.vocabulary.weights and self.words.negated_verb(raw):
            return self._concept((BROKEN,))  # "жүктелмей", "бітпейді": something does not happen
        if len(word) > 1 and not any(c.isdigit() for c in word):
            key = self.stem(normal) if normal else self.stem(word)
            pos = dictionary_pos or ("VERB" if self.words.is_verb_form(raw) else "")
            if pos in POS_DROPPED:
                return None
            return Term(key, frozenset(), PLAIN_WEIGHT * POS_WEIGHT.get(pos, 1.0), pos in ("NOUN", "ADJF"),
                        self.words.aside(raw, before) if asked else "")
        return None

    def is_place(self, key: str) -> bool:
        """The term key (`Relevance.matched`) is a place concept (`lexicon.PLACES`): a region or city."""
        return is_place(self.vocabulary, key)

    def _doc_terms(self, text: str, implied: bool = True) -> DocTerms:
        """The terms of an article (title and text joined); `implied`: with the concepts its concepts imply."""
        concepts: set[str] = set()
        prefixes: set[str] = set()
        for t in self._terms(text, keep_parts=True):
            if t.names:
                concepts |= t.names
            else:
                prefixes |= _prefixes(t.key)
        concepts |= {more for name, more in self.vocabulary.implies if implied and name in concepts}
        return DocTerms(frozenset(concepts), frozenset(prefixes))

    def learn(self, title: str, text: str, examples: Sequence[str] = ()) -> None:
        """An article's terms (and its `examples`') worked out ahead of its first search: cold, each of its words
        costs a pymorphy3 reading (about 10 ms an article, in the event loop) a caller's first question would pay."""
        self.doc_terms(f"{title}. {text}")
        self.examples_of(title, tuple(examples))

    def relevance(self, question: str, title: str, text: str, unseen: frozenset[str] = frozenset(),
                  examples: Sequence[str] = ()) -> Relevance:
        """The relevance of the article (`title`, `text`) to `question` (see the module docstring). `unseen`: the
        question's plain words that none of the search's candidate articles has (`unseen_words`); they weigh
        `UNSEEN_WEIGHT`: "брачный договор" is not the contract the knowledge base knows. `examples`: the article's
        example questions (ways callers ask for it), which count as what it covers (examples.py)."""
        doc = self.doc_terms(f"{title}. {text}")
        wanted = self.weighed(question, doc, unseen)
        total = sum(t.weight for t in wanted)
        if total <= 0:
            return Relevance(0.0)
        matched = [t for t in wanted if _has(doc, t)]
        if covers_nothing(self.vocabulary, wanted, matched, doc):
            matched = []  # only the place asked matched, or no address to "адрес сервисного центра" (located.py)
        got = sum(t.weight for t in matched)
        score = covered_share(got, total)
        in_title = self.doc_terms(title)
        title_share = sum(t.weight for t in matched if _has(in_title, t)) / total
        sentence = max((s for s, _ in self.sentence_shares(matched, text, total)), default=0.0)
        asked = {n for t in wanted for n in t.names}
        unasked = sum(self.vocabulary.weights[n] >= TOPIC_WEIGHT for n in in_title.concepts - asked
                      ) if title_share else 0  # only between titles that name something asked
        own = Relevance(round(score, 4), round(title_share, 4), tuple(t.key for t in matched),
                        tuple(t.key for t in wanted if t not in matched), round(sentence, 4), unasked)
        return by_examples(self, question, title, text, own, examples, unseen) if examples else own

    def weighed(self, question: str, doc: DocTerms, unseen: frozenset[str]) -> list[Term]:
        """The question's terms weighed against one article's terms `doc` (see the module docstring)."""
        located = any(t.names & self.vocabulary.located for t in self.terms(question))  # "офис в Таразе": the place must match
        aside = self._circumstances(question) if not located else frozenset()
        background = self.context(question) if not located else frozenset()
        return [Term(t.key, t.names, (CONTEXT_FACTOR if t.key in background else UNSEEN_ASIDE_WEIGHT
                                      if t.key in aside else UNSEEN_NOUN_WEIGHT if t.noun else UNSEEN_WEIGHT) * t.weight)
                if not t.names and t.key in unseen else
                Term(t.key, t.names, LOCATED_PLACE_WEIGHT * t.weight)
                if located and t.names & self.vocabulary.places else
                Term(t.key, t.names, CONTEXT_FACTOR * t.weight)
                if t.key in background and self._aside_concept(t) and not _has(doc, t) else t
                for t in self.terms(question)]

    def _aside_concept(self, term: Term) -> bool:
        """A plain word, a situation (`lexicon.CIRCUMSTANCES`) or a place: in the background, not what is asked."""
        return not term.names or term.names <= self.vocabulary.circumstances | self.vocabulary.places

    def _circumstances(self, question: str) -> frozenset[str]:
        """The question's plain words that name a circumstance (`Term.aside`), when it asks about a topic of ours:
        a person ("сосед"), and a place only in a question about going there (`lexicon.MOTION`: "на дачу
        уезжаем"; "позвонить в налоговую" asks about the tax office)."""
        terms = self.terms(question)
        if not any(t.names and t.weight >= TOPIC_WEIGHT for t in terms):
            return frozenset()
        going = any(t.names & self.vocabulary.motion for t in terms)
        return frozenset(t.key for t in terms if t.aside == PERSON or (t.aside == PLACE and going))

    def sentence_shares(self, wanted: list[Term], text: str, total: float) -> list[tuple[float, str]]:
        """Each sentence of `text` with the share of the question's weight (`total`) that its terms among `wanted`
        carry."""
        if total <= 0:
            return []
        return [(sum(t.weight for t in wanted if _has(self.doc_terms(s), t)) / total, s) for s in sentences(text)]

    def answering_sentences(self, question: str, text: str) -> list[tuple[float, str]]:
        """Each sentence of the article `text` (in order) with how much of `question` it answers: the weight of
        the question's terms it has, each divided by the number of the article's sentences that have it, so the
        sentence with the fact asked about ("красный", "самый быстрый") stands out from those that only share the
        topic. A sentence has what it says, not what that implies (every sentence on a tariff is no "cheap" one)."""
        wanted = self.terms(question)
        parts = sentences(text)
        docs = [self.doc_terms(p, False) for p in parts]
        found = {t.key: sum(_has(d, t) for d in docs) for t in wanted}
        return [(sum(t.weight / found[t.key] for t in wanted if _has(d, t)), p)
                for d, p in zip(docs, parts, strict=True)]

    def unseen_words(self, question: str, articles: Iterable[tuple[str, str]]) -> frozenset[str]:
        """The question's plain words (stems) that none of `articles` (title, text) has. The articles are the
        search's candidates, found *by* the question's words, so a word none of them has is one the knowledge
        base does not use."""
        plain = [t for t in self.terms(question) if not t.names]
        docs = [self.doc_terms(f"{title}. {text}") for title, text in articles]
        return frozenset(t.key for t in plain if not any(_has(d, t) for d in docs))

    def synonym_stems(self, question: str) -> list[tuple[str, bool]]:
        """The lexicon stems (as written, unfolded; with whether each matches only a whole word) of the synonym
        sets the question names: the knowledge base adds them to its full-text query, so an article that says
        "перерасчёт" is found for "вернёте деньги", and a Russian one for a Kazakh question."""
        out: dict[str, bool] = {}
        for t in self.terms(question):
            for name in sorted(t.names):
                if self.vocabulary.weights[name] >= TOPIC_WEIGHT:
                    out.update(list(self.vocabulary.surface.get(name, {}).items())[:SYNONYMS_PER_SET])
        return list(out.items())
