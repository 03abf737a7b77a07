"""Absolute relevance of a knowledge-base hit to a question (pure, no I/O): does this article answer it at all?

The hybrid search ranks (reciprocal rank fusion): its score says which entry is *nearest*, never whether the
nearest is any good, so a weather question still gets a "best" tariff article. `relevance(question, title,
text)` answers that separately, from the words: the share of the question's content that the article covers.

1. Both texts are folded (lower case, `ё`->`е`, Kazakh letters onto Russian ones, punctuation -> spaces) and cut
   into words; digits are dropped.
2. Word sequences of `lexicon.PHRASES` become one concept; a negator next to a "works"/"internet" word makes
   "does not work" (`broken`); every other word is a concept of `lexicon.CONCEPTS` (Russian and Kazakh
   synonyms in one set, by stem), a filler (dropped; so are a Kazakh auxiliary verb after a converb and a case
   ending written apart), or else a plain word compared by its stem (Russian and Kazakh endings stripped, two
   letters of tail tolerated).
3. Each question term weighs what its concept says (topic 1.0; facets such as price, time, place and words all
   articles share less; products and companies that are not ours a lot more), a plain word 1.0 (a verb, Russian
   by its part of speech or Kazakh by its suffixes, half: it says less of what is asked about than a noun; a
   word no candidate article has more, a Russian noun or adjective most). The relevance is the weight of the
   question terms the article has over the weight of all of them, halved when what matched weighs less than one
   topic word: an article that only shares "price" or a city does not answer.
4. Among the candidates the store orders by `Relevance.rank`: the score, then the share of the question the
   title holds (which article is *about* it), then the best single sentence.

`RELEVANCE_GATE` is the threshold calibrated on the labelled questions in tests/data/kb_relevance.jsonl (in-scope
and out-of-scope, Russian and Kazakh, ASR-style; see tests/test_kb_relevance.py, which prints the figures).
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from functools import lru_cache

from ai_operator.kb import lexicon
from ai_operator.kb.kazakh import is_kazakh, is_kazakh_verb_form
from ai_operator.kb.morphology import normal_forms, russian_pos, warm_up

RELEVANCE_GATE = 0.6
TOPIC_WEIGHT = 1.0
TOPICLESS_FACTOR = 0.5
PLAIN_WEIGHT = 1.0
POS_WEIGHT = {"ADVB": 0.5, "PRED": 0.5, "COMP": 0.5, "NUMR": 0.3, "VERB": 0.5, "INFN": 0.5, "GRND": 0.5, "PRTF": 0.5, "PRTS": 0.5}  # a plain Russian word by part of speech (else 1)
POS_DROPPED = frozenset({"NPRO", "CONJ", "PRCL", "PREP", "INTJ"})  # pronouns and function words carry no topic
UNSEEN_WEIGHT = 1.5  # a plain word no candidate article has: most likely what the question is really about
UNSEEN_NOUN_WEIGHT = 2.0  # ... and more so a Russian noun or adjective ("коммуналку", "торговый"): the thing asked about
MIN_STEM = 4
MIN_SHARED = 5  # plain words shorter than this match only whole
STEM_TAIL = 2  # letters a plain word may have beyond a shared stem
TITLE_BONUS = 0.6  # ordering only: the share of the question its title has says which article is about it
SENTENCE_BONUS = 0.1  # ordering only: an article with one sentence that holds the question answers it better
SYNONYMS_PER_SET = 2  # stems of a synonym set added to the full-text query (the first listed: the commonest)
BROKEN = "broken"
DROP = "_"

_FOLD = str.maketrans({"ё": "е", "қ": "к", "ғ": "г", "ұ": "у", "ү": "у", "ө": "о", "ә": "а", "і": "и", "ң": "н",
                       "һ": "х", "ъ": "", "ь": ""})
_NON_WORD = re.compile(r"[^\w]+|_", re.UNICODE)
_ENDINGS = frozenset(lexicon.ENDINGS.split())
_LONGEST_ENDING = max(map(len, _ENDINGS))


def fold(text: str) -> str:
    """Lower-case, fold Kazakh letters and `ё`, drop soft/hard signs, punctuation and hyphens -> single spaces."""
    return " ".join(_NON_WORD.sub(" ", (text or "").lower().translate(_FOLD)).split())


def stem(word: str) -> str:
    """`word` without up to two inflectional endings (Russian or Kazakh), never shorter than `MIN_STEM`."""
    for _ in range(2):
        for n in range(min(_LONGEST_ENDING, len(word) - MIN_STEM), 0, -1):
            if word[-n:] in _ENDINGS:
                word = word[:-n]
                break
        else:
            break
    return word


def clear_question_cache() -> None:
    """Forget the cached terms of texts (benchmarks measure a question new to every cache)."""
    _terms.cache_clear()


def _fold_words(text: str) -> list[str]:
    return fold(text).split()


def _raw_words(text: str) -> list[str]:
    """The words of `text` lower-cased but not folded (what the morphology reads), aligned with `_fold_words`."""
    return _NON_WORD.sub(" ", (text or "").lower().replace("ё", "е")).split()


def _build() -> tuple[frozenset[str], dict[str, tuple[tuple[str, ...], bool]], dict[str, float],
                      dict[str, dict[str, bool]], list[tuple[tuple[str, ...], str]], frozenset[str],
                      tuple[str, ...], tuple[str, ...]]:
    fillers = frozenset(_fold_words(lexicon.FILLER_WORDS))
    index: dict[str, tuple[tuple[str, ...], bool]] = {}
    weights: dict[str, float] = {}
    surface: dict[str, dict[str, bool]] = {}
    for block in re.split(r"\n(?=\S)", lexicon.CONCEPTS.strip()):
        head, _, stems = block.partition(":")
        name, weight = head.split()
        weights[name] = float(weight)
        for raw in stems.split():
            exact = raw.endswith("=")
            surface.setdefault(name, {})[raw.rstrip("=").lower()] = exact
            for key in _fold_words(raw.rstrip("=")):
                names = index.get(key, ((), exact))[0]
                index[key] = ((*names, name) if name not in names else names, exact)
    phrases = []
    for line in lexicon.PHRASES.strip().splitlines():
        name, _, words = line.partition(":")
        phrases.append((tuple(_fold_words(words)), name.strip()))
    negators = frozenset(_fold_words(lexicon.NEGATORS))
    verbs = tuple(_fold_words(lexicon.NEGATED_VERBS))
    nouns = tuple(_fold_words(lexicon.NEGATED_NOUNS))
    return fillers, index, weights, surface, phrases, negators, verbs, nouns


_FILLERS, _INDEX, _WEIGHTS, _SURFACE, _PHRASES, _NEGATORS, _NEG_VERBS, _NEG_NOUNS = _build()
_PLACES = frozenset(lexicon.PLACES.split())
LIGHT_VERB_TAIL = 10  # letters of tense, person and number an auxiliary verb may carry ("тастадыңыздар")
_LIGHT_VERBS = tuple(_fold_words(lexicon.LIGHT_VERBS))
_DETACHED = frozenset(lexicon.DETACHED_ENDINGS.split())  # compared unfolded: "ден" is not "день"
_COMBINATIONS = [(name.strip(), frozenset(parts.split())) for name, _, parts in
                 (line.partition(":") for line in lexicon.COMBINATIONS.strip().splitlines())]
warm_up()  # the Russian dictionary is loaded with the lexicon, at import (daemon start), never in a caller's turn
_PHRASES_BY_FIRST: dict[str, list[tuple[tuple[str, ...], str]]] = {}
for _seq, _name in _PHRASES:
    _PHRASES_BY_FIRST.setdefault(_seq[0], []).append((_seq, _name))


def concepts_of(word: str) -> tuple[str, ...]:
    """The concepts whose longest stem starts `word` (a folded word); () when none. A stem matches a word whose
    ending is at most `lexicon.MAX_CONCEPT_TAIL` letters (and at most two more than the stem is long)."""
    for k in range(len(word), 1, -1):
        tail = len(word) - k
        if tail > min(lexicon.MAX_CONCEPT_TAIL, k + 2):
            if tail > lexicon.MAX_CONCEPT_TAIL:
                return ()
            continue
        entry = _INDEX.get(word[:k])
        if entry is None or (entry[1] and tail):
            continue
        return entry[0]
    return ()


@dataclass(frozen=True)
class Term:
    """One content term of a text: a set of concept names (synonym sets that share the word), or a plain
    word's stem (`names` empty)."""

    key: str
    names: frozenset[str]
    weight: float
    noun: bool = False  # a plain Russian noun or adjective: what a question is about, when no article has it


