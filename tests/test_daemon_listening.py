"""No caller line is lost because the bot was (nominally) speaking; the bot's own echo is never a turn; the
closing line on shutdown starts no new turn; a call never outlasts MAX_CALL_S. On the real media path: RTP in,
webrtcvad, the listener's echo test, an STT double, espeak-ng audio from the bot."""

from __future__ import annotations

import asyncio
import time
from typing import Any

import numpy as np
import pytest

from ai_operator.daemon.services import DaemonOverrides
from ai_operator.media.frames import FRAME_S, FRAME_SAMPLES
from ai_operator.media.levels import frame_powers, power_db
from ai_operator.sim.instant import InstantSTT
from policies.operator.catalog import GREETING, say
from tests.support.daemon import Caller, bot_line_audio, caller_pcm, stage_for
from tests.support.daemon import trim_leading_silence as trim
from tests.support.wait import eventually

HEARD = "русский"
VOICED_DB = -45.0
OFFSETS_MS = list(range(-500, 501, 50))


def last_voiced_frame(pcm: np.ndarray) -> int:
    """Index of the last 20 ms frame of `pcm` whose level is voice, not the hiss around it."""
    powers = frame_powers(np.concatenate([pcm, np.zeros((-len(pcm)) % FRAME_SAMPLES, dtype=np.int16)]), FRAME_SAMPLES)
    voiced = [i for i, p in enumerate(powers) if power_db(float(p)) > VOICED_DB]
    return voiced[-1]


def heard_or_dropped(stage: Any, caller: Caller) -> bool:
    call = stage.call_of(caller.sim)
    return call is None or call.turn_log.seq >= 2 or bool(call.summary.get("utterances_dropped"))


async def speak_at(caller: Caller, onset_s: float, words: np.ndarray) -> float:
    """Start the caller's words when the greeting's last voiced frame + `onset_s` reaches the caller; returns
    when the first frame of the words actually went out (monotonic)."""
    await eventually(lambda: caller.sim.received, what="the greeting's first frame")
    first_at = caller.sim.received[0][0]
    target = first_at + caller.last_voiced_index * FRAME_S + onset_s
    await asyncio.sleep(max(0.0, target - time.monotonic()))
    n = len(caller.speech_frames)
    caller.sim.say(words)
    await eventually(lambda: len(caller.speech_frames) > n, what="the caller's first frame")
    return caller.speech_frames[n]


@pytest.mark.slow
async def test_a_caller_line_around_the_end_of_the_bots_line_is_never_lost(daemon_base) -> None:
    stt = InstantSTT(lambda _pcm: HEARD)
    words = trim(await caller_pcm(HEARD, "ru"))
    async with stage_for(daemon_base, overrides=DaemonOverrides(stt=stt)) as stage:
        tts = stage.svc.tts_for(stage.settings.routes["test"])
        greeting = await bot_line_audio(tts, GREETING, "ru")
        last = last_voiced_frame(greeting)

        async def one(offset_ms: int) -> tuple[int, dict[str, Any], float]:
            caller = await Caller.place(stage)
            caller.last_voiced_index = last
            onset = await speak_at(caller, offset_ms / 1000, words)
            await eventually(lambda: heard_or_dropped(stage, caller), timeout=60, what=f"onset {offset_ms} ms handled")
            await caller.quiet(min_turns=1)
            await caller.sim.hangup()
            record = await caller.record()
            actual_last = caller.sim.received[0][0] + last * FRAME_S
            return offset_ms, record, (onset - actual_last) * 1000

        results = await asyncio.gather(*(one(ms) for ms in OFFSETS_MS))
    lost = []
    for offset_ms, record, measured_ms in results:
        texts = [t["caller_text"] for t in record["turns"]]
        answered = HEARD in texts and record["turns"][texts.index(HEARD)]["bot_text"]
        dropped = (record.get("summary") or {}).get("utterances_dropped", 0)
        print(f"onset {offset_ms:+4d} ms (measured {measured_ms:+6.0f} ms): "
              f"{'answered' if answered else 'dropped as echo' if dropped else 'LOST'}")
        if (offset_ms >= 0 and not answered) or (offset_ms < 0 and not (answered or dropped)):
            lost.append(offset_ms)
    assert lost == [], f"caller lines lost at onsets {lost} ms from the bot's last voiced frame"


