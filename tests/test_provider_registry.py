"""The registry from the outside: a new STT provider is one module plus one registry line (the test-only
streaming provider in tests/providers/scribe.py), and the settings, the factory (behind the breaker, with its
language hook), the start check and doctor all take it from there; the two STT shapes; the env example names
every built-in provider's settings."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import numpy as np
import pytest
from prometheus_client import CollectorRegistry

from ai_operator.config import ConfigError, load_settings
from ai_operator.config.schema import by_key
from ai_operator.daemon.services import DaemonOverrides
from ai_operator.doctor.speech_checks import speech_checks
from ai_operator.providers import build_stt, registry, used_providers
from ai_operator.providers.health import ProviderBoard
from ai_operator.speech.streaming_stt import SegmentedOverStreaming, StreamingSpeechToText
from ai_operator.speech.stt import SpeechToText
from tests.providers import scribe

REPO = Path(__file__).resolve().parents[1]
UTTERANCE = (np.sin(np.arange(8000) / 5.0) * 6000).astype(np.int16)  # one second: 50 frames


@pytest.fixture
def scribe_registered() -> Iterator[None]:
    registry.register(scribe.PROVIDER)  # the one registry line
    try:
        yield
    finally:
        registry.unregister("scribe")


def settings_from(tmp_path: Path, text: str):
    path = tmp_path / "ai-operator.env"
    path.write_text(text, encoding="utf-8")
    return load_settings(path, environ={})


def test_an_unregistered_provider_is_refused_naming_the_key_and_what_is_allowed(tmp_path: Path) -> None:
    with pytest.raises(ConfigError, match="STT_PROVIDER='scribe': expected one of auto, openai, openai_realtime, none, got 'scribe'"):
        settings_from(tmp_path, "STT_PROVIDER=scribe\n")


async def test_a_new_stt_provider_is_one_module_plus_one_registry_line(tmp_path: Path, scribe_registered) -> None:
    s = settings_from(tmp_path, "ROUTE_MAIN_ENABLED=true\nROUTE_MAIN_POLICY=operator\nROUTE_MAIN_STT=scribe\n"
                                "ROUTE_FREIGHT_ENABLED=false\nSCRIBE_PARTIAL_EVERY=25\n")
    assert s.warnings == ()  # its own key is declared by its settings group
    assert registry.choices("stt") == ("auto", "openai", "openai_realtime", "scribe", "none")
    assert ("scribe", "stt") in used_providers(s)
    board = ProviderBoard(failures_to_open=2, cooldown_s=60, check_timeout_s=1, metrics_registry=CollectorRegistry())
    stt = build_stt(s, s.route("main"), board)
    assert stt is not None and stt.name == "scribe"
    double = scribe.INSTANCES[-1]
    double.script = "как оплатить интернет"
    assert await stt.transcribe(UTTERANCE, "kk") == "как оплатить интернет"
    stream = double.streams[-1]
    assert stream.language == "kk-KZ"  # the language hook: the policy's code -> the provider's
    assert stream.frames == 50 and stream.closed
    partials = [t.text for t in stream._results if not t.final]
    assert partials == ["как", "как оплатить"]  # the streaming shape: partials (every 25 frames), then the final
    double.fail = True
    for _ in range(2):
        with pytest.raises(Exception, match="scribe: down"):
            await stt.transcribe(UTTERANCE, "ru")
    assert board.health("scribe", "stt").state == "open"  # the same breaker wraps it: one wrapping point
    await board.check(s, used_providers(s))
    checks = await speech_checks(s)
    assert [(c.name, c.status) for c in checks if "scribe" in c.name] == [("provider scribe (stt)", "OK")]


def test_a_provider_declares_its_own_settings_checked_like_any_key(tmp_path: Path, scribe_registered) -> None:
    with pytest.raises(ConfigError) as refused:
        settings_from(tmp_path, "STT_PROVIDER=scribe\nSCRIBE_PARTIAL_EVERY=0\n")
    assert str(refused.value) == (f"{tmp_path / 'ai-operator.env'}:2: SCRIBE_PARTIAL_EVERY='0': "
                                  "'0' is out of range: allowed in 1..100")
    assert settings_from(tmp_path, "").group(scribe.ScribeSettings).partial_every == scribe.PARTIAL_EVERY
    registry.unregister("scribe")  # gone from the registry: its key is unknown again, like a typo
    s = settings_from(tmp_path, "SCRIBE_PARTIAL_EVERY=5\n")
    assert s.warnings == (f"{tmp_path / 'ai-operator.env'}:1: unknown key SCRIBE_PARTIAL_EVERY (typo?) - ignored",)


async def test_a_call_is_heard_through_the_registered_streaming_provider(daemon_base, scribe_registered) -> None:
    from ai_operator.sim.stage import simulated_stage
    from tests.support.daemon import FAST, Caller, bot_tts

    async with simulated_stage(daemon_base.settings, state_dir=daemon_base.state_dir, scripted_stt=False,
                               overrides=DaemonOverrides(tts=bot_tts(daemon_base.state_dir)), **FAST, STT_PROVIDER="scribe") as stage:
        stage.transcripts = scribe.HEARD
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        await caller.say("По-русски, пожалуйста.")
        await caller.quiet(min_turns=2)
        await caller.sim.hangup()
        record = await caller.record()
        health = stage.svc.providers.report() if stage.daemon.svc and stage.svc.providers else {}
    heard = [s for s in scribe.INSTANCES[-1].streams if s.frames]
    assert heard and all(s.closed for s in heard)  # the caller's real RTP audio, frame by frame, into the stream
    assert record["turns"][1]["caller_text"] == "По-русски, пожалуйста."
    assert record["turns"][1]["state"] == "REGION_SELECTION"
    assert health["scribe/stt"]["state"] == "up"  # checked at start and watched, like any provider


def test_the_two_stt_shapes_are_told_apart() -> None:
    double = scribe.ScribeSTT()
    assert isinstance(double, StreamingSpeechToText) and not isinstance(double, SpeechToText)
    bridged = SegmentedOverStreaming(double)
    assert isinstance(bridged, SpeechToText) and bridged.name == "scribe"


def test_every_provider_owns_declared_settings_that_the_env_example_documents() -> None:
    example = (REPO / "etc" / "ai-operator.env.example").read_text(encoding="utf-8")
    for spec in registry.providers():
        for key in spec.settings_keys:
            assert key in by_key(), f"{spec.name}: {key} is not a declared setting"
            assert f"\n{key}=" in example, f"{spec.name}: {key} is not in the env example"
        for kind in spec.kinds:
            assert spec.name in registry.choices(kind)
