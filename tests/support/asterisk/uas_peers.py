"""The SIP parties a real-Asterisk test calls *to*: the freight carrier that `ai-operator dial` reaches and the
human at the handoff desk. Each is one sipp process running a scenario from `sipp/` (names `uas_*`), on a port
the OS handed out, logging every step with sipp's wall-clock timestamp into its own file, which is read here.

- `SippUas.carrier(...)`: answers Asterisk's INVITE with an SDP naming the test's RTP peer (sipp does the
  signalling only), then waits for the BYE; `remote_rtp` is where the peer sends (Asterisk's SDP).
- `SippUas.operator_desk(...)`: registers as the sample's `operator-desk` (digest), then answers the handoff's
  INVITE (sipp's out-of-call scenario), speaks a WAV as RTP from its own media port and hangs up after a while.

Log lines look like `uas event=invite at=<date>\\t<time>\\t<epoch.micros> key=value ...`.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from dataclasses import dataclass
from pathlib import Path

from tests.support.ports import free_udp_range
from tests.support.wait import eventually_sync

SIPP_DIR = Path(__file__).resolve().parent / "sipp"
LINE = re.compile(r"^uas event=(?P<event>\S+) at=\S+\t\S+\t(?P<epoch>\d+\.\d+)(?P<rest>.*)$")
FIELD = re.compile(r"(\w+)=(.*?)(?= \w+=|$)")
STOP_TIMEOUT_S = 10.0


@dataclass(frozen=True)
class UasEvent:
    event: str
    at: float  # wall clock (epoch seconds), when sipp handled the message
    fields: dict[str, str]


def parse_log(text: str) -> list[UasEvent]:
    """The `uas event=...` lines of a sipp -log_file, in order; other lines are ignored."""
    out: list[UasEvent] = []
    for line in text.splitlines():
        m = LINE.match(line)
        if m:
            out.append(UasEvent(m["event"], float(m["epoch"]), {k: v.strip() for k, v in FIELD.findall(m["rest"])}))
    return out


@dataclass
class SippUas:
    """One sipp process playing a called party. Use `with SippUas.carrier(...)` (or `operator_desk`)."""

    argv: list[str]
    workdir: Path
    port: int
    log_path: Path
    proc: subprocess.Popen[bytes] | None = None

    @classmethod
    def carrier(cls, workdir: Path, *, rtp_ip: str, rtp_port: int) -> SippUas:
        """The freight carrier: answers with `rtp_ip:rtp_port` (the test's RTP peer) in its SDP."""
        port = _free_udp_port()
        log = workdir / "carrier-sipp.log"
        # No -m 1: Asterisk's qualify OPTIONS (the sample trunk's qualify_frequency) would count as that one call.
        argv = ["sipp", "-sf", str(SIPP_DIR / "uas_carrier.xml"), "-i", "127.0.0.1", "-p", str(port), "-aa",
                "-key", "rtp_ip", rtp_ip, "-key", "rtp_port", str(rtp_port), *_common(workdir, log)]
        return cls(argv, workdir, port, log)

    @classmethod
    def operator_desk(cls, workdir: Path, *, asterisk_sip: tuple[str, int], password: str, speech_wav: Path,
                      hold_s: float, user: str = "operator-desk") -> SippUas:
        """The human: registers as `user` at Asterisk, then answers the handoff, loops `speech_wav` and hangs up
        after `hold_s` (unless the caller did first)."""
        workdir.mkdir(parents=True, exist_ok=True)
        desk = workdir / "uas_operator_desk.xml"
        desk.write_text((SIPP_DIR / "uas_operator_desk.xml").read_text().replace("@HOLD_MS@", str(int(hold_s * 1000))))
        port = _free_udp_port()
        media = free_udp_range(4)  # sipp binds its media port and the next ones (RTCP, video)
        log = workdir / "desk-sipp.log"
        wav = workdir / "operator-desk.wav"  # the scenario streams this name from sipp's working directory
        subprocess.run(["sox", str(speech_wav), "-r", "8000", "-c", "1", "-e", "u-law", "-b", "8", str(wav)],
                       check=True, capture_output=True)
        host, sip_port = asterisk_sip
        argv = ["sipp", f"{host}:{sip_port}", "-sf", str(SIPP_DIR / "uas_operator_desk_register.xml"),
                "-oocsf", str(desk), "-i", "127.0.0.1", "-p", str(port),
                "-mi", "127.0.0.1", "-mp", str(media), "-s", user, "-au", user, "-ap", password, "-m", "1", "-aa",
                *_common(workdir, log)]
        return cls(argv, workdir, port, log)

    # ---- life ------------------------------------------------------------------------------------------------
    def start(self) -> SippUas:
        if shutil.which("sipp") is None:
            raise RuntimeError("sipp not found: `make` installs it (Debian package sip-tester)")
        self.workdir.mkdir(parents=True, exist_ok=True)
        self.proc = subprocess.Popen(self.argv, cwd=self.workdir, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                     stderr=subprocess.DEVNULL, start_new_session=True)
        return self

    def __enter__(self) -> SippUas:
        return self.start()

    def __exit__(self, *_exc: object) -> None:
        self.stop()

    def stop(self) -> int | None:
        """Stop sipp (it may have finished by itself); its exit code."""
        if self.proc is None:
            return None
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(STOP_TIMEOUT_S)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(STOP_TIMEOUT_S)
        return self.proc.returncode

    # ---- what happened -----------------------------------------------------------------------------------------
    def events(self) -> list[UasEvent]:
        try:
            return parse_log(self.log_path.read_text(errors="replace"))
        except FileNotFoundError:
            return []

    def first(self, name: str) -> UasEvent | None:
        return next((e for e in self.events() if e.event == name), None)

    def wait_for(self, name: str, timeout: float) -> UasEvent:
        """The first `name` event, waiting up to `timeout` s (a failure bound; names sipp's errors if it died)."""
        try:
            return eventually_sync(lambda: self.first(name), timeout=timeout, what=f"sipp {name!r} ({self.log_path.name})")
        except AssertionError as exc:
            raise AssertionError(f"{exc}; sipp so far: {[e.event for e in self.events()]}; {self.diagnostics()}") from None

    def diagnostics(self) -> str:
        """sipp's error file and exit code, for a failure message."""
        err = self.workdir / f"{self.log_path.stem}-errors.log"
        text = err.read_text(errors="replace")[-2000:] if err.exists() else ""
        code = self.proc.returncode if self.proc else None
        return f"sipp exit={code} errors={text.strip()!r}"


def _common(workdir: Path, log: Path) -> list[str]:
    return ["-nostdin", "-trace_logs", "-log_file", str(log), "-trace_err",
            "-error_file", str(workdir / f"{log.stem}-errors.log"), "-timeout", "900s"]


def _free_udp_port() -> int:
    """A UDP port that bound a moment ago (sipp binds its SIP socket on it)."""
    return free_udp_range(1)


__all__ = ["SippUas", "UasEvent", "parse_log"]
