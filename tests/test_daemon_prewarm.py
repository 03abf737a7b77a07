"""Canned lines are synthesised into the TTS cache when the daemon starts, so a call's greeting plays from disk."""

from __future__ import annotations

from policies.operator import POLICY
from policies.operator.catalog import GREETING, say
from policies.operator.voicing import voice_segments
from tests.support.daemon import stage_for
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
