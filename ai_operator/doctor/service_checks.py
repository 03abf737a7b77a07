"""Doctor checks of how systemd runs the daemon: is the unit's stop timeout long enough for a clean stop?

A stop takes up to DRAIN_TIMEOUT_S (calls in progress finish) + HANGUP_WATCHDOG_S (the closing line's CallEnd
bound) + `STOP_MARGIN_S` (teardown, records, the embedded PostgreSQL). If systemd's TimeoutStopSec is shorter, it
kills the daemon mid-goodbye. The unit's value comes from `systemctl show` when systemd runs, else from the
installed unit file.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

from ai_operator.config import Settings
from ai_operator.dialogue import CheckResult

STOP_MARGIN_S = 20.0
UNIT_NAME = "ai-operator.service"
UNIT_PATHS = (Path("/etc/systemd/system") / UNIT_NAME, Path("/lib/systemd/system") / UNIT_NAME)
SYSTEMCTL_TIMEOUT_S = 5.0
_USEC_RE = re.compile(r"^TimeoutStopUSec=(.+)$", re.M)
_UNIT_RE = re.compile(r"^\s*TimeoutStopSec\s*=\s*(\S+)", re.M)
_SPAN_RE = re.compile(r"(\d+(?:\.\d+)?)\s*(min|ms|us|s|h)?")
_UNIT_S = {"h": 3600.0, "min": 60.0, "s": 1.0, "ms": 0.001, "us": 0.000001, None: 1.0}


def needed_stop_s(settings: Settings) -> float:
    return settings.call.drain_timeout_s + settings.call.hangup_watchdog_s + STOP_MARGIN_S


def parse_timespan(text: str) -> float | None:
    """systemd's time span ("70", "1min 10s", "45s", "infinity") in seconds; None when unreadable."""
    text = text.strip()
    if text == "infinity":
        return float("inf")
    parts = _SPAN_RE.findall(text)
    if not parts or _SPAN_RE.sub("", text).strip():
        return None
    return sum(float(n) * _UNIT_S[u or None] for n, u in parts)


def unit_stop_timeout(unit_paths: tuple[Path, ...] = UNIT_PATHS) -> tuple[float, str] | None:
    """(seconds, where it was read) for the installed unit, or None when there is no unit here."""
    systemctl = shutil.which("systemctl")
    if systemctl and Path("/run/systemd/system").is_dir():
        try:
            out = subprocess.run([systemctl, "show", "-p", "TimeoutStopUSec", "-p", "LoadState", UNIT_NAME],
                                 capture_output=True, text=True, timeout=SYSTEMCTL_TIMEOUT_S, check=False).stdout
        except (OSError, subprocess.SubprocessError):
            out = ""
        m = _USEC_RE.search(out)
        if "LoadState=loaded" in out and m and (value := parse_timespan(m.group(1))) is not None:
            return value, f"systemctl show {UNIT_NAME}"
    for path in unit_paths:
        try:
            text = path.read_text()
        except OSError:
            continue
        m = _UNIT_RE.search(text)
        value = parse_timespan(m.group(1)) if m else 90.0  # systemd's DefaultTimeoutStopSec
        if value is not None:
            return value, str(path)
    return None


def stop_timeout(settings: Settings, unit_paths: tuple[Path, ...] = UNIT_PATHS) -> CheckResult:
    name = "systemd stop timeout"
    need = needed_stop_s(settings)
    found = unit_stop_timeout(unit_paths)
    budget = (f"DRAIN_TIMEOUT_S {settings.call.drain_timeout_s:g} + HANGUP_WATCHDOG_S "
              f"{settings.call.hangup_watchdog_s:g} + {STOP_MARGIN_S:g} s = {need:g} s")
    if found is None:
        return CheckResult(name, "OK", f"no {UNIT_NAME} installed here; a unit needs TimeoutStopSec >= {need:g} ({budget})")
    value, where = found
    if value < need:
        return CheckResult(name, "WARN", f"TimeoutStopSec is {value:g} s ({where}) but a clean stop can take {budget}: "
                           f"raise TimeoutStopSec to {need:g} (systemctl edit ai-operator) or lower those keys")
    return CheckResult(name, "OK", f"TimeoutStopSec {value:g} s ({where}) covers {budget}")
