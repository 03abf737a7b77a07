"""Lines synthesised ahead (issue 26 §2), from the caller's side: after the start-up prewarm, a call whose turns
are canned lines, composite fixed replies and a knowledge-base answer makes no TTS request at all; a cache bound
too small for every line is respected; a TTS that fails while prewarming does not stop the daemon; an
ingestion while the daemon runs is prewarmed too.

The daemon runs against the simulated PBX with the OpenAI TTS from the registry, pointed at the local
OpenAI-compatible server (its request log shows every synthesis), in a state dir of its own (a fresh TTS cache)
on the test session's database (with `etc/kb/sample.jsonl`).
"""

from __future__ import annotations

import asyncio
import io
import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

from ai_operator.daemon import prewarm
from ai_operator.kb.commands import kb_ingest
from ai_operator.sim.instant import tone
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.sim.stage import Stage, simulated_stage
from ai_operator.storage.embedded import EmbeddedServer
from policies.operator import POLICY
from tests.support.daemon import FAST, SAMPLE_KB, Caller, DaemonBase
from tests.support.ports import closed_tcp_port
from tests.support.wait import eventually
from tests.test_daemon_provider_failures import get_json

SPEECH_RATE = 24000  # what the OpenAI speech endpoint sends (pcm)
SECONDS_PER_CHAR = 0.02  # the fake voice: a tone this long per character (cheap to make, voiced)
HEARD_S = 0.3
VOICED_RMS = 300.0


def fake_voice(text: str) -> Any:
    return tone(len(text) * SECONDS_PER_CHAR, SPEECH_RATE)


@asynccontextmanager
async def remote_voice_stage(base: DaemonBase, state_dir: Path, fake: FakeOpenAI, **values: Any) -> AsyncIterator[Stage]:
    """The daemon with the OpenAI voice on `fake`, its own state dir (TTS cache), the session's database."""
    server = EmbeddedServer.in_state_dir(base.state_dir)
    dsn = await asyncio.to_thread(server.start)  # joins the session's server
    fake.speech_audio = fake_voice
    settings = {**FAST, "DATABASE_URL": dsn, "TTS_PROVIDER": "openai", "OPENAI_API_KEY": fake.api_key,
                "OPENAI_BASE_URL": fake.base_url, "LLM_PROVIDER": "none", "TTS_PREWARM": "all", **values}
    try:
        async with simulated_stage(base.settings, state_dir=state_dir, **settings) as stage:
            yield stage
    finally:
        server.release()


def speech_requests(fake: FakeOpenAI) -> list[str]:
    return [r["json"]["input"] for r in fake.requests if r["path"] == "/v1/audio/speech" and "json" in r]


def voiced_s(caller: Caller, start: float) -> float:
    from ai_operator.media.codecs import get_codec

    codec = get_codec(caller.sim.media_format or "ulaw")
    frames = 0
    for at, packet in caller.sim.received:
        if at >= start and codec.accepts(packet.payload_type):
            pcm = codec.decode(packet.payload).astype(float)
            frames += float((pcm * pcm).mean()) ** 0.5 > VOICED_RMS
    return frames * 0.020


async def prewarmed(stage: Stage, passes: int = 1) -> dict[str, int]:
    prewarmer = stage.daemon.prewarmer
    assert prewarmer is not None
    await eventually(lambda: prewarmer.passes >= passes, timeout=120, what="the prewarm pass")
    return prewarmer.last_counts


async def test_a_call_of_fixed_replies_and_a_kb_answer_makes_no_tts_request(daemon_base, tmp_path: Path) -> None:
    async with FakeOpenAI() as fake, remote_voice_stage(daemon_base, tmp_path, fake) as stage:
        counts = await prewarmed(stage)
        assert counts["made"] > 100 and counts["failed"] == 0 and counts["skipped"] == 0
        before = len(speech_requests(fake))
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        assert voiced_s(caller, 0.0) > HEARD_S  # the bilingual greeting
        heard = []
        for turn, text in enumerate(["По-русски пожалуйста", "я живу в караганде", "как оплатить интернет",
                                     "а какой самый быстрый тариф интернета", "спасибо до свидания"], start=2):
            said = await caller.say(text)
            await caller.quiet(min_turns=turn)
            heard.append(voiced_s(caller, said))
        record = await caller.record()
        during_call = speech_requests(fake)[before:]
    bot = [t["bot_text"] for t in record["turns"]]
    assert bot[1].startswith("Хорошо, продолжаем на русском. Назовите")  # composed of two catalog lines
    assert bot[2].startswith("Регион: Карагандинская область.")  # the region's line
    assert record["turns"][3]["fields"]["answer"] == "kb" and bot[3].startswith("По данным справки")
    # an answer read from the sentences the question asks about, not the entry's first ones: cached all the same
    assert record["turns"][4]["fields"]["answer"] == "kb" and "Самый быстрый тариф" in bot[4]
    assert all(s > HEARD_S for s in heard), heard
    assert during_call == []  # every line of the call came from the cache