def _concept(names: tuple[str, ...]) -> Term:
    return Term("|".join(names), frozenset(names), max(_WEIGHTS[n] for n in names))


def _starts(word: str, stems: tuple[str, ...]) -> bool:
    return any(word.startswith(s) for s in stems)


def _phrase_word(word: str, part: str, first: bool) -> bool:
    """A phrase's word matches a word it starts; a phrase's two-letter first word ("до", "на", "wi") only the
    whole word: "долг сколько" is not "до скольки"."""
    return word == part if first and len(part) <= 2 else word.startswith(part)


def _light_verb(word: str, before: str) -> bool:
    """A Kazakh auxiliary verb after a converb ("өшіріп тастадыңыздар", "сынып қалды", "істемей қалды"): it
    says how the action went, not what it was, so it is no term."""
    return before.endswith(("ып", "ип", "п", "май", "мей", "пай", "пей", "бай", "бей")) and any(
        word.startswith(v) and len(word) - len(v) <= LIGHT_VERB_TAIL for v in _LIGHT_VERBS)


def terms(text: str) -> list[Term]:
    """The content terms of `text` in order, deduplicated (see the module docstring)."""
    return list(_terms(text))


@lru_cache(maxsize=1024)
def _terms(text: str) -> tuple[Term, ...]:
    """`terms`, cached: a search scores one question against several articles and their sentences."""
    words = _fold_words(text)
    raw = _raw_words(text)
    if len(raw) != len(words):  # a word made only of folded-away letters: fall back to the folded words
        raw = words
    out: dict[str, Term] = {}
    used = [False] * len(words)
    for i, first in enumerate(words):  # phrases first
        for k in range(len(first), 1, -1):
            for seq, name in _PHRASES_BY_FIRST.get(first[:k], ()):
                n = len(seq)
                if i + n <= len(words) and not any(used[i : i + n]) and all(
                        _phrase_word(words[i + j], seq[j], not j) for j in range(n)):
                    for j in range(n):
                        used[i + j] = True
                    for part in name.split("+"):
                        if part != DROP:
                            out.setdefault(part, _concept((part,)))
    for i, word in enumerate(words):  # "не работает", "интернет жоқ", "нет сигнала": does not work
        if word not in _NEGATORS:
            continue
        near = [j for j in range(i - 3, i + 4) if j != i and 0 <= j < len(words) and words[j] not in _FILLERS]
        after = [j for j in near if j > i][:2]
        before = [j for j in near if j < i][-1:]
        for j in (*after, *before):  # the nearest words that are not fillers: "интернет мүлдем жоқ"
            if word == "не" and is_kazakh(raw[j]):
                continue  # Kazakh "не" is "what": "не істеу керек" asks what to do
            if not used[j] and words[j] not in _NEGATORS:
                if _starts(words[j], _NEG_VERBS):
                    used[j] = True
                elif not _starts(words[j], _NEG_NOUNS):
                    continue
                out.setdefault(BROKEN, _concept((BROKEN,)))
                break
    for i, word in enumerate(words):
        if used[i] or word.isdigit() or word in _FILLERS or raw[i] in _DETACHED or (
                i and _light_verb(word, words[i - 1])):
            continue
        term = _word_term(word, raw[i])
        if term is not None:
            out.setdefault(term.key if term.names else "w:" + term.key, term)
    named = {n for t in out.values() for n in t.names}
    for name, parts in _COMBINATIONS:  # "вернёте ... деньги": a refund, wherever the two words are
        if parts <= named:
            out.setdefault(name, _concept((name,)))
    return tuple(out.values())


