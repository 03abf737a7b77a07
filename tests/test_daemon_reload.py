"""Reload (SIGHUP) through the real daemon and the simulated PBX, with the env file as the daemon reads it:
a rotated OPENAI_API_KEY is what the next call authenticates with while a call in progress keeps the key it
started with; restart-only keys are named in one `reload_needs_restart` line and not applied while the
reloadable ones beside them are; a reload with a provider that cannot be built changes nothing at all."""

from __future__ import annotations

import asyncio
import secrets
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from structlog.testing import capture_logs

from ai_operator.config import load_settings
from ai_operator.config.schema import by_key
from ai_operator.daemon.app import Daemon
from ai_operator.daemon.services import DaemonOverrides
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.sim.pbx import SimulatedPbx
from ai_operator.sim.stage import ScriptedTranscripts, Stage
from tests.support.daemon import FAST, Caller, DaemonBase, bot_tts
from tests.support.wait import eventually

pytestmark = pytest.mark.slow
OLD_KEY = "sk-old-rotated-key-A1A1"
NEW_KEY = "sk-new-rotated-key-B2B2"
TRANSCRIPTIONS = "/v1/audio/transcriptions"


class ReloadStage(Stage):
    env: Path
    values: dict[str, Any]

    def rewrite(self, **changes: Any) -> None:
        """Edit the env file the daemon was started from (as an operator would before `systemctl reload`)."""
        self.values.update(changes)
        self.env.write_text("".join(f"{k}={v}\n" for k, v in self.values.items()))


@asynccontextmanager
async def reloadable_stage(base: DaemonBase, tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                           **values: Any) -> AsyncIterator[ReloadStage]:
    """The daemon started from an env file (so SIGHUP re-reads it) against the simulated PBX and the local
    OpenAI-compatible server, which transcribes what the caller is saying for OLD_KEY."""
    for key in by_key():  # the file alone decides (a test runner's environment must not override it)
        monkeypatch.delenv(key, raising=False)
    password = secrets.token_hex(8)
    pbx = SimulatedPbx(user="ai-operator", password=password)
    fake = FakeOpenAI(api_key=OLD_KEY)
    fake.transcripts = transcripts = ScriptedTranscripts()
    try:
        ari_url, openai_url = await pbx.start(), await fake.start()
        env = tmp_path / "ai-operator.env"
        file_values: dict[str, Any] = {
            "ARI_URL": ari_url, "ARI_USER": "ai-operator", "ARI_PASSWORD": password, "ARI_APP": "ai-operator",
            "STATE_DIR": base.state_dir, "METRICS_PORT": 0, "OPENAI_API_KEY": OLD_KEY, "OPENAI_BASE_URL": openai_url,
            "STT_PROVIDER": "openai", "TTS_PROVIDER": "espeak", "LLM_PROVIDER": "none",
            "ROUTE_TEST_ENABLED": "true", "ROUTE_TEST_POLICY": "operator", **FAST, **values,
        }
        env.write_text("".join(f"{k}={v}\n" for k, v in file_values.items()))
        settings = load_settings(env)
        daemon = Daemon(settings, env_path=str(env), overrides=DaemonOverrides(tts=bot_tts(base.state_dir)))
        task = asyncio.create_task(daemon.serve())
        await eventually(lambda: daemon.ready.is_set() or task.done(), timeout=30, what="daemon ready")
        assert daemon.ready.is_set(), f"daemon stopped before it was ready (exit {task.result()})"
        stage = ReloadStage(pbx, daemon, settings, fake, transcripts)
        stage.env, stage.values = env, file_values
        try:
            yield stage
        finally:
            daemon.request_stop()
            await asyncio.wait_for(task, timeout=60)
    finally:
        await fake.stop()
        await pbx.stop()


def key_tails(fake: FakeOpenAI) -> list[str]:
    return [r["key_tail"] for r in fake.requests if r["path"] == TRANSCRIPTIONS]


async def caller_texts(caller: Caller) -> list[str]:
    await caller.sim.hangup()
    record = await caller.record()
    return [t["caller_text"] for t in record["turns"]]


async def test_a_rotated_key_is_what_the_next_call_authenticates_with(daemon_base, tmp_path, monkeypatch) -> None:
    async with reloadable_stage(daemon_base, tmp_path, monkeypatch) as stage:
        in_progress = await Caller.place(stage)
        await in_progress.quiet(min_turns=1)

        # The key is rotated at the provider (both valid for a while) and in the env file, then reloaded.
        stage.fake_openai.api_key, stage.fake_openai.also_accepted = NEW_KEY, {OLD_KEY}
        stage.rewrite(OPENAI_API_KEY=NEW_KEY)
        with capture_logs() as logs:
            assert stage.daemon.reload()
        reloaded = [e for e in logs if e["event"] == "reloaded"]
        assert reloaded and reloaded[0]["changed"] == ["OPENAI_API_KEY"]
        assert not [e for e in logs if e["event"] == "reload_needs_restart"]

        new_call = await Caller.place(stage)
        await new_call.quiet(min_turns=1)
        await new_call.say("русский")
        await new_call.quiet(min_turns=2)
        assert key_tails(stage.fake_openai) == [NEW_KEY[-4:]]

        await in_progress.say("русский")  # started before the reload: keeps the key it started with
        await in_progress.quiet(min_turns=2)
        assert key_tails(stage.fake_openai) == [NEW_KEY[-4:], OLD_KEY[-4:]]

        # The old key is revoked: a call made now is still understood.
        stage.fake_openai.also_accepted = set()
        after_revoke = await Caller.place(stage)
        await after_revoke.quiet(min_turns=1)
        await after_revoke.say("русский")
        await after_revoke.quiet(min_turns=2)
        assert key_tails(stage.fake_openai)[-1] == NEW_KEY[-4:]
        for caller in (new_call, in_progress, after_revoke):
            assert "русский" in await caller_texts(caller)


