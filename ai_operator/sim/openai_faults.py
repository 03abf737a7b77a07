"""Fault injection for the local OpenAI-compatible server: how a real provider fails, per endpoint.

`Faults.set(mode, *endpoints)` makes requests to those endpoints (`transcriptions`, `speech`, `chat`, `models`,
`embeddings`; none named: all of them) fail as `mode` says until `clear()`:

- `401`: a revoked key (OpenAI's `invalid_api_key` body), `429`: rate limited (with `Retry-After`), `500`: a
  server error;
- `hang`: the request is read and never answered (until the server stops or `clear()`);
- `drop`: the connection is closed under the request, with no response at all.

`count` limits a fault to the next N matching requests. Every injected fault is counted in `injected`.
"""

from __future__ import annotations

import asyncio
from collections import Counter
from dataclasses import dataclass

from aiohttp import web

from ai_operator.sim.fake_content import error_body

MODES = ("401", "429", "500", "hang", "drop")
ENDPOINTS = {
    "transcriptions": "/v1/audio/transcriptions",
    "speech": "/v1/audio/speech",
    "chat": "/v1/chat/completions",
    "models": "/v1/models",
    "embeddings": "/v1/embeddings",
}


@dataclass
class _Rule:
    mode: str
    remaining: int | None  # None: until cleared


class Faults:
    """The server's fault table; `apply` is its one hook (called for every authenticated request)."""

    def __init__(self) -> None:
        self._rules: dict[str, _Rule] = {}
        self._released = asyncio.Event()
        self.injected: Counter[str] = Counter()  # "endpoint:mode" -> how many

    def set(self, mode: str, *endpoints: str, count: int | None = None) -> None:
        if mode not in MODES:
            raise ValueError(f"fault mode {mode!r}: expected one of {', '.join(MODES)}")
        for name in endpoints or tuple(ENDPOINTS):
            if name not in ENDPOINTS:
                raise ValueError(f"endpoint {name!r}: expected one of {', '.join(ENDPOINTS)}")
            self._rules[ENDPOINTS[name]] = _Rule(mode, count)
        self._released = asyncio.Event()

    def clear(self) -> None:
        """No more faults; hanging requests are released (they then fail with 503)."""
        self._rules.clear()
        self._released.set()

    async def apply(self, request: web.Request, stopping: asyncio.Event) -> web.StreamResponse | None:
        """The injected answer for `request`, or None to serve it normally."""
        rule = self._rules.get(request.path)
        if rule is None:
            return None
        if rule.remaining is not None:
            rule.remaining -= 1
            if rule.remaining <= 0:
                del self._rules[request.path]
        name = next(k for k, v in ENDPOINTS.items() if v == request.path)
        self.injected[f"{name}:{rule.mode}"] += 1
        if rule.mode == "401":
            return web.json_response(error_body("Incorrect API key provided: sk-rev***oked.", "invalid_request_error",
                                                "invalid_api_key"), status=401)
        if rule.mode == "429":
            return web.json_response(error_body("Rate limit reached. Please try again later.", "requests",
                                                "rate_limit_exceeded"), status=429, headers={"Retry-After": "20"})
        if rule.mode == "500":
            return web.json_response(error_body("The server had an error processing your request.", "server_error"),
                                     status=500)
        if rule.mode == "drop":
            if request.transport is not None:
                request.transport.abort()
            raise asyncio.CancelledError  # nothing is written: the client sees the connection go
        waits = [asyncio.ensure_future(e.wait()) for e in (stopping, self._released)]
        try:
            await asyncio.wait(waits, return_when=asyncio.FIRST_COMPLETED)
        finally:
            for w in waits:
                w.cancel()
        return web.json_response(error_body("Released after a hang.", "server_error"), status=503)


__all__ = ["ENDPOINTS", "MODES", "Faults"]