def _word_term(word: str, raw: str) -> Term | None:
    """The term of one word: a concept of the word, else of its normal form (Russian lemma or Kazakh stem, see
    morphology.py); else the stem of the normal form as a plain word; None for a filler."""
    forms = normal_forms(raw)
    normal = fold(forms[-1]) if len(forms) > 1 else word
    if normal != word and normal in _FILLERS and not concepts_of(word):  # "тұрады" (costs) is a concept, "тұр" no
        return None
    if is_kazakh(raw) or normal == word or not russian_pos(raw):  # a Kazakh stem may be cut short: the word first
        names = concepts_of(word) or (concepts_of(normal) if normal != word else ())
    else:  # a Russian lemma first: "закинуть" (pay), not the prefix of "закинул"
        names = concepts_of(normal) or concepts_of(word)
    if names:
        return _concept(names)
    if len(word) > 1 and not any(c.isdigit() for c in word):
        key = stem(normal) if normal else stem(word)
        pos = russian_pos(raw) or ("VERB" if is_kazakh_verb_form(raw) else "")
        if pos in POS_DROPPED:
            return None
        return Term(key, frozenset(), PLAIN_WEIGHT * POS_WEIGHT.get(pos, 1.0), pos in ("NOUN", "ADJF"))
    return None


def is_place(key: str) -> bool:
    """The term key (`Relevance.matched`) is a place concept (`lexicon.PLACES`): a region or city."""
    return not _PLACES.isdisjoint(key.split("|"))


