"""The metrics HTTP server (aiohttp): `GET /metrics` (Prometheus text 0.0.4) and `GET /healthz`.

`health()` is the daemon's callable returning a dict; it must carry `ari_connected` (bool) and
`database_ok` (bool) and may carry anything else JSON-serialisable (calls_active, draining, ...), which is
echoed. `/healthz` answers 200 `{"status": "ok", ...}` when both are true, else 503
`{"status": "unhealthy", "reasons": [...], ...}`. A report whose `degraded` list is not empty (a speech or model
provider failing or its breaker open) answers 200 `{"status": "degraded", "reasons": [...]}`: the daemon still
answers every call with its fallbacks, so it is not dead and must not be restarted or taken out for it (a
restart does not mend a revoked key); monitoring alerts on the status. `health` may also be an async callable.
Bind to 127.0.0.1 by default; port 0 picks an ephemeral port, readable as `.port` after `start()`. The page is
formatted a part at a time (`Metrics.render_parts`), one event-loop step each: the loop also paces every call's
audio, and the whole page at once held it 5-10 ms.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

from aiohttp import web

from ai_operator.logs import get_logger
from ai_operator.ops.metrics import CONTENT_TYPE, Metrics

log = get_logger("metrics_http")

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 9464

HealthFn = Callable[[], dict[str, Any] | Awaitable[dict[str, Any]]]


def evaluate_health(report: dict[str, Any]) -> tuple[bool, list[str]]:
    """(healthy, reasons) for a health report: ARI must be connected and the database reachable."""
    reasons: list[str] = []
    if report.get("ari_connected") is not True:
        reasons.append("ari_disconnected")
    if report.get("database_ok") is not True:
        reasons.append("database_unreachable")
    return (not reasons, reasons)


class MetricsServer:
    """Serves /metrics and /healthz. `start()` binds; `stop()` closes; `port` is the bound port."""

    def __init__(
        self,
        metrics: Metrics,
        host: str = DEFAULT_HOST,
        port: int = DEFAULT_PORT,
        health: HealthFn | None = None,
    ) -> None:
        self.metrics = metrics
        self.host = host
        self.port = port
        self._health = health
        self._runner: web.AppRunner | None = None

    def make_app(self) -> web.Application:
        app = web.Application()
        app.router.add_get("/metrics", self._handle_metrics)
        app.router.add_get("/healthz", self._handle_healthz)
        return app

    async def start(self) -> None:
        """Bind and serve; raises OSError (naming host:port) when the address is taken."""
        if self._runner is not None:
            return
        runner = web.AppRunner(self.make_app(), access_log=None)
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port)
        try:
            await site.start()
        except OSError as exc:
            await runner.cleanup()
            raise OSError(
                exc.errno, f"metrics server cannot bind {self.host}:{self.port}: {exc.strerror}"
            ) from exc
        self._runner = runner
        server = site._server  # aiohttp exposes no public accessor for the bound sockets
        sockets = getattr(server, "sockets", None) or []
        if sockets:
            self.port = sockets[0].getsockname()[1]
        log.info("metrics_server_started", host=self.host, port=self.port)

    async def stop(self) -> None:
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None
            log.info("metrics_server_stopped", host=self.host, port=self.port)

    @property
    def url(self) -> str:
        return f"http://{self.host}:{self.port}"

    async def _handle_metrics(self, _request: web.Request) -> web.Response:
        parts = []
        for part in self.metrics.render_parts():  # a part per loop step: a scrape never holds up the pacer's tick
            parts.append(part)
            await asyncio.sleep(0)
        return web.Response(body=b"".join(parts), headers={"Content-Type": CONTENT_TYPE})

    async def _handle_healthz(self, _request: web.Request) -> web.Response:
        report: dict[str, Any]
        if self._health is None:
            report = {}
        else:
            try:
                value = self._health()
                report = dict(await value) if inspect.isawaitable(value) else dict(value)
            except Exception as exc:
                log.warning("healthz_check_failed", error=repr(exc))
                return web.json_response(
                    {"status": "unhealthy", "reasons": [f"health_check_error: {exc}"]}, status=503
                )
        healthy, reasons = evaluate_health(report)
        degraded = [str(r) for r in report.pop("degraded", None) or []]
        body = {**report, "status": "ok" if healthy else "unhealthy"}
        if not healthy:
            body["reasons"] = reasons + degraded
        elif degraded:
            body["status"], body["reasons"] = "degraded", degraded
        return web.json_response(body, status=200 if healthy else 503)


__all__ = ["DEFAULT_HOST", "DEFAULT_PORT", "MetricsServer", "evaluate_health"]
