"""Synthesising ahead: every line a call may say without a model goes into the TTS cache before a call asks.

At start (in the background: readiness and calls never wait for it) each enabled route's policy lists its lines
(as far as TTS_PREWARM goes; `auto`: all of them for a remote voice, the canned ones for a voice on this host):
`canned_lines` (greeting, closing lines) first, then, when the policy offers them (`ListsFixedReplies`,
`AnswersFromKnowledge` in ai_operator/dialogue/), every fixed reply and the answer it would read from each
knowledge-base entry (every line it may read from it: the operator voices an answer a sentence at a time). Each
reply is voiced as a call voices it (`voice_segments`), so the cache keys (provider, voice, text) are the ones a
call looks up; the first segment of every reply goes before the later ones (`lines_ahead`). The lines go to the
route's TTS in batches of `BATCH_LINES` (the cache synthesises a few at once and keeps the pinned lines within its
budget, speech/cache.py); between batches the prewarm waits while the daemon is behind (LoadState), so live calls
keep the loop and the provider. One `tts_prewarmed` line says what was made, found cached, failed and skipped,
and how long it took; until then `/healthz` says the pass is running (`report`: a line not cached yet is
synthesised when a call asks for it, so replies are slower until the first pass is done; the cache is on disk,
so a restarted daemon finds its lines there and its pass is short).

After that the knowledge base is watched (`KB_POLL_S`: one count/max query): when an ingestion changed it (or the
database came up late), the knowledge-base answers are prewarmed again; the lines cached already cost a lookup.
Each pass first reads the knowledge base's articles (and their example questions) for relevance (each policy's
scorer's `learn`, one article or example per loop turn), so a caller's first question does not pay pymorphy3's
cold readings (~10 ms an article, measured 240 ms on a first search; ~20 ms more for fifty example questions). This module knows no policy: it only asks the contract.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable, Sequence
from typing import Any

from ai_operator.config import Settings
from ai_operator.dialogue import (
    AnswersFromKnowledge,
    KnowledgeHit,
    ListsFixedReplies,
    PolicyDefinition,
    RouteView,
    knowledge_profile,
)
from ai_operator.logs import get_logger
from ai_operator.route_binding import route_view

log = get_logger("daemon")

BATCH_LINES = 16  # lines handed to the TTS cache at a time; the load is checked between batches
KB_POLL_S = 30.0  # how often the knowledge base is asked whether an ingestion changed it
BEHIND_WAIT_S = 1.0  # while the daemon is behind, the prewarm looks again this often
OUTCOMES = ("made", "cached", "failed", "skipped")


def lines_ahead(policy: PolicyDefinition, route: RouteView, entries: Sequence[KnowledgeHit] = (), *,
                scope: str = "all") -> list[tuple[str, str]]:
    """The (text, voice) segments to synthesise ahead for `route`, most urgent first, each once, as far as `scope`
    (TTS_PREWARM) goes: the canned lines, the fixed replies, the answers from `entries` ("kb": those only). After
    the canned lines, the first segment of every reply comes before the others: a call waits for a reply's first
    segment, while a later one is synthesised as the segments before it play (the speaker asks for it then)."""
    canned: list[tuple[str, str]] = []
    replies: list[tuple[str, str]] = []
    if scope in ("all", "fixed", "canned"):
        canned += policy.canned_lines(route)
    if scope in ("all", "fixed") and isinstance(policy, ListsFixedReplies):
        replies += policy.fixed_replies(route)
    if scope in ("all", "kb") and isinstance(policy, AnswersFromKnowledge):
        for entry in entries:
            replies += policy.knowledge_replies(entry)
    voiced = [policy.voice_segments(text, lang) for text, lang in replies]
    firsts = [segments[0] for segments in voiced if segments]
    later = [segment for segments in voiced for segment in segments[1:]]
    return list(dict.fromkeys([*(seg for text, lang in canned for seg in policy.voice_segments(text, lang)),
                               *firsts, *later]))


class Prewarmer:
    """The daemon's prewarming: `run()` at start, then watching the knowledge base until cancelled."""

    def __init__(self, settings: Callable[[], Settings], svc: Any, *, poll_s: float | None = None) -> None:
        self._settings = settings  # the daemon's current settings (a reload changes routes and voices)
        self.svc = svc
        self.poll_s = poll_s
        self._kb_version: Any = None
        self._one_at_a_time = asyncio.Lock()  # a pass asked for meanwhile finds the lines cached
        self.passes = 0  # finished prewarm passes (start-up, then one per knowledge-base change)
        self.last_counts: dict[str, int] = dict.fromkeys(OUTCOMES, 0)  # the outcomes of the last pass
        self.running = False  # a pass is under way
        self.lines_done = 0  # the lines the pass under way (else the last one) has been through

    def report(self) -> dict[str, Any]:
        """For /healthz: the passes finished, whether one is under way and how far it got."""
        return {"passes": self.passes, "running": self.running, "lines_done": self.lines_done}

    async def run(self) -> None:
        await self.prewarm()
        while True:
            await asyncio.sleep(self.poll_s if self.poll_s is not None else KB_POLL_S)
            version = await self._version()
            if version is not None and version != self._kb_version:
                await self.prewarm(kb_only=True)

    def _scope(self, route: Any) -> str:
        """TTS_PREWARM for `route`; `auto`: everything for a remote voice, the canned lines for one on this host
        (it makes a line in tens of milliseconds: hundreds of lines ahead would only cost CPU)."""
        from ai_operator.providers import registry, tts_provider

        settings = self._settings()
        scope = settings.storage.tts_prewarm
        if scope != "auto":
            return scope
        try:
            return "canned" if registry.get(tts_provider(settings, route)).local else "all"
        except Exception as exc:  # a voice that cannot be built: the pass says so for that route
            log.warning("tts_prewarm_failed", route=route.name, error=str(exc) or type(exc).__name__)
            return "off"

    async def prewarm(self, *, kb_only: bool = False) -> int:
        """One pass over every enabled route (`kb_only`: the knowledge-base answers); returns how many lines were
        synthesised now."""
        async with self._one_at_a_time:
            self.running, self.lines_done = True, 0
            try:
                return await self._pass(kb_only)
            finally:
                self.running = False

    async def _pass(self, kb_only: bool) -> int:
        from policies import load_policy

        started = time.monotonic()
        self._kb_version = await self._version()
        routes = [r for r in self._settings().routes.values() if r.enabled]
        scopes = {r.name: self._scope(r) for r in routes}
        entries = await self._entries() if "all" in scopes.values() else []
        await self._learn(routes, entries or await self._entries())
        totals = dict.fromkeys(OUTCOMES, 0)
        lines_total = 0
        for route in routes:
            scope = scopes[route.name]
            if kb_only and scope != "all":
                continue
            try:
                lines = lines_ahead(load_policy(route.policy), route_view(self._settings(), route), entries, scope="kb" if kb_only else scope)
                lines_total += len(lines)
                await self._synthesise(self.svc.tts_for(route), lines, totals)
            except Exception as exc:  # a broken route or voice must not stop the daemon
                log.warning("tts_prewarm_failed", route=route.name, error=str(exc) or type(exc).__name__)
        self.last_counts = totals
        self.passes += 1
        log.info("tts_prewarmed", scopes=scopes, kb_only=kb_only, lines=lines_total,
                 kb_entries=len(entries), seconds=round(time.monotonic() - started, 2), **totals)
        return totals["made"]

    async def _learn(self, routes: list[Any], entries: list[KnowledgeHit]) -> None:
        """The knowledge base's articles read ahead by the relevance scorer of each route's policy (`Scorer.learn`),
        one at a time so live calls' ticks go between them: a caller's first questions after a start (or an
        ingestion) do not pay it."""
        from policies import load_policy

        scorers: dict[int, tuple[Any, frozenset[str]]] = {}
        for route in routes:
            try:
                profile = knowledge_profile(load_policy(route.policy))
            except Exception:  # a broken route is reported where its lines are prewarmed
                continue
            if profile is not None:
                scorers[id(profile.scorer)] = (profile.scorer, frozenset(profile.languages))
        questions = await self._questions() if scorers else {}
        for scorer, languages in scorers.values():
            for entry in entries:
                if entry.language in languages:
                    scorer.learn(entry.title, entry.text)
                    await asyncio.sleep(0)
                    examples = questions.get(entry.entry_id, ())
                    for example in examples:  # an example at a time (its words' readings), then the article's set
                        scorer.read_terms(example)
                        await asyncio.sleep(0)
                    scorer.learn(entry.title, entry.text, examples)

    async def _synthesise(self, tts: Any, lines: list[tuple[str, str]], totals: dict[str, int]) -> None:
        for start in range(0, len(lines), BATCH_LINES):
            while self.svc.load is not None and self.svc.load.behind(time.monotonic()):
                await asyncio.sleep(BEHIND_WAIT_S)  # live calls first
            batch = lines[start : start + BATCH_LINES]
            made = await tts.prewarm(batch)
            counts = getattr(tts, "prewarm_counts", None)
            if counts is None:  # a TTS that keeps no cache: nothing to count but what it made
                counts = {"made": made}
            for outcome in OUTCOMES:
                totals[outcome] += counts.get(outcome, 0)
            self.lines_done += len(batch)

    async def _version(self) -> Any:
        knowledge = self.svc.knowledge
        if knowledge is None or not hasattr(knowledge, "version"):
            return None
        try:
            return await knowledge.version()
        except Exception as exc:  # the database is down: look again next time
            log.debug("kb_version_unavailable", error=str(exc) or type(exc).__name__)
            return None

    async def _questions(self) -> dict[str, tuple[str, ...]]:
        """Each entry's example questions (the scorer reads them with the article; never read aloud)."""
        knowledge = self.svc.knowledge
        if knowledge is None or not hasattr(knowledge, "questions"):
            return {}
        try:
            return dict(await knowledge.questions())
        except Exception as exc:
            log.warning("kb_questions_unavailable", error=str(exc) or type(exc).__name__)
            return {}

    async def _entries(self) -> list[KnowledgeHit]:
        knowledge = self.svc.knowledge
        if knowledge is None or not hasattr(knowledge, "entries"):
            return []
        try:
            return list(await knowledge.entries())
        except Exception as exc:
            log.warning("kb_entries_unavailable", error=str(exc) or type(exc).__name__)
            return []
