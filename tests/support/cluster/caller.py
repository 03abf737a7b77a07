"""A SIP caller through the cluster's front door: the real-Asterisk tests' sipp caller (`SipCaller`, its scenario
and its Python RTP peer), sending its INVITE to Kamailio instead of a node. The front door does admission, so
the scenario is the tests' own without the digest challenge (the nodes' `front-door` endpoint asks for none).

A caller stops its RTP when its call has ended (see `wait_ended`). `node()` says which node's ARI has the call; `channel_id()` is its channel there (the daemon's call id).
"""

from __future__ import annotations

import secrets
import subprocess
from pathlib import Path

from tests.support.asterisk.caller import SCENARIO, Ending, SipCaller
from tests.support.asterisk.pbx import Asterisk, free_udp_port
from tests.support.asterisk.rtp_peer import RtpPeer, hang_up_when_ended
from tests.support.ports import free_udp_range
from tests.support.wait import eventually_sync

CHALLENGE_FREE_MARK = '<send retrans="500">'


def scenario_without_challenge() -> str:
    """uac.xml minus its first INVITE and the 401/ACK that answer it, and minus the credentials."""
    text = SCENARIO.read_text()
    first = text.index(CHALLENGE_FREE_MARK)
    second = text.index(CHALLENGE_FREE_MARK, first + 1)
    text = text[:first] + text[second:]
    if "      [authentication]\n" not in text:
        raise AssertionError(f"{SCENARIO}: no [authentication] line after the challenge (was it changed?)")
    return text.replace("      [authentication]\n", "").replace('<recv response="401" auth="true"/>', "")


class FrontDoorCaller(SipCaller):
    def __init__(self, front_door: tuple[str, int], nodes: dict[str, Asterisk], work_dir: Path, *,
                 exten: str = "100", hangup_after_s: float = 600.0) -> None:
        self.nodes = nodes
        self.pbx = next(iter(nodes.values()))
        self.exten = exten
        self.work_dir = work_dir
        self.name = f"caller-{secrets.token_hex(4)}"
        self.rtp = RtpPeer("127.0.0.1")
        work_dir.mkdir(parents=True, exist_ok=True)
        scenario = work_dir / "uac.xml"
        text = scenario_without_challenge()
        for key, value in {"@USER@": "test-caller", "@NAME@": self.name, "@RTP_HOST@": self.rtp.host,
                           "@RTP_PORT@": str(self.rtp.port), "@HANGUP_MS@": str(int(hangup_after_s * 1000))}.items():
            text = text.replace(key, value)
        scenario.write_text(text)
        self.log_file = work_dir / "sipp.log"
        self.messages = work_dir / "sipp-messages.log"
        self.errors = work_dir / "sipp-errors.log"
        host, port = front_door
        # no "-cp": sipp binds its remote-control socket itself, at the first free port from 8888; a number asked of
        # the OS before could be taken by the time sipp binds it (callers started at once), and sipp would exit
        cmd = ["sipp", f"{host}:{port}", "-sf", str(scenario), "-s", exten,
               "-i", "127.0.0.1", "-p", str(free_udp_port("127.0.0.1")), "-mp", str(free_udp_range(4)),
               "-m", "1", "-l", "1", "-nostdin",
               "-trace_logs", "-log_file", str(self.log_file), "-trace_msg", "-message_file", str(self.messages),
               "-trace_err", "-error_file", str(self.errors),
               "-timeout", f"{int(hangup_after_s) + 120}s", "-timeout_error"]
        self.proc = subprocess.Popen(cmd, cwd=work_dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        hang_up_when_ended(self.proc, self.rtp)
        self._channel_id: str | None = None
        self._node: str | None = None

    def wait_ended(self, timeout: float = 120.0) -> Ending:
        """As `SipCaller.wait_ended`, and then the RTP peer stops sending, as a phone does after BYE: a peer that
        kept sending silence to the node's old RTP port would be learned (symmetric RTP) by the next call
        Asterisk gives that port to, which would then hear nothing."""
        ending = super().wait_ended(timeout)
        self.rtp.close()
        return ending

    def _find(self) -> tuple[str, str] | None:
        for name, pbx in self.nodes.items():
            try:
                channels = pbx.channels()
            except OSError:  # a node that is down has no calls
                continue
            for ch in channels:
                if (ch.get("caller") or {}).get("name") == self.name:
                    return name, str(ch["id"])
        return None

    def locate(self, timeout: float = 30.0) -> tuple[str, str]:
        """(node, channel id) of this call, once it is up on a node."""
        if self._node is None or self._channel_id is None:
            self._node, self._channel_id = eventually_sync(self._find, timeout, what=f"{self.name} on a node")
        return self._node, self._channel_id

    def channel_id(self, timeout: float = 30.0) -> str:
        return self.locate(timeout)[1]

    def node(self, timeout: float = 30.0) -> str:
        return self.locate(timeout)[0]
