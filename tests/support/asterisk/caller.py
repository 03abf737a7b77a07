"""A real SIP caller: sipp does the signalling as a sample endpoint (digest auth, INVITE, ACK, BYE), its SDP
points at a Python RTP peer (`rtp_peer.RtpPeer`) that speaks the caller's clips and records what it hears.

`SipCaller.dial(pbx, "100")` places the call; `say(pcm)` speaks; `wait_ended()` waits for sipp and says who
hung up (`bye_received`: the far end's BYE; `bye_sent`: the caller's own after `hangup_after_s`) and when
(CLOCK_REALTIME ns, comparable with the RTP peer's kernel timestamps); the RTP peer stops sending once sipp has
ended the call (`rtp_peer.hang_up_when_ended`). `channel_id()` finds the caller's
channel through ARI by its unique caller ID name; that is also the daemon's call id.
"""

from __future__ import annotations

import re
import secrets
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from tests.support.asterisk.pbx import Asterisk, free_udp_port
from tests.support.asterisk.rtp_peer import RtpPeer, Said, hang_up_when_ended
from tests.support.ports import free_udp_range
from tests.support.wait import eventually_sync

SCENARIO = Path(__file__).with_name("uac.xml")
EVENT_RE = re.compile(r"^(answered|bye_received|bye_sent) (\d+)(?:\.\d*)? (\d+)(?:\.\d*)?\s*$")


@dataclass(frozen=True)
class Ending:
    how: str  # bye_received (the PBX / daemon hung up) | bye_sent (the caller did) | failed
    at_ns: int  # CLOCK_REALTIME when the BYE arrived or left (0 when failed)
    exit_code: int


class SipCaller:
    def __init__(self, pbx: Asterisk, work_dir: Path, *, exten: str = "100", user: str = "test-caller",
                 password: str | None = None, hangup_after_s: float = 600.0) -> None:
        self.pbx = pbx
        self.exten = exten
        self.work_dir = work_dir
        self.name = f"caller-{secrets.token_hex(4)}"
        self.rtp = RtpPeer("127.0.0.1")
        work_dir.mkdir(parents=True, exist_ok=True)
        scenario = work_dir / "uac.xml"
        text = SCENARIO.read_text()
        for key, value in {"@USER@": user, "@NAME@": self.name, "@RTP_HOST@": self.rtp.host,
                           "@RTP_PORT@": str(self.rtp.port), "@HANGUP_MS@": str(int(hangup_after_s * 1000))}.items():
            text = text.replace(key, value)
        scenario.write_text(text)
        self.log_file = work_dir / "sipp.log"
        self.messages = work_dir / "sipp-messages.log"
        self.errors = work_dir / "sipp-errors.log"
        media = free_udp_range(4)
        # no "-cp": sipp binds its remote-control socket itself, at the first free port from 8888; a number asked of
        # the OS before could be taken by the time sipp binds it (callers started at once), and sipp would exit
        cmd = ["sipp", f"127.0.0.1:{pbx.ports.sip}", "-sf", str(scenario), "-s", exten,
               "-au", user, "-ap", password or pbx.creds.test_caller_password,
               "-i", "127.0.0.1", "-p", str(free_udp_port("127.0.0.1")), "-mp", str(media),
               "-m", "1", "-l", "1", "-nostdin",
               "-trace_logs", "-log_file", str(self.log_file), "-trace_msg", "-message_file", str(self.messages),
               "-trace_err", "-error_file", str(self.errors),
               "-timeout", f"{int(hangup_after_s) + 120}s", "-timeout_error"]
        self.proc = subprocess.Popen(cmd, cwd=work_dir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        hang_up_when_ended(self.proc, self.rtp)
        self._channel_id: str | None = None

    @classmethod
    def dial(cls, pbx: Asterisk, exten: str, work_dir: Path, **kwargs: Any) -> SipCaller:
        return cls(pbx, work_dir, exten=exten, **kwargs)

    # --- the call -------------------------------------------------------------------------------------------
    def channel_id(self, timeout: float = 30.0) -> str:
        """The caller's channel in Asterisk (the daemon's call id), found by the caller ID name."""
        if self._channel_id is None:
            def find() -> str | None:
                for ch in self.pbx.channels():
                    if (ch.get("caller") or {}).get("name") == self.name:
                        return str(ch["id"])
                return None
            self._channel_id = eventually_sync(find, timeout, what=f"channel of {self.name} in ARI")
        return self._channel_id

    def wait_media(self, timeout: float = 30.0) -> None:
        """Until the first RTP packet from Asterisk has arrived (the call is up and the peer knows where to send)."""
        eventually_sync(lambda: self.rtp.remote is not None, timeout, what=f"RTP from Asterisk to {self.name}")

    def say(self, pcm: np.ndarray, timeout: float = 60.0) -> Said:
        """Speak `pcm` (int16, 8 kHz) now; returns when its last frame has left (first/last send times)."""
        return self.rtp.speak(pcm, timeout)

    def events(self) -> dict[str, int]:
        """sipp's logged steps: answered / bye_received / bye_sent -> CLOCK_REALTIME ns."""
        out: dict[str, int] = {}
        if self.log_file.exists():
            for line in self.log_file.read_text(errors="replace").splitlines():
                m = EVENT_RE.match(line.strip())
                if m:
                    out[m.group(1)] = int(m.group(2)) * 1_000_000_000 + int(m.group(3)) * 1000
        return out

    def wait_ended(self, timeout: float = 120.0) -> Ending:
        """Until sipp has finished the call; who hung up and when."""
        try:
            code = self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            raise AssertionError(f"{self.name}: the call did not end within {timeout:g} s") from None
        ev = self.events()
        for how in ("bye_received", "bye_sent"):
            if how in ev:
                return Ending(how, ev[how], code)
        return Ending("failed", 0, code)

    def failure(self) -> str:
        """sipp's own account of a failed call (its error log), for assertion messages."""
        return self.errors.read_text(errors="replace")[-2000:] if self.errors.exists() else "(no sipp error log)"

    def close(self) -> None:
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)
        self.rtp.close()

    def remove(self) -> None:
        self.close()
        shutil.rmtree(self.work_dir, ignore_errors=True)
