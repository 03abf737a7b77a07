"""What a question about where something is asks of an article (pure, no I/O), for `relevance.Scorer`.

A question that names a concept of `lexicon.LOCATED` (an office, a service centre) asks where it is: the place it
names weighs `LOCATED_PLACE_WEIGHT` ("офис в Таразе" is not answered by the Astana centre). An article covers
nothing of a question when all it shares is the place asked about ("офис в Караганде" of the Karaganda outage), or
when the question asks only where such a place is, by its address (`lexicon.ADDRESS`: "адрес сервисного центра",
"где находится ваш офис"), and the article gives no address of one (it names the centre in passing: "вернуть в
сервисный центр").
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from ai_operator.kb.clauses import TOPIC_WEIGHT

if TYPE_CHECKING:
    from ai_operator.kb.relevance import DocTerms, Term
    from ai_operator.kb.vocabulary import Vocabulary

LOCATED_PLACE_WEIGHT = 3.0  # a place named in a question about where something is (an office): it must match


def is_place(vocabulary: Vocabulary, key: str) -> bool:
    """The term key (`Relevance.matched`) is a place concept (`lexicon.PLACES`): a region or city."""
    return not vocabulary.places.isdisjoint(key.split("|"))


def asks_only_where(vocabulary: Vocabulary, wanted: Sequence[Term]) -> bool:
    """The question asks only where a place of `lexicon.LOCATED` is, by its address: no other topic of ours ("адрес
    сервисного центра"; not "где в офисе расторгнуть договор")."""
    v = vocabulary
    named = [t.names for t in wanted if t.names]
    return (any(n & v.located for n in named) and any(n & v.address for n in named)
            and all(n & (v.located | v.address) or n <= v.places or max(v.weights[x] for x in n) < TOPIC_WEIGHT
                    for n in named))


def covers_nothing(vocabulary: Vocabulary, wanted: Sequence[Term], matched: Sequence[Term], doc: DocTerms) -> bool:
    """The article (`doc`) answers nothing of the question (`wanted`, of which it has `matched`): it shares only
    the place asked about, or gives no address to a question asking only where a centre is."""
    if all(is_place(vocabulary, t.key) for t in matched) and not all(is_place(vocabulary, t.key) for t in wanted):
        return True
    return asks_only_where(vocabulary, wanted) and (doc.concepts.isdisjoint(vocabulary.address)
                                                    or doc.concepts.isdisjoint(vocabulary.located))
