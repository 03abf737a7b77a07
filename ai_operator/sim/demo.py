"""`ai-operator demo`: the newcomer's first command. The real daemon serves one call from the simulated PBX.

No Asterisk is needed: the simulated PBX (an Asterisk 22 ARI double, clearly named as such) runs in this
process. The caller speaks with espeak-ng over real RTP; the bot hears through the real VAD, decides with the
route's policy, answers from the knowledge base (embedded PostgreSQL) and speaks with espeak-ng. With no speech
recognizer configured, the transcript of each caller line comes from its script through a local
OpenAI-compatible test server. It prints the conversation as it happens, then where the call record and the
recorded bot audio (a WAV) are.
"""

from __future__ import annotations

import asyncio
import json
import os
import wave
from collections.abc import Mapping
from importlib import resources
from pathlib import Path
from typing import Any, TextIO

import numpy as np

from ai_operator.config import ConfigError, Settings
from ai_operator.providers.openai import OpenAISettings
from ai_operator.turn_driver import Turn
from policies import load_policy

# package data (in a checkout a link to etc/kb/sample.jsonl), so an installed wheel has it too
SAMPLE_KB = Path(str(resources.files("ai_operator.sim").joinpath("sample_kb.jsonl")))
DEMO_STATE_SUBDIR = Path("ai-operator-demo")
RECORD_READ_TIMEOUT_S = 5.0

# (language of the caller's voice, the line) for each route's demo call.
def write_wav(path: Path, pcm: np.ndarray, rate: int = 8000) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(rate)
        w.writeframes(pcm.astype("<i2").tobytes())


def demo_state_dir(given: str | None, environ: Mapping[str, str] | None = None) -> Path:
    """Where the demo keeps its database, records and WAVs, as an absolute path: `--state-dir` (relative: to the
    current directory), else the per-user cache `$XDG_CACHE_HOME/ai-operator/demo` (`~/.cache/ai-operator/demo`):
    outside any work tree, the same folder whichever directory the demo is started from."""
    if given:
        return Path(given).expanduser().absolute()
    env = os.environ if environ is None else environ
    cache = env.get("XDG_CACHE_HOME", "").strip()
    base = Path(cache) if cache and Path(cache).is_absolute() else Path.home() / ".cache"
    return (base / DEMO_STATE_SUBDIR).absolute()


async def _ingest_sample(settings: Settings, out: TextIO) -> None:
    import io

    from ai_operator.kb.commands import kb_ingest

    if not SAMPLE_KB.exists():
        out.write(f"  knowledge base: {SAMPLE_KB} not found; answers will say so\n")
        return
    buf = io.StringIO()
    try:
        await kb_ingest(settings, str(SAMPLE_KB), prune=False, reembed=False, out=buf)
    except Exception as exc:  # no database now: the call still runs, its answers say the KB is unavailable
        out.write(f"  knowledge base: not ingested ({exc or type(exc).__name__}); answers will say so\n")
        return
    summary = buf.getvalue().strip().splitlines()
    out.write(f"  knowledge base: the shipped sample -> {summary[-1] if summary else 'ingested'}\n")