def _prefixes(word: str) -> set[str]:
    """`word` and its prefixes at most `STEM_TAIL` letters shorter (none shorter than `MIN_SHARED`)."""
    low = max(min(len(word), MIN_SHARED), len(word) - STEM_TAIL)
    return {word[:k] for k in range(low, len(word) + 1)}


@dataclass(frozen=True)
class DocTerms:
    """What an article offers for matching: its concepts and the prefixes of its plain words' stems."""

    concepts: frozenset[str]
    prefixes: frozenset[str]


@lru_cache(maxsize=4096)
def doc_terms(text: str) -> DocTerms:
    """The terms of an article (title and text joined); cached, articles come back search after search."""
    concepts: set[str] = set()
    prefixes: set[str] = set()
    for t in terms(text):
        if t.names:
            concepts |= t.names
        else:
            prefixes |= _prefixes(t.key)
    return DocTerms(frozenset(concepts), frozenset(prefixes))


def learn(title: str, text: str) -> None:
    """An article's terms worked out ahead of its first search: cold, each of its words costs a pymorphy3 reading
    (about 10 ms an article, in the event loop) that a caller's first question would otherwise pay; the words'
    readings stay cached for every chunk of it."""
    doc_terms(f"{title}. {text}")


@dataclass(frozen=True)
class Relevance:
    """How much of a question an article covers: `score` in [0, 1] (what the gate compares), `title` the share
    of the question its title alone covers, and the terms found and missing."""

    score: float
    title: float = 0.0
    matched: tuple[str, ...] = ()
    missing: tuple[str, ...] = ()
    sentence: float = 0.0  # the share of the question that one sentence of the article covers (the best one)

    @property
    def rank(self) -> float:
        """Ordering key among hits: the score, near ties broken by the title and by the best single sentence."""
        return self.score + TITLE_BONUS * self.title + SENTENCE_BONUS * self.sentence


