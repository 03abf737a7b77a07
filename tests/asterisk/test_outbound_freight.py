"""3. A freight call placed with `ai-operator dial`, through the real Asterisk's sample outbound context, to a SIP
carrier: the carrier (Hindi, espeak-ng's hi voice) quotes, holds its rate, and the bot closes the deal; the
daemon hangs up after its goodbye has played, so the carrier's BYE comes after the goodbye's last voiced frame
as the carrier received it.

The carrier is sipp (`sipp/uas_carrier.xml`) for the signalling with the test's RTP peer for its voice; the
sample's `freight-trunk` contact (a placeholder host in the sample) is pointed at it: a port substituted in a
fresh Asterisk, then `pjsip reload`, as an operator would after filling in the provider's address.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.support.asterisk import (
                                    RtpPeer,
                                    Said,
                                    Stack,
                                    bot_line,
                                    contains,
                                    talkspurts,
                                    voice_to_voice_ms,
                                    voice_to_voice_report,
                                    wait_reply,
)
from tests.support.asterisk.pbx import Asterisk, substitute
from tests.support.asterisk.stack import clip
from tests.support.asterisk.uas_peers import SippUas
from tests.support.wait import eventually_sync

pytestmark = pytest.mark.asterisk

HEARD_IN_FULL = 0.9
NUMBER = "5550100"
# Greeting ("am I speaking with Ramesh?"), the pitch, a quote under the anchor, the bot's squeeze, the carrier
# holds: the deal at the quote; then the carrier's thanks and the bot's goodbye (`ai-operator call` shows it).
CARRIER = ["हां जी, मैं ही बोल रहा हूं।", "इसका रेट उन्नीस हज़ार लगेगा।", "नहीं जी, इससे कम नहीं होगा।"]
THANKS = "ठीक है जी, धन्यवाद।"


def point_trunk_at(pbx: Asterisk, port: int) -> None:
    """The sample trunk's contact (`sip:sip.provider.example:5060`) set to the carrier's sipp, and reloaded."""
    conf = pbx.run_dir / "etc" / "pjsip.conf"
    conf.write_text(substitute(conf.read_text(), "pjsip.conf", "freight-trunk", "contact", f"sip:127.0.0.1:{port}"))
    pbx.cli("module reload res_pjsip.so")
    eventually_sync(lambda: f"sip:127.0.0.1:{port}" in pbx.cli("pjsip show aor freight-trunk"), 30,
                    what="the reloaded freight-trunk contact")


def dial(stack: Stack) -> str:
    """`ai-operator dial` as README says; the originated channel's id (the daemon's call id)."""
    done = subprocess.run(
        [sys.executable, "-m", "ai_operator", "dial", "--env", str(stack.env_file), "--route", "freight",
         "--endpoint", f"Local/{NUMBER}@ai-operator-outbound/n"],
        capture_output=True, text=True, timeout=60, check=False)
    assert done.returncode == 0, done.stdout + done.stderr
    m = re.match(r"originated (\S+) \(Local/" + NUMBER + r"@ai-operator-outbound-\S+\) to ", done.stdout)
    assert m, done.stdout
    return m.group(1)


def carrier_says(stack: Stack, peer: RtpPeer, text: str) -> Said:
    pcm = clip(text, "hi")
    stack.openai.recogniser.expect(text, pcm)
    return peer.speak(pcm)


def test_a_freight_call_dialled_out_closes_a_deal_and_hangs_up_after_the_goodbye(fresh_stack: Stack, tmp_path: Path,
                                                                                  record_property: Any) -> None:
    stack = fresh_stack
    peer = RtpPeer("127.0.0.1")
    try:
        with SippUas.carrier(tmp_path / "carrier", rtp_ip=peer.host, rtp_port=peer.port) as carrier:
            point_trunk_at(stack.pbx, carrier.port)
            call_id = dial(stack)
            invite = carrier.wait_for("invite", 60)
            assert invite.fields["ruri"].startswith(f"sip:{NUMBER}@127.0.0.1"), invite
            carrier.wait_for("answered", 30)

            wait_reply(peer, 0)  # the greeting
            voice_to_voice = []
            for text in CARRIER:
                said = carrier_says(stack, peer, text)
                wait_reply(peer, said.last_ns)
                voice_to_voice.append((text, voice_to_voice_ms(peer, said, clip(text, "hi"))))
            said = carrier_says(stack, peer, THANKS)
            bye = carrier.wait_for("bye_received", 120)
            assert carrier.first("bye_sent") is None
        voice_to_voice.append((THANKS, voice_to_voice_ms(peer, said, clip(THANKS, "hi"))))
        record_property("report", voice_to_voice_report("outbound freight call, hi", voice_to_voice))
        record = stack.record(call_id)

        greeting = record["turns"][0]["bot_text"]
        assert contains(peer.pcm()[1], bot_line(greeting, "hi", "freight")) > HEARD_IN_FULL, "greeting not heard"
        goodbye = record["turns"][-1]
        assert goodbye["caller_text"] == THANKS and goodbye["fields"]["hang_up"] is True, goodbye
        heard = peer.pcm(said.first_ns)[1]
        assert contains(heard, bot_line(goodbye["bot_text"], "hi", "freight")) > HEARD_IN_FULL, "goodbye cut short"
        spurts = talkspurts(peer, said.first_ns)
        assert spurts and bye.at * 1e9 > spurts[-1].last_ns, "the BYE came before the goodbye's last voiced frame"

        assert record["route"] == "freight" and record["policy"] == "freight" and record["direction"] == "outbound"
        assert record["ended_by"] == "bot" and record["disposition"] == "deal_at_quote", record
        assert [t["caller_text"] for t in record["turns"][1:]] == [*CARRIER, THANKS]
        quoted = record["turns"][2]
        assert quoted["fields"]["heard_rate"] == 19000, quoted
        eventually_sync(lambda: not stack.pbx.channels(), 30, what="no channel left in Asterisk")
    finally:
        peer.close()
