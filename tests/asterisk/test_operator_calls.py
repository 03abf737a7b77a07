"""Whole operator calls through a real Asterisk 22 and the real daemon process, judged from the SIP caller's
side (what it heard, when, and who sent the BYE) and from the call record in the daemon's database.

1. Russian: greeting (both lines, the Kazakh one in the kk voice), language, region, a question answered from
   the sample knowledge base, goodbye heard in full, then the BYE from the daemon's side; the record.
2. The same in Kazakh.
4. A caller line that begins just after the bot's last voiced frame is answered (the drop found on a real line).
"""

from __future__ import annotations

from typing import Any

import numpy as np
import pytest

from ai_operator.media.frames import FRAME_SAMPLES
from policies.operator.catalog import GREETING
from tests.support.asterisk import (
                                    SipCaller,
                                    Stack,
                                    bot_line,
                                    contains,
                                    talkspurts,
                                    voice_to_voice_ms,
                                    voice_to_voice_report,
                                    wait_reply,
)
from tests.support.asterisk.heard import voiced
from tests.support.asterisk.stack import clip
from tests.support.wait import eventually_sync

pytestmark = pytest.mark.asterisk

HEARD_IN_FULL = 0.9  # the line's first and last second are in what the caller heard, sample for sample (~1.0)
NOT_THIS_VOICE = 0.6
TIMING_KEYS = ("eou_ms", "stt_ms", "policy_ms", "tts_first_chunk_ms", "first_rtp_ms", "bridge_ms")
DIALOGUES = {
    "ru": (["По-русски, пожалуйста.", "Я живу в Караганде.", "Как оплатить домашний интернет?"],
           "Спасибо, до свидания.", "KZ-35"),
    "kk": (["Қазақша.", "Мен Астанада тұрамын.", "Үй интернеті қанша тұрады?"], "Рахмет, сау болыңыз.", "KZ-71"),
}


def espeak_voice(text: str, voice: str) -> np.ndarray:
    """`text` read in espeak-ng's `voice` regardless of its script (to tell the voices apart)."""
    import asyncio

    from ai_operator.speech.espeak import EspeakTTS

    async def make() -> np.ndarray:
        return np.concatenate([c async for c in EspeakTTS().stream(text, voice)])

    return asyncio.run(make())


def heard_since(caller: SipCaller, since_ns: int) -> np.ndarray:
    return caller.rtp.pcm(since_ns)[1]


def greeting_heard(caller: SipCaller) -> str:
    caller.wait_media()
    wait_reply(caller.rtp, 0)
    heard = heard_since(caller, 0)
    ru_line, kk_line = GREETING.splitlines()
    ru, kk = contains(heard, bot_line(ru_line, "ru")), contains(heard, bot_line(kk_line, "kk"))
    assert ru > HEARD_IN_FULL, f"the greeting's Russian line was not heard ({ru:.2f})"
    assert kk > HEARD_IN_FULL, f"the greeting's Kazakh line was not heard in the kk voice ({kk:.2f})"
    # ... and it was the kk voice: the same line in the ru voice is not what the caller heard
    other = contains(heard, espeak_voice(kk_line, "ru"))
    assert other < NOT_THIS_VOICE, other
    return f"greeting match ru {ru:.3f}, kk {kk:.3f} (kk line in the ru voice {other:.3f})"