async def test_healthz_says_the_prewarm_is_under_way_until_its_first_pass_is_over(daemon_base, tmp_path: Path) -> None:
    async with FakeOpenAI() as fake:
        fake.faults.set("hang", "speech")  # the first lines wait: the pass is under way
        async with remote_voice_stage(daemon_base, tmp_path, fake, TTS_PREWARM="canned",
                                      METRICS_PORT=closed_tcp_port()) as stage:
            await eventually(lambda: any(r["path"] == "/v1/audio/speech" for r in fake.requests),
                             what="a line asked for")
            status, health = await get_json(stage, "/healthz")
            assert status == 200 and health["prewarm"] == {"passes": 0, "running": True, "lines_done": 0}
            fake.faults.clear()
            await prewarmed(stage)
            status, health = await get_json(stage, "/healthz")
    assert status == 200 and health["prewarm"]["passes"] == 1 and health["prewarm"]["running"] is False
    assert health["prewarm"]["lines_done"] > 0


async def test_a_cache_bound_too_small_is_respected(daemon_base, tmp_path: Path) -> None:
    bound = 1024 * 1024  # TTS_CACHE_MAX_MB=1: room for a few dozen lines of the fake voice, not for all
    async with FakeOpenAI() as fake, remote_voice_stage(daemon_base, tmp_path, fake, TTS_CACHE_MAX_MB=1) as stage:
        counts = await prewarmed(stage)
        files = list((tmp_path / "tts-cache").glob("*.pcm"))
        assert counts["skipped"] > 0 and counts["made"] > 0
        assert sum(f.stat().st_size for f in files) <= bound * 0.8  # the pinned share of the bound
        assert len(speech_requests(fake)) == counts["made"]  # a skipped line was never asked for
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        assert voiced_s(caller, 0.0) > HEARD_S  # the greeting came first, so it was prewarmed
        said = await caller.say("По-русски пожалуйста")
        await caller.quiet(min_turns=2)
        assert voiced_s(caller, said) > HEARD_S  # a line past the budget: made on its first use
        await caller.sim.hangup()


async def test_a_tts_failing_while_prewarming_does_not_stop_the_daemon(daemon_base, tmp_path: Path) -> None:
    async with FakeOpenAI() as fake:
        fake.faults.set("500", "speech")
        async with remote_voice_stage(daemon_base, tmp_path, fake, TTS_PREWARM="canned") as stage:
            counts = await prewarmed(stage)
            assert counts["failed"] > 0  # every remote line failed; the local voice made them instead
            assert any(r["path"] == "/v1/audio/speech" for r in fake.requests)  # asked, and refused
            caller = await Caller.place(stage)
            await caller.quiet(min_turns=1)
            assert voiced_s(caller, 0.0) > HEARD_S  # the greeting, in the local voice
            fake.faults.clear()
            said = await caller.say("По-русски пожалуйста")
            await caller.quiet(min_turns=2)
            assert voiced_s(caller, said) > HEARD_S
            await caller.sim.hangup()


async def test_an_ingestion_while_running_is_prewarmed(daemon_base, tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(prewarm, "KB_POLL_S", 0.2)
    entries = [json.loads(line) for line in SAMPLE_KB.read_text(encoding="utf-8").splitlines() if line.strip()]
    changed = next(e for e in entries if e["id"] == "ru-payment-methods")
    changed["text"] = "Оплатить услуги теперь можно и через Kaspi. " + changed["text"]
    edited = tmp_path / "kb.jsonl"
    edited.write_text("".join(json.dumps(e, ensure_ascii=False) + "\n" for e in entries), encoding="utf-8")
    async with FakeOpenAI() as fake, remote_voice_stage(daemon_base, tmp_path / "state", fake,
                                                        TTS_PREWARM="all") as stage:
        await prewarmed(stage)
        try:
            assert await kb_ingest(stage.settings, edited, prune=False, reembed=False, out=io.StringIO()) == 0
            await prewarmed(stage, passes=2)
            hits = [h for h in await stage.daemon.svc.knowledge.entries() if h.entry_id == changed["id"]]
            replies = POLICY.knowledge_replies(hits[0])  # type: ignore[attr-defined]
            tts = stage.daemon.svc.tts_for(stage.settings.route("test"))
            segments = [seg for text, lang in replies for seg in POLICY.voice_segments(text, lang)]
            assert any("Kaspi" in text for text, _ in segments)
            inputs = set(speech_requests(fake))
            assert all(text in inputs for text, _ in segments if "Kaspi" in text)  # made after the ingestion
            assert all(tts.primary.is_cached(text, lang) for text, lang in segments)
        finally:
            out = io.StringIO()
            assert await kb_ingest(stage.settings, SAMPLE_KB, prune=False, reembed=False, out=out) == 0, out.getvalue()



async def test_every_routes_speech_clients_are_built_before_the_first_call(daemon_base, tmp_path: Path) -> None:
    """An HTTP client costs the event loop 100-350 ms to build: built at start, never in a caller's first turn."""
    async with FakeOpenAI() as fake, remote_voice_stage(daemon_base, tmp_path, fake, TTS_PREWARM="canned") as stage:
        svc = stage.svc
        built = dict(svc._adapters)  # before any call
        wanted = {"tts", "model"} | ({"stt"} if svc.stt_override is None else set())
        for route in (r for r in stage.settings.routes.values() if r.enabled):
            assert {key.split("|")[0] for key in built if key.split("|")[1] == route.name} == wanted, sorted(built)
            tts = next(v for k, v in built.items() if k.startswith(f"tts|{route.name}|"))
            assert svc.tts_for(route) is tts  # the call uses the one built at start
