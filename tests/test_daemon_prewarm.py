"""Canned lines are synthesised into the TTS cache when the daemon starts, so a call's greeting plays from disk."""

from __future__ import annotations

from ai_operator.daemon.prewarm import lines_ahead
from policies.operator import POLICY
from policies.operator.catalog import GREETING, say
from policies.operator.voicing import voice_segments
from tests.policies.operator.test_operator_fixed_replies import entries
from tests.support.daemon import stage_for
from tests.support.policies import operator_route, view
from tests.support.wait import eventually


async def test_greetings_and_shutdown_lines_are_cached_at_start(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        tts = stage.daemon.svc.tts_for(stage.settings.route("test"))
        parts = voice_segments(GREETING, "ru")
        assert [lang for _, lang in parts] == ["ru", "kk"]  # the bilingual greeting, one voice per line
        expected = POLICY.canned_lines(stage.settings.route("test"))
        assert {*parts, (say("shutdown", "ru"), "ru"), (say("shutdown", "kk"), "kk")} <= set(expected)
        await eventually(lambda: all(tts.is_cached(text, lang) for text, lang in expected), what="canned lines cached")
        assert await stage.daemon.prewarm() == 0  # nothing left to synthesise


async def test_the_knowledge_bases_articles_are_read_for_relevance_at_start(daemon_base) -> None:
    """A caller's first question does not pay for reading the articles (pymorphy3, ~10 ms an article cold)."""
    from policies.operator.knowledge import SCORER

    doc_terms = SCORER.doc_terms
    async with stage_for(daemon_base) as stage:
        prewarmer = stage.daemon.prewarmer
        assert prewarmer is not None
        await eventually(lambda: prewarmer.passes >= 1, timeout=120, what="the start-up pass")
        entries = await stage.svc.knowledge.entries()
        assert entries
        before = doc_terms.cache_info()  # type: ignore[attr-defined]
        for entry in entries:
            doc_terms(f"{entry.title}. {entry.text}")
        after = doc_terms.cache_info()  # type: ignore[attr-defined]
        assert after.misses == before.misses and after.hits == before.hits + len(entries)


def test_after_the_canned_lines_the_first_segment_of_every_reply_comes_before_the_later_ones() -> None:
    """A call waits for a reply's first segment; the later ones (a knowledge-base answer's sentences) are
    synthesised while the first plays: they are prewarmed last."""
    route = view(operator_route())
    lines = lines_ahead(POLICY, route, entries())
    canned = list(dict.fromkeys(seg for t, lang in POLICY.canned_lines(route) for seg in voice_segments(t, lang)))
    replies = [*POLICY.fixed_replies(route), *(r for e in entries() for r in POLICY.knowledge_replies(e))]
    voiced = [voice_segments(t, lang) for t, lang in replies]
    firsts = {segments[0] for segments in voiced} - set(canned)
    later = {seg for segments in voiced for seg in segments[1:]} - firsts - set(canned)
    assert lines[: len(canned)] == canned
    assert len(later) > 100  # the knowledge base's sentences
    assert max(lines.index(s) for s in firsts) < min(lines.index(s) for s in later)
    assert len(lines) == len(set(lines)) == len(canned) + len(firsts) + len(later)  # each segment once