def full_call(stack: Stack, language: str, record_property: Any) -> None:
    lines, goodbye, region = DIALOGUES[language]
    caller = stack.dial("100")
    call_id = caller.channel_id()
    figures = [greeting_heard(caller)]
    voice_to_voice = []
    for text in lines:
        said = stack.say(caller, text, language)
        wait_reply(caller.rtp, said.last_ns)
        voice_to_voice.append((text, voice_to_voice_ms(caller.rtp, said, clip(text, language))))
    said = stack.say(caller, goodbye, language)
    ending = caller.wait_ended()
    voice_to_voice.append((goodbye, voice_to_voice_ms(caller.rtp, said, clip(goodbye, language))))
    record_property("report", voice_to_voice_report(f"operator call, {language}", voice_to_voice))
    assert ending.how == "bye_received", f"the caller got no BYE ({ending}): {caller.failure()}"
    record = stack.record(call_id)

    # the goodbye was heard in full, and only then did the BYE come
    last = record["turns"][-1]
    assert last["caller_text"] == goodbye and last["fields"]["hang_up"] is True, last
    heard = heard_since(caller, said.first_ns)
    match = contains(heard, bot_line(last["bot_text"], language))
    assert match > HEARD_IN_FULL, f"goodbye not heard in full ({match:.2f})"
    spurts = talkspurts(caller.rtp, said.first_ns)
    assert spurts and ending.at_ns > spurts[-1].last_ns, "the BYE came before the goodbye's last frame"
    figures.append(f"goodbye match {match:.3f}, BYE {(ending.at_ns - spurts[-1].last_ns) / 1e6:.0f} ms after its "
                   "last voiced frame")
    figures.append(f"RTP to the daemon: {record['rtp_packets_received']} received, {record['rtp_packets_lost']} lost, "
                   f"jitter {record['rtp_jitter_ms']} ms")
    record_property("report", f"asterisk {language}: " + "; ".join(figures))

    assert record["ended_by"] == "bot" and record["disposition"] == "completed", record
    assert record["route"] == "test" and record["direction"] == "inbound"
    # what the daemon's externalMedia socket received from Asterisk (RFC 3550): a call of many seconds is
    # hundreds of 20 ms packets, and on the loopback none is lost
    assert record["rtp_packets_received"] > 250 and record["rtp_packets_lost"] == 0, record
    assert record["rtp_packets_expected"] == record["rtp_packets_received"] and record["rtp_jitter_ms"] >= 0
    turns = {t["caller_text"]: t for t in record["turns"]}
    assert [t["caller_text"] for t in record["turns"][1:]] == [*lines, goodbye]
    assert turns[lines[0]]["fields"]["language"] == language
    assert turns[lines[1]]["fields"]["region_code"] == region
    answer = turns[lines[2]]
    assert any(c["name"] == "search_knowledge_base" and c["allowed"] for c in answer["tool_calls"]), answer
    citations = answer["fields"]["citations"]
    assert citations and citations[0]["title"] in answer["bot_text"], answer
    for turn in record["turns"][1:]:
        missing = [k for k in TIMING_KEYS if k not in turn["timings"]]
        assert not missing, (turn["caller_text"], missing, turn["timings"])
        assert turn["timings"]["first_rtp_ms"] >= turn["timings"]["eou_ms"] > 0
    # nothing left behind in Asterisk for this call
    eventually_sync(lambda: all(ch["id"] != call_id for ch in stack.pbx.channels()), 30, what="channel gone")


def test_an_operator_call_in_russian_through_a_real_asterisk(stack: Stack, record_property: Any) -> None:
    full_call(stack, "ru", record_property)


def test_an_operator_call_in_kazakh_through_a_real_asterisk(stack: Stack, record_property: Any) -> None:
    full_call(stack, "kk", record_property)


def voiced_span(pcm: np.ndarray) -> tuple[int, int]:
    idx = np.flatnonzero(voiced(pcm))
    return int(idx[0]), int(idx[-1])


def test_a_line_begun_just_after_the_bots_last_voiced_frame_is_answered(stack: Stack, record_property: Any) -> None:
    first_v, last_v = voiced_span(bot_line(GREETING, "ru"))
    caller = stack.dial("100")
    call_id = caller.channel_id()
    caller.wait_media()

    def greeting_last_frame() -> int | None:
        """Arrival of the greeting's last voiced frame, counted from its first voiced one as it arrives."""
        times, audio = caller.rtp.pcm()
        idx = np.flatnonzero(voiced(audio[: len(audio) // FRAME_SAMPLES * FRAME_SAMPLES]))
        if not idx.size:
            return None
        target = int(idx[0]) + (last_v - first_v)
        return int(times[target]) if target < len(times) else None

    arrived_ns = eventually_sync(greeting_last_frame, 60, what="the greeting's last voiced frame")
    text = "По-русски, пожалуйста."
    said = stack.say(caller, text, "ru")
    onset_ms = (said.first_ns - arrived_ns) / 1e6
    record_property("report", f"asterisk: caller line began {onset_ms:.0f} ms after the bot's last voiced frame")
    assert onset_ms >= 0
    reply = wait_reply(caller.rtp, said.last_ns)
    assert reply, "the caller's line was not answered"
    stack.say(caller, "Спасибо, до свидания.", "ru")
    assert caller.wait_ended().how == "bye_received"
    record = stack.record(call_id)
    turn = next((t for t in record["turns"] if t["caller_text"] == text), None)
    assert turn is not None and turn["bot_text"], f"line begun {onset_ms:.0f} ms after the greeting lost: {record}"
    assert (record.get("summary") or {}).get("utterances_dropped", 0) == 0
