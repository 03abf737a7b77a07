"""The OpenAI client plumbing shared by STT, TTS, the chat model and embeddings: client construction, kept-alive
connections, error wording, the retry test.

Connections: a real provider charges every new connection a TCP and a TLS handshake (2-3 round trips, 50-150 ms
to a nearby region) before the request can be sent. httpx closes an idle connection after 5 s by default, and a
phone call's turns are 5-15 s apart, so most turns would pay it. A client here keeps idle connections for
`KEEPALIVE_EXPIRY_S` (2 minutes: longer than any turn gap, shorter than the idle limits of the networks between
us and a provider - Cloudflare, in front of api.openai.com, closes idle HTTP/1.1 connections after 400 s; cloud
NAT gateways and load balancers drop idle TCP flows silently after 240-350 s, which would make a kept connection
hang rather than fail). `warm(client)` makes a connection ahead of need when the client has none kept (never
used, or idle longer than that): a free `GET /models` in the background (no model is run, nothing is billed),
started when the caller starts speaking, so the turn's request finds the connection ready.

An error message names the provider and what failed (timeout, HTTP status, connection, bad response) and never
carries an API key: the key and anything shaped like one are scrubbed from upstream text.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
import weakref

import openai
from openai._constants import DEFAULT_CONNECTION_LIMITS

from ai_operator.logs import redact, register_secret

KEY_SHAPE_RE = re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9_\-*]{6,}")
MAX_UPSTREAM_MESSAGE = 200
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})
KEEPALIVE_EXPIRY_S = 120.0  # an idle connection is kept this long (httpx's default: 5 s; see the docstring)
MAX_CONNECTIONS, MAX_KEEPALIVE_CONNECTIONS = 1000, 100  # the openai SDK's own limits, kept
WARM_TIMEOUT_S = 5.0  # a warming request gives up after this (the turn's own request then connects itself)


class KeptConnections:
    """When a client last used its connections (a request sent or answered): they are kept `KEEPALIVE_EXPIRY_S`
    after that."""

    def __init__(self) -> None:
        self.last_active: float | None = None
        self.warming: asyncio.Task[None] | None = None
        self.warmed = 0  # warming requests made

    async def note(self, _message: object) -> None:
        self.last_active = time.monotonic()

    def idle(self, now: float) -> bool:
        """No connection is kept: never used, or idle past the expiry."""
        return self.last_active is None or now - self.last_active >= KEEPALIVE_EXPIRY_S


_KEPT: weakref.WeakKeyDictionary[openai.AsyncOpenAI, KeptConnections] = weakref.WeakKeyDictionary()


def scrub(text: str, api_key: str | None = None) -> str:
    """Remove the API key (and anything key-shaped) from `text`."""
    if api_key:
        text = text.replace(api_key, "***")
    text = KEY_SHAPE_RE.sub("***", text)
    return redact(text)


def make_client(*, api_key: str, base_url: str | None, timeout_s: float) -> openai.AsyncOpenAI:
    """An AsyncOpenAI client with the SDK's own retries off (callers bound retries and total time themselves)."""
    register_secret(api_key)
    kept = KeptConnections()
    # the SDK's own HTTP library's Limits (httpx or httpx2, whichever this openai release is built on)
    limits = type(DEFAULT_CONNECTION_LIMITS)(max_connections=MAX_CONNECTIONS, keepalive_expiry=KEEPALIVE_EXPIRY_S,
                                             max_keepalive_connections=MAX_KEEPALIVE_CONNECTIONS)
    http_client = openai.DefaultAsyncHttpxClient(limits=limits, event_hooks={"request": [kept.note],
                                                                             "response": [kept.note]})
    kwargs: dict[str, object] = {"api_key": api_key or "unset", "timeout": timeout_s, "max_retries": 0,
                                 "http_client": http_client}
    if base_url:
        kwargs["base_url"] = base_url
    client = openai.AsyncOpenAI(**kwargs)  # type: ignore[arg-type]
    _KEPT[client] = kept
    return client


def kept_connections(client: openai.AsyncOpenAI) -> KeptConnections | None:
    return _KEPT.get(client)


def warm(client: openai.AsyncOpenAI) -> bool:
    """Start making a connection for `client` when it has none kept (see the module's docstring); True when a
    warming request was started. Its failure is ignored: the next real request connects (and fails) itself."""
    kept = _KEPT.get(client)
    if kept is None or (kept.warming is not None and not kept.warming.done()) or not kept.idle(time.monotonic()):
        return False
    kept.warmed += 1
    kept.warming = asyncio.get_running_loop().create_task(_warm(client))
    return True


async def _warm(client: openai.AsyncOpenAI) -> None:
    with contextlib.suppress(Exception):
        await client.with_options(timeout=WARM_TIMEOUT_S).models.list()


def describe_failure(exc: BaseException, api_key: str | None = None) -> str:
    """A short, key-free description of what went wrong with an OpenAI call."""
    if isinstance(exc, TimeoutError | openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIStatusError):
        detail = ""
        body = exc.body
        if isinstance(body, dict):
            err = body.get("error", body)
            if isinstance(err, dict) and err.get("message"):
                detail = str(err["message"])[:MAX_UPSTREAM_MESSAGE]
        text = f"HTTP {exc.status_code}" + (f": {detail}" if detail else "")
        return scrub(text, api_key)
    if isinstance(exc, openai.APIConnectionError):
        return "connection failed"
    if isinstance(
        exc, openai.APIResponseValidationError | ValueError | KeyError | TypeError | AttributeError
    ):
        return scrub(f"bad response ({type(exc).__name__}: {str(exc)[:MAX_UPSTREAM_MESSAGE]})", api_key)
    return scrub(f"{type(exc).__name__}: {str(exc)[:MAX_UPSTREAM_MESSAGE]}", api_key)


def is_retryable(exc: BaseException) -> bool:
    """Timeouts, connection failures and 408/409/429/5xx are worth another attempt; other 4xx are not."""
    if isinstance(exc, TimeoutError | openai.APITimeoutError | openai.APIConnectionError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS
    return False
