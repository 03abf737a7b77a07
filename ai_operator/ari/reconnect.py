"""When the ARI events websocket retries and when it gives up. Pure: no I/O, the caller passes the clock.

A failed connection attempt is one of two kinds:

- *unreachable*: refused, reset or timed out, a broken handshake, or HTTP 408, 429 or 5xx. Asterisk is down,
  restarting or busy. Always retried with backoff, without bound (the daemon waits for its PBX; systemd's
  watchdog and /healthz report it meanwhile).
- *refused*: any other 4xx. 401 means the credentials are refused; 404 means `/ari/events` is not served
  (res_ari or res_http_websocket not loaded, or a wrong ARI_URL path).

A refusal is a configuration error, raised at once with no retry loop, only while the settings are *unproven*:
no connection with these same settings (URL, user, password, app) has succeeded - neither earlier in this
process nor in an earlier run that recorded it (`proven=True`, see `ai_operator.ari.known_good`). Once proven,
a refusal is what a *starting* Asterisk answers: its HTTP server is up before res_ari is loaded (404) and
before the ARI users are read (401). It is then retried like an outage, each attempt logged, but only for
`refusal_give_up_s` in a row: an ARI that still refuses after that has really been reconfigured, and the
stream raises (401 as `AriAuthError`).
"""

from __future__ import annotations

from dataclasses import dataclass

DEFAULT_REFUSAL_GIVE_UP_S = 120.0

RETRY = "retry"
FATAL = "fatal"


def is_refusal(status: int | None) -> bool:
    """True for an HTTP status that refuses the request for what it is (4xx other than 408/429)."""
    return status is not None and 400 <= status < 500 and status not in (408, 429)


@dataclass
class ReconnectPolicy:
    """Decides, attempt by attempt, whether a failed connection is retried (see the module docstring)."""

    proven: bool = False
    refusal_give_up_s: float = DEFAULT_REFUSAL_GIVE_UP_S
    refused_since: float | None = None

    def connected(self) -> None:
        """A connection succeeded: these settings are proven; any refusal streak is over."""
        self.proven = True
        self.refused_since = None

    def failed(self, status: int | None, now: float) -> str:
        """`RETRY` or `FATAL` for one failed attempt; `status` is the HTTP status, None when unreachable."""
        if not is_refusal(status):
            self.refused_since = None
            return RETRY
        if not self.proven:
            return FATAL
        if self.refused_since is None:
            self.refused_since = now
        return FATAL if now - self.refused_since >= self.refusal_give_up_s else RETRY

    def refused_for(self, now: float) -> float:
        """Seconds the current streak of refusals has lasted (0 when there is none)."""
        return 0.0 if self.refused_since is None else now - self.refused_since


__all__ = ["DEFAULT_REFUSAL_GIVE_UP_S", "FATAL", "RETRY", "ReconnectPolicy", "is_refusal"]