@pytest.mark.slow
async def test_the_bots_own_echo_is_never_a_turn_and_does_not_mask_the_caller(daemon_base) -> None:
    stt = InstantSTT(lambda _pcm: HEARD)
    words = trim(await caller_pcm(HEARD, "ru"))
    async with stage_for(daemon_base, IDLE_TIMEOUT_S=300, overrides=DaemonOverrides(stt=stt)) as stage:
        tts = stage.svc.tts_for(stage.settings.routes["test"])
        last = last_voiced_frame(await bot_line_audio(tts, GREETING, "ru"))
        echo_only = await Caller.place(stage)
        echo_only.sim.echo_gain = 0.1  # -20 dB line echo of everything the bot says
        speaking = await Caller.place(stage)
        speaking.sim.echo_gain = 0.1
        speaking.last_voiced_index = last
        await speak_at(speaking, 0.1, words)
        await speaking.quiet(min_turns=2)
        # the echo-only call: the VAD hears the greeting's echo; once that utterance has ended it is decided
        await eventually(lambda: (stage.call_of(echo_only.sim).summary.get("utterances_dropped", 0)),
                         timeout=60, what="the echo utterance decided")
        await echo_only.quiet(min_turns=1)
        for caller in (echo_only, speaking):
            await caller.sim.hangup()
        echo_record, speaking_record = await echo_only.record(), await speaking.record()
    assert [t["caller_text"] for t in echo_record["turns"]] == [None]  # the greeting only: no echo turn
    assert echo_record["summary"]["utterances_dropped"] >= 1  # the VAD did hear the echo: it was dropped, said so
    assert [t["caller_text"] for t in speaking_record["turns"]][:2] == [None, HEARD]


@pytest.mark.slow
async def test_the_shutdown_line_starts_no_new_turn_and_ends_the_call_as_shutdown(daemon_base) -> None:
    async with stage_for(daemon_base, DRAIN_TIMEOUT_S=0, HANGUP_WATCHDOG_S=3) as stage:
        caller = await Caller.place(stage)
        caller.sim.send_dtmf("1")
        await caller.quiet(min_turns=2)
        await caller.say("Я живу в Караганде.")
        await caller.quiet(min_turns=3)
        talk = trim(await caller_pcm("Как оплатить интернет? И ещё скажите, как подключить телевидение?", "ru"))
        stop = asyncio.get_running_loop().create_task(stage.manager.drain(0))
        await eventually(lambda: caller.turns() >= 4, what="the closing line's turn")
        stopped_at = time.monotonic()
        caller.sim.say(np.concatenate([talk, talk]))  # the caller keeps talking over the closing line
        await stop
        record = await caller.record()
    turns = record["turns"]
    assert turns[3]["caller_text"] is None and turns[3]["bot_text"] == say("shutdown", "ru")
    assert len(turns) == 4, [t["caller_text"] for t in turns]  # nothing the caller said started a new turn
    assert record["disposition"] == "shutdown" and record["ended_by"] == "bot"
    assert caller.frames_between(stopped_at - 1.0), "the closing line never reached the caller"


@pytest.mark.slow
async def test_a_call_longer_than_max_call_s_ends_with_the_policys_line(daemon_base) -> None:
    async with stage_for(daemon_base, MAX_CALL_S=10, IDLE_TIMEOUT_S=60) as stage:
        caller = await Caller.place(stage)
        caller.sim.send_dtmf("2")
        await caller.sim.wait_hangup(timeout=60)
        record = await caller.record()
    turns = record["turns"]
    assert turns[-1]["bot_text"] == say("max_call_length", "kk")  # the caller's language
    assert record["disposition"] == "max_call_length" and record["ended_by"] == "bot"
    assert caller.sim.hung_up_by == "app"
