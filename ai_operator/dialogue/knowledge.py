"""The knowledge-base part of the contract between the daemon and a dialogue policy. Pure types, no I/O.

A policy that answers from a knowledge base declares a `KnowledgeProfile` (languages, scope, relevance scorer),
asks for a `KnowledgeSearch` effect and gets `KnowledgeHit`s (or `KnowledgeUnavailable`) back; optionally it says
how it reads an entry out (`AnswersFromKnowledge`), so the runtime can synthesise those answers ahead. Policies
import these names from `ai_operator.dialogue`, which re-exports them; this module imports nothing of ours.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable


@dataclass(frozen=True)
class KnowledgeHit:
    """One knowledge-base result with its citation.

    `score` ranks hits within one search (rank fusion: it says which entry is nearest, not whether it answers).
    `relevance` is absolute: the share of the question this entry covers, in [0, 1], and `gate` the threshold
    below which the knowledge base does not know the answer (both set by the knowledge base; None from a source
    that does not score, whose hits are taken as they are)."""

    entry_id: str
    title: str
    source: str
    text: str
    score: float
    language: str
    fallback: bool = False  # found in another language than asked (kk -> ru)
    relevance: float | None = None
    gate: float | None = None

    @property
    def relevant(self) -> bool:
        """Above the gate (or not scored at all)."""
        return self.relevance is None or self.relevance >= (self.gate or 0.0)


@dataclass(frozen=True)
class KnowledgeSearch:
    """Effect: search the knowledge base. Result: `list[KnowledgeHit]` (empty: nothing found), `None` when no KB
    is configured (or the policy declares no `KnowledgeProfile`), or `KnowledgeUnavailable` when the search failed or did not answer within its budget.
    `fallback_languages` are searched too, after `language` (e.g. kk -> ru); their hits say `fallback`."""

    query: str
    language: str
    scope: Mapping[str, str] = field(default_factory=dict)  # the policy's `KnowledgeScope.key` -> value; {}: all
    limit: int = 3
    fallback_languages: tuple[str, ...] = ()


@dataclass(frozen=True)
class KnowledgeScope:
    """What a knowledge base's entries and searches are narrowed by (the operator's: a region). An entry lists the
    values it is for in its JSONL field `field` (or `everywhere` alone: for all); a search names at most one value
    under `key` and finds that value's entries plus those for all. A value other than `everywhere` must match
    `pattern` whole (a regular expression); `example` says what such a value looks like, for messages."""

    key: str
    field: str
    everywhere: str
    pattern: str
    example: str


@dataclass(frozen=True)
class KnowledgeProfile:
    """A policy's knowledge base as the runtime needs it (ingest, search, doctor, `kb` commands): the languages its
    entries may be in (the first is `kb search`'s default), its scope, and its relevance scorer, built by the
    policy from its own lexicon and word analysis (an `ai_operator.kb.relevance.Scorer`; the contract does not
    look inside it). The runtime knows no language, scope or word of its own. `asks`: how the policy turns a
    caller's question (question, language, scope value or "") into the search it sends, so that `kb calibrate` asks
    labelled questions the way a call does; None: the question as said, in its language alone. `classifier`: the
    policy's learned question classifier (an `ai_operator.kb.classifier.QuestionClassifier`), which decides
    relevance where it is sure; None: the scorer alone."""

    name: str
    languages: tuple[str, ...]
    scope: KnowledgeScope
    scorer: Any
    asks: Callable[[str, str, str], KnowledgeSearch] | None = None
    classifier: Any = None


@runtime_checkable
class HasKnowledgeBase(Protocol):
    """Optional part of a `PolicyDefinition`: its knowledge base (a policy without one asks for no search)."""

    knowledge: KnowledgeProfile


def knowledge_profile(policy: object) -> KnowledgeProfile | None:
    """The policy's `KnowledgeProfile`, or None when it declares none."""
    return policy.knowledge if isinstance(policy, HasKnowledgeBase) else None


@dataclass(frozen=True)
class KnowledgeUnavailable:
    """Result of a `KnowledgeSearch` that could not be answered now: `reason` is "timeout" (past the runtime's
    KB_SEARCH_TIMEOUT_S) or "error" (the database is down or refused). Not the same as no hits: the policy says
    it cannot look that up right now (and offers what it can instead), at once."""

    reason: str


def search_result_for_model(result: Sequence[KnowledgeHit] | KnowledgeUnavailable | None) -> str:
    """What a model is shown of a `KnowledgeSearch` result (a JSON string), the same whether the model searched
    through its tool or the policy searched before asking it: only the hits above the relevance gate ("[]" when
    none), or the error."""
    if result is None:
        return json.dumps({"error": "no knowledge base configured"})
    if isinstance(result, KnowledgeUnavailable):
        return json.dumps({"error": "knowledge base unavailable right now", "reason": result.reason})
    return json.dumps([{"id": h.entry_id, "title": h.title, "source": h.source, "text": h.text,
                        "language": h.language, "fallback": h.fallback, "relevance": h.relevance}
                       for h in result if h.relevant], ensure_ascii=False)


@runtime_checkable
class AnswersFromKnowledge(Protocol):
    """Optional part of a `PolicyDefinition`: how it reads out a knowledge-base entry, synthesised ahead."""

    def knowledge_replies(self, entry: KnowledgeHit) -> list[tuple[str, str]]:
        """The replies (text, language) the policy would say answering from `entry` (a stored entry as a hit, not
        scored), the likeliest first: at least the answer to a question that picks no sentence in particular, and,
        when its answers read the sentences a question picks, replies whose voiced segments hold every one a
        question may get (the runtime voices each with `voice_segments` and prewarms the segments)."""
        ...
