"""The simulated PBX's HTTP pieces that are not routing: one events-websocket client (a queue and a writer task
that keep every event in order, with `flush` for a clean shutdown) and the answer Asterisk's HTTP server gives
for /ari while ARI is still starting (404 before res_ari is loaded).
"""

from __future__ import annotations

import asyncio
import contextlib

from aiohttp import web

SHUTDOWN_TIMEOUT_S = 0.5


class EventClient:
    """One events websocket: a queue and a writer task keep every event in order."""

    def __init__(self, ws: web.WebSocketResponse, request: web.Request, apps: list[str]) -> None:
        self.ws = ws
        self.request = request
        self.apps = apps
        self.queue: asyncio.Queue[str | asyncio.Future[None]] = asyncio.Queue()
        self.task = asyncio.get_running_loop().create_task(self._write())

    async def _write(self) -> None:
        with contextlib.suppress(ConnectionError, RuntimeError, asyncio.CancelledError):
            while True:
                item = await self.queue.get()
                if isinstance(item, asyncio.Future):  # flush(): everything queued before it has been sent
                    if not item.done():
                        item.set_result(None)
                    continue
                await self.ws.send_str(item)

    async def flush(self, timeout: float = SHUTDOWN_TIMEOUT_S) -> None:
        """Until every event queued so far is written (or the connection is gone)."""
        done: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.queue.put_nowait(done)
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.shield(done), timeout)

    def abort(self) -> None:
        self.task.cancel()
        transport = self.request.transport
        if transport is not None:
            transport.abort()


def starting_answer(status: int) -> web.Response:
    """What Asterisk's HTTP server answers for /ari while starting (its plain HTML error page)."""
    reason = {401: "Unauthorized", 404: "Not Found", 503: "Service Unavailable"}.get(status, "Error")
    body = f"<!DOCTYPE HTML PUBLIC><html><head><title>{status} {reason}</title></head><body><h1>{reason}</h1></body></html>"
    headers = {"WWW-Authenticate": 'Basic realm="Asterisk REST Interface"'} if status == 401 else None
    return web.Response(status=status, text=body, content_type="text/html", headers=headers)
