"""systemd service notification (`sd_notify`): the NOTIFY_SOCKET datagram protocol, no extra dependency.

The unit is `Type=notify` with `WatchdogSec=`: the daemon says `READY=1` once ARI is connected, pings
`WATCHDOG=1` while healthy (every `watchdog_interval_s()`), says `RELOADING=1` on SIGHUP and `STOPPING=1` on
drain. When NOTIFY_SOCKET is unset (a terminal, tests, CI) every call is a silent no-op.

Abstract sockets (`@name`) are supported. A send failure is logged once and never raised: the daemon must
not die because systemd went away.
"""

from __future__ import annotations

import asyncio
import os
import socket
import time
from collections.abc import Callable, Mapping

from ai_operator.logs import get_logger

log = get_logger("sdnotify")

NOTIFY_SOCKET_ENV = "NOTIFY_SOCKET"
WATCHDOG_USEC_ENV = "WATCHDOG_USEC"
WATCHDOG_PID_ENV = "WATCHDOG_PID"
# Ping at half the watchdog period, as sd_watchdog_enabled(3) recommends.
WATCHDOG_PING_FRACTION = 0.5
MAX_STATUS_CHARS = 200


def _socket_address(raw: str) -> str | bytes:
    """`@name` is an abstract socket (leading NUL byte on Linux); anything else is a path."""
    if raw.startswith("@"):
        return b"\0" + raw[1:].encode()
    return raw


class Notifier:
    """Sends state lines to systemd. Build it with `Notifier.from_env()`."""

    def __init__(self, address: str | None, watchdog_usec: int | None = None) -> None:
        self.address = address or None
        self._watchdog_usec = watchdog_usec if watchdog_usec and watchdog_usec > 0 else None
        self._sock: socket.socket | None = None
        self._warned = False

    @classmethod
    def from_env(cls, environ: Mapping[str, str] | None = None) -> Notifier:
        """Read NOTIFY_SOCKET, WATCHDOG_USEC and WATCHDOG_PID (the watchdog applies only to our own pid)."""
        env = os.environ if environ is None else environ
        address = env.get(NOTIFY_SOCKET_ENV, "").strip() or None
        usec: int | None = None
        raw_usec = env.get(WATCHDOG_USEC_ENV, "").strip()
        raw_pid = env.get(WATCHDOG_PID_ENV, "").strip()
        if raw_usec:
            try:
                usec = int(raw_usec)
            except ValueError:
                log.warning("sdnotify_bad_watchdog_usec", value=raw_usec)
                usec = None
            if raw_pid:
                try:
                    if int(raw_pid) != os.getpid():
                        usec = None
                except ValueError:
                    log.warning("sdnotify_bad_watchdog_pid", value=raw_pid)
                    usec = None
        return cls(address, usec)

    @property
    def enabled(self) -> bool:
        """True when there is a NOTIFY_SOCKET to talk to."""
        return self.address is not None

    def watchdog_interval_s(self) -> float | None:
        """How often to call `watchdog()` (half of WatchdogSec), or None when no watchdog is armed."""
        if self._watchdog_usec is None:
            return None
        return self._watchdog_usec / 1_000_000 * WATCHDOG_PING_FRACTION

    def notify(self, message: str) -> bool:
        """Send one raw state message (`KEY=value` lines). True when sent; False when disabled or failed."""
        if self.address is None:
            return False
        try:
            if self._sock is None:
                self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            self._sock.sendto(message.encode(), _socket_address(self.address))
            return True
        except OSError as exc:
            if not self._warned:
                log.warning("sdnotify_send_failed", address=self.address, error=str(exc))
                self._warned = True
            return False

    def ready(self, status: str | None = None) -> bool:
        """READY=1 (the unit becomes active), optionally with a STATUS line."""
        return self.notify(self._with_status("READY=1", status))

    def reloading(self) -> bool:
        """RELOADING=1 with MONOTONIC_USEC (as systemd >= 253 `Type=notify-reload` expects); send `ready()` after."""
        usec = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        return self.notify(f"RELOADING=1\nMONOTONIC_USEC={usec}")

    def stopping(self, status: str | None = None) -> bool:
        """STOPPING=1: the drain has begun."""
        return self.notify(self._with_status("STOPPING=1", status))

    def status(self, text: str) -> bool:
        """STATUS=<text>, shown by `systemctl status` (one line, trimmed)."""
        return self.notify(f"STATUS={_one_line(text)}")

    def watchdog(self) -> bool:
        """WATCHDOG=1: we are alive and healthy."""
        return self.notify("WATCHDOG=1")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    @staticmethod
    def _with_status(head: str, status: str | None) -> str:
        return f"{head}\nSTATUS={_one_line(status)}" if status else head


def _one_line(text: str) -> str:
    return " ".join(text.split())[:MAX_STATUS_CHARS]


async def watchdog_loop(notifier: Notifier, healthy: Callable[[], bool]) -> None:
    """Ping `WATCHDOG=1` every `watchdog_interval_s()` while `healthy()` is true; returns at once when no
    watchdog is armed. When unhealthy it skips the ping (systemd then restarts us after WatchdogSec).
    Cancel the task to stop it."""
    interval = notifier.watchdog_interval_s()
    if interval is None or not notifier.enabled:
        return
    was_healthy = True
    while True:
        ok = healthy()
        if ok:
            notifier.watchdog()
        elif was_healthy:
            log.warning("sdnotify_watchdog_withheld", reason="unhealthy")
        was_healthy = ok
        await asyncio.sleep(interval)


__all__ = ["Notifier", "watchdog_loop"]
