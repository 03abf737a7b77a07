"""The provider breaker from the outside: real adapters over real HTTP to the local OpenAI-compatible server,
which fails the way a real provider does (401, 429, 500, a hang, a dropped connection). Asserted: how many
requests reach the server (an open breaker sends none), the state and reason, the metrics, one log line per
state change, and what a voice falls back to."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
import structlog
from prometheus_client import CollectorRegistry

from ai_operator.config import load_settings
from ai_operator.providers import build_model, build_stt, build_tts
from ai_operator.providers.guarded import FallbackLineTTS
from ai_operator.providers.health import ProviderBoard, ProviderUnavailable, failure_class
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.speech.errors import SpeechError

TONE = (np.sin(np.arange(8000) / 3.0) * 8000).astype(np.int16)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def settings_for(tmp_path: Path, fake: FakeOpenAI, key: str | None = None, **extra: str):
    lines = {"OPENAI_API_KEY": key or fake.api_key, "OPENAI_BASE_URL": fake.base_url, "STT_PROVIDER": "openai",
             "TTS_PROVIDER": "openai", "LLM_PROVIDER": "openai", "STT_TIMEOUT_S": "0.5", "TTS_TIMEOUT_S": "0.5",
             "LLM_TIMEOUT_S": "0.5", "ROUTE_TEST_ENABLED": "true", "ROUTE_TEST_POLICY": "operator", **extra}
    path = tmp_path / "ai-operator.env"
    path.write_text("".join(f"{k}={v}\n" for k, v in lines.items()), encoding="utf-8")
    return load_settings(path, environ={})


def board_for(clock: Clock, failures: int = 3) -> tuple[ProviderBoard, CollectorRegistry]:
    registry = CollectorRegistry()
    return ProviderBoard(failures_to_open=failures, cooldown_s=30.0, check_timeout_s=0.5, metrics_registry=registry,
                         clock=clock), registry


def transcription_requests(fake: FakeOpenAI) -> int:
    return sum(1 for r in fake.requests if r["path"] == "/v1/audio/transcriptions")


@pytest.mark.parametrize(("mode", "reason_class"), [("429", "rate_limited"), ("500", "server_error"),
                                                    ("hang", "timeout"), ("drop", "connection")])
async def test_transient_failures_open_the_breaker_after_n_and_then_cost_no_request(
        tmp_path: Path, mode: str, reason_class: str) -> None:
    clock = Clock()
    async with FakeOpenAI() as fake:
        fake.transcripts = lambda _wav, _fields: "алло"
        board, registry = board_for(clock)
        stt = build_stt(settings_for(tmp_path, fake), None, board)
        assert stt is not None
        fake.faults.set(mode, "transcriptions")
        with structlog.testing.capture_logs() as logs:
            for _ in range(3):
                with pytest.raises(SpeechError) as failed:
                    await stt.transcribe(TONE, "ru")
                assert not isinstance(failed.value, ProviderUnavailable)
            sent = transcription_requests(fake)
            assert sent == 6  # each turn: the attempt and its one retry
            health = board.health("openai", "stt")
            assert health.state == "open" and failure_class(health.reason or "") == reason_class
            for _ in range(5):  # open: refused at once, nothing reaches the server
                with pytest.raises(ProviderUnavailable, match="breaker open"):
                    await stt.transcribe(TONE, "ru")
            assert transcription_requests(fake) == sent
            sample = registry.get_sample_value
            labels = {"provider": "openai", "kind": "stt"}
            assert sample("ai_operator_provider_requests_total", {**labels, "outcome": "skipped"}) == 5
            assert sample("ai_operator_provider_requests_total", {**labels, "outcome": "failed"}) == 3
            assert sample("ai_operator_provider_failures_total", {**labels, "reason": reason_class}) == 3
            assert sample("ai_operator_provider_state", {**labels, "state": "open"}) == 1
            assert sample("ai_operator_provider_breaker_opened_total", labels) == 1
            # cool-down over: one probe goes through; it works now, so the breaker closes
            fake.faults.clear()
            clock.now += 30.0
            assert await stt.transcribe(TONE, "ru") == "алло"
            assert health.state == "up" and transcription_requests(fake) == sent + 1
        changes = [(e["was"], e["state"]) for e in logs if e["event"] == "provider_state"]
        assert changes == [("unchecked", "failing"), ("failing", "open"), ("open", "half_open"), ("half_open", "up")]


async def test_a_revoked_key_opens_at_the_first_failure_and_a_failed_probe_reopens(tmp_path: Path) -> None:
    clock = Clock()
    async with FakeOpenAI() as fake:
        board, _ = board_for(clock)
        model = build_model(settings_for(tmp_path, fake), None, board)
        fake.faults.set("401", "chat")
        with pytest.raises(Exception, match="HTTP 401"):
            await model.complete("system", [{"role": "user", "content": "hi"}])
        health = board.health("openai", "llm")
        assert health.state == "open" and "Incorrect API key" in (health.reason or "")
        assert "sk-" not in (health.reason or "")  # key-shaped text never reaches a log or /healthz
        clock.now += 30.0
        with pytest.raises(Exception, match="HTTP 401"):  # the probe
            await model.complete("system", [{"role": "user", "content": "hi"}])
        assert health.state == "open"
        assert sum(1 for r in fake.requests if r["path"] == "/v1/chat/completions") == 2


async def test_the_start_check_names_a_wrong_key_and_is_bounded_on_a_hang(tmp_path: Path) -> None:
    async with FakeOpenAI() as fake:
        board, _ = board_for(Clock())
        await board.check(settings_for(tmp_path, fake, key="sk-wrong-key-000000"), {("openai", "stt"), ("openai", "llm")})
        assert {h["state"] for h in board.report().values()} == {"open"}
        assert all("HTTP 401" in r for r in board.degraded()) and len(board.degraded()) == 2
        assert sum(1 for r in fake.requests if r["path"] == "/v1/models") == 1  # one request per provider
        fake.faults.set("hang", "models")
        hung, _ = board_for(Clock())
        await hung.check(settings_for(tmp_path, fake), {("openai", "tts")})  # returns: bounded
        assert hung.health("openai", "tts").state == "failing"
        assert "timeout" in (hung.health("openai", "tts").reason or "")


@pytest.mark.parametrize("mode", ["401", "429", "500", "hang", "drop"])
async def test_a_failing_remote_voice_speaks_the_line_in_the_local_voice(tmp_path: Path, mode: str) -> None:
    from ai_operator.providers.health import CallNotes, watch_call

    async with FakeOpenAI() as fake:
        board, _ = board_for(Clock())
        tts = build_tts(settings_for(tmp_path, fake), None, tmp_path / "cache", board)
        fake.faults.set(mode, "speech")
        notes = CallNotes()
        watch_call(notes)
        parts = [c async for c in tts.stream("Извините, не расслышал.", "ru")]
        audio = np.concatenate(parts)
        assert audio.size > 8000 * 0.5 and np.abs(audio.astype(np.int32)).max() > 1000  # voiced, half a second+
        assert notes.summary()["provider_fallbacks"] == {"tts": "espeak"}
        assert "tts provider openai" in notes.summary()["provider_failures"]["tts"]
        assert board.health("openai", "tts").state in ("failing", "open")


async def test_a_cached_line_still_plays_from_the_remote_voice_while_it_is_down(tmp_path: Path) -> None:
    async with FakeOpenAI() as fake:
        fake.speech_audio = lambda _text: np.tile(TONE, 3)
        board, _ = board_for(Clock())
        tts = build_tts(settings_for(tmp_path, fake), None, tmp_path / "cache", board)
        assert await tts.prewarm([("Здравствуйте!", "ru")]) == 1
        fake.faults.set("500")
        before = len(fake.requests)
        audio = np.concatenate([c async for c in tts.stream("Здравствуйте!", "ru")])
        assert len(fake.requests) == before  # from the cache: the provider was not asked
        assert isinstance(tts, FallbackLineTTS)  # a remote voice, with the local one behind it
        assert tts.primary.hits == 1 and np.abs(audio.astype(np.int32)).max() > 1000
