"""Thin websocket transport for ARI events (`/ari/events`), with reconnect.

`async for event in AriEventStream(...)` yields typed events. Malformed messages are logged
(`ari_event_malformed`) and skipped; unknown types are logged at debug and skipped. A lost connection is
retried with capped exponential backoff plus jitter (`ari_reconnecting` attempt=, delay_s=; each failed
attempt is `ari_connect_failed` with its reason), and `on_connect` is called with `reconnected=True` after
every re-connection so the caller can reconcile its state.

Which failures are retried is `reconnect.ReconnectPolicy`'s decision:
- connection refused/reset/timed out and HTTP 408, 429, 5xx: always retried (Asterisk down or starting);
- a refusal (401, 404 - ARI not loaded - or another 4xx) before these settings have ever worked (`proven`
  False and no connection yet): raised once, never retried in a loop - wrong password, wrong URL, res_ari
  missing;
- a refusal once the settings have worked (this stream connected before, or `proven=True` because an earlier
  run connected with the very same settings): a restarting Asterisk answers 404 for a moment between
  "connection refused" and ready, so it is retried, logged (`ari_refused_retrying`), for at most
  `refusal_give_up_s` in a row; then raised as above.
"""

from __future__ import annotations

import asyncio
import base64
import contextlib
import inspect
import random
import time
from collections.abc import AsyncIterator, Callable
from typing import Any
from urllib.parse import quote

from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

from ai_operator.ari.errors import AriAuthError, AriError, EventError
from ai_operator.ari.events import AnyEvent, UnknownEvent, parse_event
from ai_operator.ari.reconnect import DEFAULT_REFUSAL_GIVE_UP_S, FATAL, ReconnectPolicy
from ai_operator.logs import get_logger, register_secret

DEFAULT_BACKOFF_INITIAL_S = 0.5
DEFAULT_BACKOFF_MAX_S = 5.0  # a local PBX back from a restart is found within 5 s
JITTER_FRACTION = 0.25  # each delay is stretched by up to 25 %, so many daemons do not reconnect in lock-step
OPEN_TIMEOUT_S = 10.0
MAX_MESSAGE_BYTES = 4 * 1024 * 1024
log = get_logger("ari")

Callback = Callable[..., Any]


def events_url(base_url: str, app: str) -> str:
    """`http://h:p/ari` -> `ws://h:p/ari/events?app=NAME&subscribeAll=false`."""
    base = base_url.rstrip("/")
    if base.startswith("https://"):
        base = "wss://" + base[len("https://") :]
    elif base.startswith("http://"):
        base = "ws://" + base[len("http://") :]
    return f"{base}/events?app={quote(app, safe='')}&subscribeAll=false"


def backoff_delay(attempt: int, initial_s: float, max_s: float, rng: random.Random | None = None) -> float:
    """Delay before reconnect `attempt` (1-based): initial * 2^(attempt-1), capped, plus jitter, capped."""
    base = min(max_s, initial_s * (2 ** min(attempt - 1, 30)))
    jitter = (rng or random).uniform(0.0, JITTER_FRACTION) * base
    return min(max_s, base + jitter)