async def test_restart_only_keys_are_named_and_kept_while_the_rest_applies(daemon_base, tmp_path, monkeypatch) -> None:
    elsewhere = tmp_path / "other-state"
    async with reloadable_stage(daemon_base, tmp_path, monkeypatch) as stage:
        running = stage.daemon.settings
        stage.rewrite(ARI_APP="another-app", RTP_PORT_MIN=running.rtp.port_min + 1, STATE_DIR=elsewhere, MAX_CALLS=1)
        with capture_logs() as logs:
            assert stage.daemon.reload()
        needs_restart = [e for e in logs if e["event"] == "reload_needs_restart"]
        assert len(needs_restart) == 1
        assert needs_restart[0]["keys"] == ["ARI_APP", "RTP_PORT_MIN", "STATE_DIR"]
        assert [e["changed"] for e in logs if e["event"] == "reloaded"] == [["MAX_CALLS"]]

        # From the caller's side: the call still comes up on the running ARI app and RTP range ...
        first = await Caller.place(stage)
        await first.quiet(min_turns=1)
        assert first.sim.state == "up" and first.sim.apps == ["ai-operator"]
        # ... and MAX_CALLS=1 applies: a second call goes back to the dialplan.
        second = await stage.pbx.place_call("test")
        await eventually(lambda: second.state == "dialplan", timeout=10, what="second call continued")
        settings = stage.daemon.settings
        assert (settings.ari.app, settings.rtp.port_min, settings.storage.state_dir) == (
            running.ari.app, running.rtp.port_min, running.storage.state_dir)
        await first.sim.hangup()
        await first.record()
    assert not elsewhere.exists()  # nothing of the new STATE_DIR was used


async def test_a_reload_that_cannot_be_built_changes_nothing(daemon_base, tmp_path, monkeypatch) -> None:
    async with reloadable_stage(daemon_base, tmp_path, monkeypatch) as stage:
        # MAX_CALLS is fine on its own; STT_PROVIDER=openai without a key cannot be built: nothing applies.
        stage.rewrite(MAX_CALLS=1, OPENAI_API_KEY="")
        with capture_logs() as logs:
            assert not stage.daemon.reload()
        rejected = [e for e in logs if e["event"] == "reload_rejected"]
        assert rejected and "OPENAI_API_KEY" in rejected[0]["reason"]
        callers = [await Caller.place(stage), await Caller.place(stage)]  # both taken: MAX_CALLS did not change
        for caller in callers:
            await caller.quiet(min_turns=1)
            await caller.say("русский")
            await caller.quiet(min_turns=2)
        assert key_tails(stage.fake_openai) == [OLD_KEY[-4:]] * 2  # the running key still in use
        for caller in callers:
            assert "русский" in await caller_texts(caller)


async def test_a_reload_naming_a_missing_policy_changes_nothing(daemon_base, tmp_path, monkeypatch) -> None:
    """A route's policy is checked where the daemon assembles its runtime (route_binding.py), on reload too."""
    async with reloadable_stage(daemon_base, tmp_path, monkeypatch) as stage:
        stage.rewrite(MAX_CALLS=1, ROUTE_TEST_POLICY="nosuch")
        with capture_logs() as logs:
            assert not stage.daemon.reload()
        rejected = [e for e in logs if e["event"] == "reload_rejected"]
        assert rejected and rejected[0]["reason"].startswith(str(stage.env))
        assert rejected[0]["reason"].endswith("ROUTE_TEST_POLICY: route test is enabled with policy 'nosuch', "
                                              "which does not exist")
        running = stage.daemon.settings.route("test")
        assert running is not None and running.policy == "operator"
        callers = [await Caller.place(stage), await Caller.place(stage)]
        for caller in callers:  # both answered: MAX_CALLS=1 did not apply either
            await caller.quiet(min_turns=1)
            await caller.sim.hangup()
            assert (await caller.record())["route"] == "test"


@pytest.mark.parametrize("key", sorted(k for k, d in by_key().items() if d.spec.restart))
def test_the_plan_keeps_each_restart_only_key_and_applies_the_rest(key: str, tmp_path) -> None:
    from ai_operator.daemon.reload import plan_reload
    from tests.support.daemon import ENV_EXAMPLE

    running = load_settings(ENV_EXAMPLE, environ={})
    d = by_key()[key]
    changed = {"ARI_URL": "http://10.0.0.9:8088/ari", "ARI_USER": "other", "ARI_PASSWORD": "other-pw",
               "ARI_APP": "other-app", "RTP_HOST": "10.0.0.9", "RTP_PORT_MIN": 20001, "RTP_PORT_MAX": 20998,
               "RTP_CODEC": "alaw", "STATE_DIR": tmp_path, "DATABASE_URL": "postgresql://u:p@db/x",
               "KB_DATABASE_URL": "postgresql://u:p@replica/x",
               "METRICS_HOST": "0.0.0.0", "METRICS_PORT": 9999, "LOG_FORMAT": "console"}[key]
    plan = plan_reload(running, running.with_values(**{key: changed}, LOG_LEVEL="debug", MAX_CALLS=7))
    assert plan.needs_restart == (key,)
    assert sorted(plan.applied) == ["LOG_LEVEL", "MAX_CALLS"]
    assert getattr(getattr(plan.settings, d.group), d.attr) == getattr(getattr(running, d.group), d.attr)
    assert plan.settings.raw.get(key) == running.raw.get(key)
    assert (plan.settings.ops.log_level, plan.settings.call.max_calls) == ("debug", 7)