def _has(doc: DocTerms, term: Term) -> bool:
    if term.names:
        return not term.names.isdisjoint(doc.concepts)
    return not _prefixes(term.key).isdisjoint(doc.prefixes)


def relevance(question: str, title: str, text: str, unseen: frozenset[str] = frozenset()) -> Relevance:
    """The relevance of the article (`title`, `text`) to `question` (see the module docstring). `unseen`: the
    question's plain words that none of the search's candidate articles has (`unseen_words`); they weigh
    `UNSEEN_WEIGHT`: "брачный договор" is not the contract the knowledge base knows."""
    wanted = [Term(t.key, t.names, (UNSEEN_NOUN_WEIGHT if t.noun else UNSEEN_WEIGHT) * t.weight)
              if not t.names and t.key in unseen else t
              for t in terms(question)]
    total = sum(t.weight for t in wanted)
    if total <= 0:
        return Relevance(0.0)
    doc = doc_terms(f"{title}. {text}")
    matched = [t for t in wanted if _has(doc, t)]
    got = sum(t.weight for t in matched)
    score = got / total if got >= TOPIC_WEIGHT else TOPICLESS_FACTOR * got / total
    in_title = doc_terms(title)
    title_share = sum(t.weight for t in matched if _has(in_title, t)) / total
    sentence = max((s for s, _ in sentence_shares(matched, text, total)), default=0.0)
    return Relevance(round(score, 4), round(title_share, 4), tuple(t.key for t in matched),
                     tuple(t.key for t in wanted if t not in matched), round(sentence, 4))



_SENTENCE_END = re.compile(r"(?<=[.!?…])\s+")


def sentences(text: str) -> list[str]:
    """The sentences of an article (split after . ! ? …)."""
    return [s for s in _SENTENCE_END.split(" ".join((text or "").split())) if s]


def sentence_shares(wanted: list[Term], text: str, total: float) -> list[tuple[float, str]]:
    """Each sentence of `text` with the share of the question's weight (`total`) that its terms among `wanted`
    carry."""
    if total <= 0:
        return []
    return [(sum(t.weight for t in wanted if _has(doc_terms(s), t)) / total, s) for s in sentences(text)]


def answering_sentences(question: str, text: str) -> list[tuple[float, str]]:
    """Each sentence of the article `text` (in order) with how much of `question` it answers: the weight of the
    question's terms it has, each divided by the number of the article's sentences that have it, so the sentence
    with the fact asked about ("красный", "самый быстрый") stands out from those that only share the topic."""
    wanted = terms(question)
    parts = sentences(text)
    docs = [doc_terms(p) for p in parts]
    found = {t.key: sum(_has(d, t) for d in docs) for t in wanted}
    return [(sum(t.weight / found[t.key] for t in wanted if _has(d, t)), p) for d, p in zip(docs, parts, strict=True)]


def unseen_words(question: str, articles: Iterable[tuple[str, str]]) -> frozenset[str]:
    """The question's plain words (stems) that none of `articles` (title, text) has. The articles are the
    search's candidates, found *by* the question's words, so a word none of them has is one the knowledge
    base does not use."""
    plain = [t for t in terms(question) if not t.names]
    docs = [doc_terms(f"{title}. {text}") for title, text in articles]
    return frozenset(t.key for t in plain if not any(_has(d, t) for d in docs))


def synonym_stems(question: str) -> list[tuple[str, bool]]:
    """The lexicon stems (as written, unfolded; with whether each matches only a whole word) of the synonym sets
    the question names: the knowledge base adds them to its full-text query, so an article that says
    "перерасчёт" is found for "вернёте деньги", and a Russian one for a Kazakh question."""
    out: dict[str, bool] = {}
    for t in terms(question):
        for name in sorted(t.names):
            if _WEIGHTS[name] >= TOPIC_WEIGHT:
                out.update(list(_SURFACE.get(name, {}).items())[:SYNONYMS_PER_SET])
    return list(out.items())
