"""Canned lines are synthesised into the TTS cache when the daemon starts, so a call's greeting plays from disk."""

from __future__ import annotations

import asyncio
import time

from ai_operator.daemon.call import SHUTDOWN_LINES
from ai_operator.daemon.speaker import voice_segments
from policies.operator.catalog import GREETING
from tests.support.daemon import stage_for


async def test_greetings_and_shutdown_lines_are_cached_at_start(daemon_base) -> None:
    async with stage_for(daemon_base) as stage:
        tts = stage.daemon.svc.tts_for(stage.settings.route("test"))
        parts = voice_segments(GREETING, "ru")
        assert [lang for _, lang in parts] == ["ru", "kk"]  # the bilingual greeting, one voice per line
        expected = [*parts, (SHUTDOWN_LINES["ru"], "ru"), (SHUTDOWN_LINES["kk"], "kk")]
        deadline = time.monotonic() + 30
        while not all(tts.is_cached(text, lang) for text, lang in expected) and time.monotonic() < deadline:
            await asyncio.sleep(0.1)
        assert all(tts.is_cached(text, lang) for text, lang in expected)
        assert await stage.daemon.prewarm() == 0  # nothing left to synthesise