class AriEventStream:
    """Events of one Stasis application; iterate with `async for`. `reconnects` counts re-connections."""

    def __init__(
        self,
        base_url: str,
        user: str,
        password: str,
        app: str,
        *,
        on_connect: Callback | None = None,
        on_disconnect: Callback | None = None,
        backoff_initial_s: float = DEFAULT_BACKOFF_INITIAL_S,
        backoff_max_s: float = DEFAULT_BACKOFF_MAX_S,
        proven: bool = False,
        refusal_give_up_s: float = DEFAULT_REFUSAL_GIVE_UP_S,
    ) -> None:
        self.url = events_url(base_url, app)
        self.app = app
        register_secret(password)
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        self._headers = {"Authorization": f"Basic {token}"}
        self._on_connect = on_connect
        self._on_disconnect = on_disconnect
        self.backoff_initial_s = backoff_initial_s
        self.backoff_max_s = backoff_max_s
        self.reconnects = 0
        self.failures = 0  # failed connection attempts (retried or not)
        self.policy = ReconnectPolicy(proven=proven, refusal_give_up_s=refusal_give_up_s)
        self.connected = False
        self.malformed = 0
        self._closed = False
        self._stop = asyncio.Event()
        self._ws: ClientConnection | None = None

    def __aiter__(self) -> AsyncIterator[AnyEvent]:
        return self._run()

    async def close(self) -> None:
        """Stop the stream: the `async for` ends."""
        self._closed = True
        self._stop.set()
        if self._ws is not None:
            await self._ws.close()

    async def _run(self) -> AsyncIterator[AnyEvent]:
        attempt = 0
        ever_connected = False
        while not self._closed:
            ws = await self._connect()
            if ws is not None:
                attempt = 0
                self.policy.connected()
                self._ws = ws
                self.connected = True
                if ever_connected:
                    self.reconnects += 1
                log.info("ari_connected", app=self.app, reconnected=ever_connected)
                try:
                    try:
                        await _call(self._on_connect, ever_connected)
                    except Exception as exc:  # a failed reconcile must not kill the event stream
                        log.error("ari_on_connect_failed", app=self.app, error=str(exc) or type(exc).__name__)
                    ever_connected = True
                    async for message in ws:
                        event = self._parse(message)
                        if event is not None:
                            yield event
                except ConnectionClosed:
                    pass
                finally:
                    self._ws = None
                    self.connected = False
                    await ws.close()
                if self._closed:
                    return
                log.warning("ari_disconnected", app=self.app)
                try:
                    await _call(self._on_disconnect)
                except Exception as exc:
                    log.error("ari_on_disconnect_failed", app=self.app, error=str(exc) or type(exc).__name__)
            attempt += 1
            delay = backoff_delay(attempt, self.backoff_initial_s, self.backoff_max_s)
            log.info("ari_reconnecting", app=self.app, attempt=attempt, delay_s=round(delay, 3))
            with contextlib.suppress(asyncio.TimeoutError):
                await asyncio.wait_for(self._stop.wait(), delay)

    async def _connect(self) -> ClientConnection | None:
        """One connection attempt: the connection, None on a failure to retry, or a raised fatal error."""
        try:
            return await connect(
                self.url,
                additional_headers=self._headers,
                open_timeout=OPEN_TIMEOUT_S,
                max_size=MAX_MESSAGE_BYTES,
            )
        except InvalidStatus as exc:
            self._failed(exc.response.status_code, f"HTTP {exc.response.status_code}")
        except (TimeoutError, OSError, InvalidHandshake) as exc:
            self._failed(None, str(exc) or type(exc).__name__)
        return None

    def _failed(self, status: int | None, reason: str) -> None:
        """Log one failed attempt; raise when the policy says it is fatal."""
        self.failures += 1
        now = time.monotonic()
        if self.policy.failed(status, now) == FATAL:
            give_up = self.policy.refused_for(now)
            after = f" for {give_up:.0f} s after having worked" if give_up else ""
            if status == 401:
                raise AriAuthError("GET", "/events", f"Authentication required{after}") from None
            raise AriError(
                f"ARI events websocket {self.url} refused with HTTP {status}{after}: check ARI_URL and that "
                "res_ari and res_http_websocket are loaded (module show like res_ari)"
            ) from None
        if self.policy.refused_since is not None:
            log.warning("ari_refused_retrying", app=self.app, reason=reason,
                        refused_for_s=round(self.policy.refused_for(now), 2),
                        give_up_after_s=self.policy.refusal_give_up_s)
        else:
            log.warning("ari_connect_failed", app=self.app, reason=reason)

    def _parse(self, message: str | bytes) -> AnyEvent | None:
        try:
            event = parse_event(message)
        except EventError as exc:
            self.malformed += 1
            log.warning("ari_event_malformed", type=exc.event_type, field=exc.field, reason=exc.reason)
            return None
        if isinstance(event, UnknownEvent):
            log.debug("ari_event_unknown", type=event.type)
            return None
        return event


async def _call(callback: Callback | None, *args: Any) -> None:
    if callback is None:
        return
    result = callback(*args)
    if inspect.isawaitable(result):
        await result


__all__ = ["AriEventStream", "backoff_delay", "events_url"]
