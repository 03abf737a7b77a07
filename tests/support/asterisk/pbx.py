"""A real Asterisk 22 for the tests: configuration made from the project's own `etc/asterisk/` samples, run
unprivileged as a child process with its own run directory, on ports asked of the OS.

Only ports, paths and the samples' placeholder passwords are substituted in the samples; a sample that needs
any other change to work is wrong and is changed in `etc/asterisk/`. Three files are the harness's own, since
the samples leave them to the host: `asterisk.conf` (every directory inside the run dir, modules and sounds
from the build prefix), `modules.conf` (`autoload=yes`, as the samples' README assumes) and `logger.conf`
(a `messages` log in the run dir).
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from tests.support.ports import closed_tcp_port, free_udp_range

REPO = Path(__file__).resolve().parents[3]
SAMPLES = REPO / "etc" / "asterisk"
DEFAULT_PREFIX = Path("/opt/ai-operator-asterisk")
PREFIX_ENV = "AI_OPERATOR_ASTERISK_PREFIX"
ARI_USER = "ai-operator"
RTP_RANGE = 200  # Asterisk's own RTP ports: two per channel (RTP + RTCP), callers and externalMedia alike
READY_TIMEOUT_S = 120.0
STOP_TIMEOUT_S = 30.0


def asterisk_prefix() -> Path:
    """Where `scripts/asterisk-build.sh` installs Asterisk (`$AI_OPERATOR_ASTERISK_PREFIX` or the default)."""
    return Path(os.environ.get(PREFIX_ENV) or DEFAULT_PREFIX)


def asterisk_binary(prefix: Path | None = None) -> Path | None:
    """The built `asterisk` executable, or None when the prefix holds none."""
    binary = (prefix or asterisk_prefix()) / "sbin" / "asterisk"
    return binary if os.access(binary, os.X_OK) else None


def asterisk_sources() -> Path:
    """Where `scripts/asterisk-build.sh` takes the vendored sources from (the script says; it honours
    `$AI_OPERATOR_ASTERISK_SOURCES`)."""
    done = subprocess.run([str(REPO / "scripts" / "asterisk-build.sh"), "--sources"], capture_output=True,
                          text=True, timeout=30, check=True)
    return Path(done.stdout.strip())


def asterisk_sources_present() -> bool:
    """True when the sources the build script needs are there (so a missing build is a mistake, not a clone
    with nothing beside it)."""
    return any(asterisk_sources().glob("asterisk-*.tar.*"))


def free_udp_port(host: str = "0.0.0.0") -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


def substitute(text: str, file: str, section: str, key: str, value: str) -> str:
    """`key = value` in every `[section]` of the sample set to `value`; at least one line must change, so a
    renamed sample key fails here loudly instead of running an unsubstituted config."""
    out, current, changed = [], None, 0
    for line in text.splitlines(keepends=True):
        m = re.match(r"\s*\[([^\]]+)\]", line)
        if m:
            current = m.group(1)
        elif current == section and re.match(rf"\s*{re.escape(key)}\s*=", line):
            line = f"{key} = {value}\n"
            changed += 1
        out.append(line)
    if not changed:
        raise AssertionError(f"{file}: no '{key}' in [{section}] to substitute (was the sample changed?)")
    return "".join(out)


@dataclass(frozen=True)
class PbxPorts:
    sip: int  # the sample transport ai-operator-udp (5070 in the sample)
    http: int  # ARI (8088 in the sample)
    rtp_start: int  # Asterisk's own RTP range (rtp.conf)
    rtp_end: int

    @classmethod
    def free(cls) -> PbxPorts:
        rtp = free_udp_range(RTP_RANGE, host="0.0.0.0")
        return cls(sip=free_udp_port(), http=closed_tcp_port(), rtp_start=rtp, rtp_end=rtp + RTP_RANGE - 1)


@dataclass(frozen=True)
class PbxSecrets:
    ari_password: str
    test_caller_password: str
    operator_desk_password: str

    @classmethod
    def random(cls) -> PbxSecrets:
        return cls(*(secrets.token_hex(12) for _ in range(3)))


def render_samples(ports: PbxPorts, creds: PbxSecrets) -> dict[str, str]:
    """The samples as this Asterisk runs them: file name -> text."""
    files = {p.name: p.read_text() for p in sorted(SAMPLES.glob("*.conf"))}
    files["http.conf"] = substitute(files["http.conf"], "http.conf", "general", "bindport", str(ports.http))
    files["ari.conf"] = substitute(files["ari.conf"], "ari.conf", ARI_USER, "password", creds.ari_password)
    pjsip = files["pjsip.conf"]
    pjsip = substitute(pjsip, "pjsip.conf", "ai-operator-udp", "bind", f"0.0.0.0:{ports.sip}")
    pjsip = substitute(pjsip, "pjsip.conf", "test-caller-auth", "password", creds.test_caller_password)
    pjsip = substitute(pjsip, "pjsip.conf", "operator-desk-auth", "password", creds.operator_desk_password)
    files["pjsip.conf"] = pjsip
    rtp = substitute(files["rtp.conf"], "rtp.conf", "general", "rtpstart", str(ports.rtp_start))
    files["rtp.conf"] = substitute(rtp, "rtp.conf", "general", "rtpend", str(ports.rtp_end))
    return files


def harness_files(run_dir: Path, prefix: Path) -> dict[str, str]:
    """asterisk.conf, modules.conf, logger.conf: what the host provides beside the samples."""
    dirs = {
        "astetcdir": run_dir / "etc", "astmoddir": prefix / "lib" / "asterisk" / "modules",
        "astvarlibdir": run_dir / "lib", "astdbdir": run_dir / "lib", "astkeydir": run_dir / "lib",
        "astdatadir": prefix / "var" / "lib" / "asterisk", "astagidir": run_dir / "agi",
        "astspooldir": run_dir / "spool", "astrundir": run_dir / "run", "astlogdir": run_dir / "log",
        "astsbindir": prefix / "sbin", "astcachedir": run_dir / "cache",
    }
    asterisk_conf = "[directories]\n" + "".join(f"{k} => {v}\n" for k, v in dirs.items())
    asterisk_conf += "[options]\nverbose = 3\ndebug = 0\nnocolor = yes\nhideconnect = yes\n"
    return {
        "asterisk.conf": asterisk_conf,
        "modules.conf": "[modules]\nautoload = yes\n",
        "logger.conf": "[general]\ndateformat = %F %T.%3q\n[logfiles]\nmessages => notice,warning,error,verbose\n",
    }


class Asterisk:
    """One Asterisk process. `start()` writes the configuration (once), starts it and waits until ARI answers
    and it is fully booted; `stop()` asks it to stop (`core stop now`), then SIGTERM, then SIGKILL;
    `restart()` is both, on the same ports and run dir. `cli("...")` runs `asterisk -rx`, `ari(...)` calls ARI."""

    def __init__(self, run_dir: Path, *, prefix: Path | None = None, ports: PbxPorts | None = None,
                 creds: PbxSecrets | None = None) -> None:
        self.prefix = prefix or asterisk_prefix()
        binary = asterisk_binary(self.prefix)
        if binary is None:
            raise FileNotFoundError(f"no Asterisk in {self.prefix} (run scripts/asterisk-build.sh)")
        self.binary = binary
        self.run_dir = run_dir
        self.ports = ports or PbxPorts.free()
        self.creds = creds or PbxSecrets.random()
        self.proc: subprocess.Popen[bytes] | None = None
        self._written = False

    # --- addresses ------------------------------------------------------------------------------------------
    @property
    def ari_url(self) -> str:
        return f"http://127.0.0.1:{self.ports.http}/ari"

    @property
    def conf(self) -> Path:
        return self.run_dir / "etc" / "asterisk.conf"

    @property
    def messages_log(self) -> Path:
        return self.run_dir / "log" / "messages"

    # --- life cycle -----------------------------------------------------------------------------------------
    def write_config(self) -> None:
        etc = self.run_dir / "etc"
        for sub in ("etc", "lib", "agi", "spool", "run", "log", "cache"):
            (self.run_dir / sub).mkdir(parents=True, exist_ok=True)
        for name, text in {**render_samples(self.ports, self.creds), **harness_files(self.run_dir, self.prefix)}.items():
            (etc / name).write_text(text)
        self._written = True

    def start(self, timeout: float = READY_TIMEOUT_S) -> None:
        if not self._written:
            self.write_config()
        out = open(self.run_dir / "log" / "console.log", "ab")  # noqa: SIM115 - the child holds it
        try:
            self.proc = subprocess.Popen([str(self.binary), "-f", "-C", str(self.conf)], stdin=subprocess.DEVNULL,
                                         stdout=out, stderr=subprocess.STDOUT, start_new_session=True)
        finally:
            out.close()
        self.wait_ready(timeout)

    def wait_ready(self, timeout: float = READY_TIMEOUT_S) -> None:
        """Until ARI answers 200 (it answers 404 while res_ari loads, 401 for a moment) and the core is fully
        booted."""
        deadline = time.monotonic() + timeout
        last = "no answer"
        while time.monotonic() < deadline:
            if self.proc is not None and self.proc.poll() is not None:
                raise RuntimeError(f"asterisk exited with {self.proc.returncode} while starting; see "
                                   f"{self.run_dir / 'log'}: {self.tail()}")
            try:
                self.ari("GET", "/asterisk/info", timeout=2)
                booted = self.cli("core waitfullybooted", timeout=max(1.0, deadline - time.monotonic()))
                if "fully booted" in booted.lower():
                    return
                last = booted
            except (OSError, urllib.error.URLError, subprocess.SubprocessError) as exc:
                last = str(exc)
            time.sleep(0.2)
        raise TimeoutError(f"asterisk not ready after {timeout:g} s ({last}); {self.tail()}")

    def stop(self, timeout: float = STOP_TIMEOUT_S) -> int | None:
        """Stop gracefully; returns the exit code (None if it was not running)."""
        proc, self.proc = self.proc, None
        if proc is None or proc.poll() is not None:
            return proc.returncode if proc is not None else None
        with contextlib.suppress(OSError, subprocess.SubprocessError):
            self.cli("core stop now", timeout=10)
        for sig, wait in ((None, timeout), (signal.SIGTERM, 10.0), (signal.SIGKILL, 10.0)):
            if sig is not None:
                proc.send_signal(sig)
            try:
                return proc.wait(wait)
            except subprocess.TimeoutExpired:
                continue
        return proc.returncode

    def restart(self) -> None:
        self.stop()
        self.start()

    def crash(self) -> None:
        """SIGKILL: Asterisk gone without a word (no soft hang-ups)."""
        if self.proc is not None:
            self.proc.kill()
            self.proc.wait(10)
            self.proc = None

    @property
    def running(self) -> bool:
        return self.proc is not None and self.proc.poll() is None

    # --- talking to it --------------------------------------------------------------------------------------
    def cli(self, command: str, timeout: float = 30.0) -> str:
        """`asterisk -C <conf> -rx COMMAND` over the run dir's control socket; its output."""
        done = subprocess.run([str(self.binary), "-C", str(self.conf), "-rx", command], capture_output=True,
                              timeout=timeout, check=False)
        if done.returncode != 0:
            raise subprocess.SubprocessError(f"asterisk -rx {command!r}: exit {done.returncode}: "
                                             f"{done.stderr.decode(errors='replace').strip()}")
        return done.stdout.decode(errors="replace")

    def ari(self, method: str, path: str, *, user: str = ARI_USER, password: str | None = None,
            timeout: float = 10.0) -> Any:
        """One ARI request (`path` below /ari); the decoded JSON answer (None when empty). HTTPError on >= 400."""
        token = base64.b64encode(f"{user}:{password or self.creds.ari_password}".encode()).decode()
        req = urllib.request.Request(self.ari_url + path, method=method,
                                     headers={"Authorization": f"Basic {token}"})
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            body = resp.read()
        return json.loads(body) if body else None

    def channels(self) -> list[dict[str, Any]]:
        return list(self.ari("GET", "/channels"))

    def bridges(self) -> list[dict[str, Any]]:
        return list(self.ari("GET", "/bridges"))

    def tail(self, lines: int = 30) -> str:
        for log in (self.messages_log, self.run_dir / "log" / "console.log"):
            if log.exists():
                return "\n".join(log.read_text(errors="replace").splitlines()[-lines:])
        return "(no log yet)"

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.run_dir, ignore_errors=True)


def new_run_dir() -> Path:
    """A short run dir (the control socket's path must fit a unix socket address), outside pytest's basetemp."""
    return Path(tempfile.mkdtemp(prefix="ai-ast-"))
