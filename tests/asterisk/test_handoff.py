"""5. Handoff through a real Asterisk: the caller asks for an operator, the bot says it is connecting them and
continues the call to the sample's handoff target (`ROUTE_TEST_HANDOFF=ai-operator-handoff,operator,1`), whose
dialplan rings `PJSIP/operator-desk`; the human's softphone there (sipp, registered as the sample endpoint)
receives the call and answers, the caller hears the human, and when the human hangs up the caller gets the BYE.
"""

from __future__ import annotations

import wave
from pathlib import Path

import numpy as np
import pytest

from tests.support.asterisk import SipCaller, Stack, bot_line, caller_clip, contains, wait_reply
from tests.support.asterisk.uas_peers import SippUas
from tests.support.wait import eventually_sync

pytestmark = pytest.mark.asterisk

HEARD = 0.9
DESK_TALKS_S = 6.0  # the human speaks (a clip in a loop) this long after answering, then hangs up
DESK_LINE = "Оператор слушает, чем могу помочь?"
LANGUAGE = "По-русски, пожалуйста."
ASK_FOR_OPERATOR = "Соедините меня с оператором."


def write_wav(path: Path, pcm: np.ndarray) -> Path:
    with wave.open(str(path), "wb") as w:
        w.setnchannels(1)
        w.setsampwidth(2)
        w.setframerate(8000)
        w.writeframes(pcm.astype("<i2").tobytes())
    return path


def wait_registered(stack: Stack, desk: SippUas) -> None:
    desk.wait_for("registered", 30)
    eventually_sync(lambda: f"sip:operator-desk@127.0.0.1:{desk.port}" in stack.pbx.cli("pjsip show aor operator-desk"),
                    30, what="operator-desk's contact in Asterisk")


def test_a_handoff_reaches_the_human_at_the_operator_desk(stack: Stack, tmp_path: Path) -> None:
    desk_pcm = caller_clip(DESK_LINE, "ru")
    with SippUas.operator_desk(tmp_path / "desk", asterisk_sip=("127.0.0.1", stack.pbx.ports.sip),
                               password=stack.pbx.creds.operator_desk_password, hold_s=DESK_TALKS_S,
                               speech_wav=write_wav(tmp_path / "desk-line.wav", desk_pcm)) as desk:
        wait_registered(stack, desk)
        caller: SipCaller = stack.dial("100")
        call_id = caller.channel_id()
        caller.wait_media()
        wait_reply(caller.rtp, 0)  # the greeting
        said = stack.say(caller, LANGUAGE, "ru")
        wait_reply(caller.rtp, said.last_ns)
        asked = stack.say(caller, ASK_FOR_OPERATOR, "ru")

        invite = desk.wait_for("invite", 60)
        answered = desk.wait_for("answered", 30)
        assert invite.fields["ruri"].startswith("sip:operator-desk@127.0.0.1"), invite
        assert caller.name in invite.fields["from"], invite  # the caller's own caller ID reached the human
        ending = caller.wait_ended(120)
        assert ending.how == "bye_received", f"{ending}: {caller.failure()}"
        assert desk.first("bye_sent") is not None and desk.first("bye_received") is None, desk.events()
        record = stack.record(call_id)

    # the caller heard the bot say it is connecting them, then the human
    last = record["turns"][-1]
    assert last["caller_text"] == ASK_FOR_OPERATOR and last["state"] == "HANDOFF", last
    heard_after_ask = caller.rtp.pcm(asked.first_ns)[1]
    assert contains(heard_after_ask, bot_line(last["bot_text"], "ru")) > HEARD, "the bot's handoff line cut short"
    heard_from_desk = caller.rtp.pcm(int(answered.at * 1e9))[1]
    assert contains(heard_from_desk, desk_pcm) > HEARD, "the caller did not hear the human"
    assert ending.at_ns > answered.at * 1e9

    assert record["ended_by"] == "bot" and record["disposition"] == "handoff", record
    assert record["summary"]["handoff"] == "ai-operator-handoff,operator,1", record["summary"]
    eventually_sync(lambda: not stack.pbx.channels() and not stack.pbx.bridges(), 30,
                    what="no channel or bridge left in Asterisk")
