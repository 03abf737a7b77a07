"""The real daemon process (`ai-operator run --env FILE`) beside the test's Asterisk.

Its env file is `etc/ai-operator.env.example` with the values that point it at that Asterisk (ARI URL and
password), free RTP and metrics ports, its own STATE_DIR (embedded PostgreSQL), STT through the local
OpenAI-compatible server, TTS espeak-ng, and a generous OVERLOAD_LAG_MS (a loaded test machine is not an
overloaded daemon). The sample knowledge base is ingested with `ai-operator kb ingest` before `run`, as README
says. Its log (JSON lines on stderr) is collected; `events(name)` parses it.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from tests.support.asterisk.pbx import ARI_USER, Asterisk
from tests.support.envfiles import example_text
from tests.support.ports import closed_tcp_port, free_udp_range
from tests.support.wait import eventually_sync

REPO = Path(__file__).resolve().parents[3]
SAMPLE_KB = REPO / "etc" / "kb" / "sample.jsonl"
RTP_PORTS = 100
READY_TIMEOUT_S = 120.0
TEST_VALUES = {
    "OVERLOAD_LAG_MS": "5000",
    "LOG_FORMAT": "json",
    "LOG_LEVEL": "info",
    "STT_PROVIDER": "openai",
    "TTS_PROVIDER": "espeak",
    "LLM_PROVIDER": "none",
    "EMBEDDING_PROVIDER": "hash",
    "STT_TIMEOUT_S": "8",
}


def daemon_env(pbx: Asterisk, state_dir: Path, openai_url: str, api_key: str, **values: str) -> str:
    """The env file's text for a daemon beside `pbx`; `values` override any key."""
    rtp = free_udp_range(RTP_PORTS)
    return example_text(**{
        "ARI_URL": pbx.ari_url, "ARI_USER": ARI_USER, "ARI_PASSWORD": pbx.creds.ari_password,
        "RTP_HOST": "127.0.0.1", "RTP_PORT_MIN": str(rtp), "RTP_PORT_MAX": str(rtp + RTP_PORTS - 1),
        "STATE_DIR": str(state_dir), "METRICS_PORT": str(closed_tcp_port()),
        "OPENAI_API_KEY": api_key, "OPENAI_BASE_URL": openai_url, **TEST_VALUES, **values,
    })


def kb_ingest(env_file: Path, kb: Path = SAMPLE_KB) -> str:
    """`ai-operator kb ingest --env FILE etc/kb/sample.jsonl`; its output (fails the test on a non-zero exit)."""
    done = subprocess.run([sys.executable, "-m", "ai_operator", "kb", "ingest", "--env", str(env_file), str(kb)],
                          capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise AssertionError(f"kb ingest exited {done.returncode}: {done.stdout}{done.stderr}")
    return done.stdout


class DaemonProcess:
    """`ai-operator run --env FILE` as a child process. `start()` waits for its `ready` log line; `stop()` sends
    SIGTERM (it drains and exits 0); `signal(SIGHUP)` reloads; `events("call_ended")` are its log lines."""

    def __init__(self, env_file: Path, *, extra_env: dict[str, str] | None = None) -> None:
        self.env_file = env_file
        self.extra_env = extra_env or {}
        self.proc: subprocess.Popen[bytes] | None = None
        self.lines: list[str] = []
        self._reader: threading.Thread | None = None
        self._lock = threading.Lock()

    def start(self, timeout: float = READY_TIMEOUT_S) -> DaemonProcess:
        self.proc = subprocess.Popen([sys.executable, "-m", "ai_operator", "run", "--env", str(self.env_file)],
                                     env={**os.environ, **self.extra_env}, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, start_new_session=True)
        self._reader = threading.Thread(target=self._read, name="daemon-log", daemon=True)
        self._reader.start()
        self.wait_event("ready", timeout=timeout)
        return self

    def _read(self) -> None:
        assert self.proc is not None and self.proc.stderr is not None
        for raw in self.proc.stderr:
            with self._lock:
                self.lines.append(raw.decode(errors="replace"))

    def events(self, name: str | None = None, **fields: Any) -> list[dict[str, Any]]:
        """Parsed JSON log lines, those with event `name` (and the given field values) if given."""
        with self._lock:
            lines = list(self.lines)
        return json_events(lines, name, **fields)

    def wait_event(self, name: str, timeout: float = 60.0, **fields: Any) -> dict[str, Any]:
        def last_found() -> dict[str, Any] | None:
            found = self.events(name, **fields)
            if found:
                return found[-1]
            if self.proc is not None and self.proc.poll() is not None:
                raise AssertionError(f"daemon exited {self.proc.returncode} before '{name}'")
            return None

        try:
            return eventually_sync(last_found, timeout, f"'{name}' {fields or ''} in the daemon's log", poll_s=0.05)
        except AssertionError as exc:  # with what the daemon said last
            raise AssertionError(f"{exc}:\n{self.tail()}") from None

    def tail(self, n: int = 40) -> str:
        with self._lock:
            return "".join(self.lines[-n:])

    def signal(self, sig: int) -> None:
        assert self.proc is not None
        self.proc.send_signal(sig)

    def stop(self, timeout: float = 90.0) -> int | None:
        """SIGTERM and wait; its exit code (SIGKILL after `timeout`)."""
        proc = self.proc
        if proc is None:
            return None
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
            try:
                proc.wait(timeout)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait(10)
        if self._reader is not None:
            self._reader.join(10)
        return proc.returncode

    @property
    def returncode(self) -> int | None:
        return self.proc.poll() if self.proc is not None else None


def json_events(lines: Iterable[str], name: str | None = None, **fields: Any) -> list[dict[str, Any]]:
    """The JSON log lines among `lines`, parsed: those with event `name` and the given field values, if given."""
    out = []
    for line in lines:
        if not line.startswith("{"):
            continue
        try:
            ev = json.loads(line)
        except ValueError:
            continue
        if (name is None or ev.get("event") == name) and all(ev.get(k) == v for k, v in fields.items()):
            out.append(ev)
    return out