async def run_demo(settings: Settings, *, route_name: str, state_dir: str | None, out: TextIO) -> int:
    from ai_operator.daemon.services import DaemonOverrides
    from ai_operator.sim.stage import simulated_stage
    from ai_operator.storage.state_lock import ensure_free

    route = settings.route(route_name)
    if route is None or not route.enabled:
        raise ConfigError(f"ROUTE_{route_name.upper()}_ENABLED: the demo needs route {route_name!r} enabled")
    script = load_policy(route.policy).demo_caller
    if not script:
        raise ConfigError(f"ROUTE_{route_name.upper()}_POLICY: policy {route.policy!r} has no demo caller")
    state = demo_state_dir(state_dir)
    state.mkdir(parents=True, exist_ok=True)
    ensure_free(state)  # a daemon's STATE_DIR: the demo would ingest into its knowledge base and share its calls
    settings = settings.with_values(STATE_DIR=str(state.resolve()))
    out.write("ai-operator demo - the real daemon against the SIMULATED PBX (an Asterisk 22 ARI double in this\n"
              "process; no real Asterisk is used). Caller and bot speak with espeak-ng over real RTP.\n")
    if route.policy == "operator":
        await _ingest_sample(settings, out)

    def observe(call: Any, turn: Turn) -> None:
        caller, reply = turn.caller, turn.reply
        fields = ", ".join(f"{k}={v}" for k, v in reply.fields.items() if v is not None and k != "citations")
        if caller is not None:
            out.write(f"  caller > {caller}\n")
        out.write(f"  bot    > {reply.text or ''}\n           [{fields}]\n")
        for cite in reply.fields.get("citations", [])[:1]:
            out.write(f"           cited: {cite['id']} {cite['source']}\n")
        out.flush()

    async with simulated_stage(settings, state_dir=state, scripted_stt=not settings.group(OpenAISettings).openai_api_key,
                               overrides=DaemonOverrides(observer=observe)) as stage:
        stt = "caller script via a local OpenAI-compatible test server (no STT configured)" if stage.transcripts else "OpenAI"
        out.write(f"  simulated PBX: {stage.settings.ari.url}   codec: {stage.settings.rtp.codec}   speech recognition: {stt}\n")
        out.write(f"calling route {route_name!r} (policy {route.policy}) ...\n")
        sim = await stage.pbx.place_call(route_name, caller_number="+77010000001")
        await sim.wait_media(timeout=15)
        await stage.wait_bot_quiet(sim, min_turns=1, timeout=60)
        for language, line in script:
            if stage.call_of(sim) is None:
                break
            turns = stage.call_of(sim).turn_log.seq
            await stage.say(sim, line, language)
            await stage.wait_bot_quiet(sim, min_turns=turns + 1, timeout=60)
        await sim.wait_hangup(timeout=30)
        await stage.wait_call_ended(sim)
        # The WAV first: whatever happens to the database, the caller's audio is kept.
        demo_dir = state / "demo"
        wav = demo_dir / f"{sim.channel_id}-bot.wav"
        audio = sim.received_audio()
        write_wav(wav, audio)
        assert stage.daemon.svc is not None
        records = stage.daemon.svc.records
        record, where = await _record_of(records, sim.channel_id)
    rec_path = demo_dir / f"{sim.channel_id}.json"
    rec_path.write_text(json.dumps(record, ensure_ascii=False, indent=2, default=str), encoding="utf-8")
    call = record or {}
    db = f"embedded, {state / 'pgdata'}" if not settings.storage.database_url else "DATABASE_URL"
    out.write(
        f"call ended: hung up by {sim.hung_up_by or 'caller'}; ended_by={call.get('ended_by')} "
        f"disposition={call.get('disposition')} turns={len(call.get('turns', []))}\n"
        + (f"call record: tables calls/turns in PostgreSQL ({db}), " if where == "database" else
           f"call record: the database was unavailable ({where}); the record waits in the spool "
           f"{records.spool_path} and is written to PostgreSQL ({db}) when it is back; ")
        + f"call_id={sim.channel_id}; a copy: {rec_path}\n"
        f"bot audio as the caller heard it: {wav} ({len(audio) / 8000:.1f} s)\n"
    )
    return 0 if call.get("ended_by") in ("bot", "caller") else 1


async def _record_of(records: Any, call_id: str) -> tuple[dict[str, Any] | None, str]:
    """The call's record and where it came from: the database, or (when that cannot be read now) the spool."""
    reason = "not in the database yet"
    try:
        record = await asyncio.wait_for(records.get_call(call_id), RECORD_READ_TIMEOUT_S)
        if record is not None and not records.spooled:
            return record, "database"
    except Exception as exc:  # a database fault must not cost the demo its output
        reason = str(exc) or type(exc).__name__
    return await records.spooled_call(call_id), reason
