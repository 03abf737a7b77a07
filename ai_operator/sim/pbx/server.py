"""`SimulatedPbx`: an Asterisk 22 double on 127.0.0.1 speaking real ARI (REST + `/ari/events` websocket) and
real RTP. Thin HTTP layer over `core.PbxCore`: authentication (basic or `api_key`), request recording,
parameter validation (`params.py`), JSON responses with Asterisk's error messages, and event delivery.
"""

from __future__ import annotations

import asyncio
import base64
import binascii
import contextlib
import json
from collections.abc import Sequence
from typing import Any

from aiohttp import web

from ai_operator.logs import get_logger
from ai_operator.sim.pbx.call import SimCall
from ai_operator.sim.pbx.clients import SHUTDOWN_TIMEOUT_S, EventClient, starting_answer
from ai_operator.sim.pbx.core import PbxCore, SimHttpError
from ai_operator.sim.pbx.params import AUTH_PARAM, ParamError, match_route, validate
from ai_operator.sim.pbx.state import API_VERSION, ASTERISK_ID, ASTERISK_VERSION, event, now_ari

ARI_PREFIX = "/ari"
RESOURCES = ("asterisk", "endpoints", "channels", "bridges", "recordings", "sounds", "playbacks",
             "deviceStates", "mailboxes", "events", "applications")  # fmt: skip
log = get_logger("simpbx")


class SimulatedPbx(PbxCore):
    """See the module docstring; `start()` returns the ARI base URL."""

    def __init__(
        self,
        *,
        user: str = "asterisk",
        password: str = "asterisk",
        host: str = "127.0.0.1",
        port: int = 0,
        stasis_delay_s: float = 0.01,
    ) -> None:
        super().__init__(stasis_delay_s=stasis_delay_s, rtp_host=host)
        self.user = user
        self.password = password
        self.host = host
        self.port = port
        self.requests: list[tuple[str, str, dict[str, str], Any]] = []
        self.apps: set[str] = set()  # applications ever registered by a websocket
        self._clients: dict[str, EventClient] = {}
        self._all_clients: set[EventClient] = set()
        self._runner: web.AppRunner | None = None
        self.auth_failures = 0
        # While Asterisk starts, its HTTP server answers before ARI is ready: every /ari request then gets this
        # status (404 until res_ari is loaded). None = ready. `starting_answers` counts those answers.
        self.starting_status: int | None = None
        self.starting_answers = 0

    @property
    def base_url(self) -> str:
        return f"http://{self.host}:{self.port}{ARI_PREFIX}"

    # -- lifecycle -------------------------------------------------------------------------------------
    async def start(self) -> str:
        app = web.Application()
        app.router.add_route("*", ARI_PREFIX + "/{tail:.*}", self._dispatch)
        runner = web.AppRunner(
            app, handle_signals=False, shutdown_timeout=SHUTDOWN_TIMEOUT_S, access_log=None
        )
        await runner.setup()
        site = web.TCPSite(runner, self.host, self.port, reuse_address=True)
        await site.start()
        self._runner = runner
        self.port = site._server.sockets[0].getsockname()[1]  # type: ignore[union-attr]
        self.pacer.start()
        log.info("simpbx_started", url=self.base_url)
        return self.base_url

    async def _stop_http(self) -> None:
        for client in list(self._all_clients):
            client.abort()
        self._all_clients.clear()
        self._clients.clear()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def stop(self) -> None:
        await self._stop_http()
        await self.pacer.stop()
        self.vanish_all()
        for fut in self._originate_waiters:
            fut.cancel()
        self._originate_waiters.clear()

    async def restart(
        self, down_s: float = 0.5, *, graceful: bool = False, starting: Sequence[tuple[int, float]] = ()
    ) -> None:
        """Asterisk restarts: `go_down(graceful)`, connections refused for `down_s`, then for each
        (status, seconds) of `starting` HTTP is up but every ARI request answers `status`, then ARI is ready."""
        await self.go_down(graceful=graceful)
        await asyncio.sleep(down_s)
        for status, seconds in starting:
            await self.come_up(starting_status=status)
            await asyncio.sleep(seconds)
        await self.come_up()

    async def go_down(self, *, graceful: bool = False) -> None:
        """Asterisk stops. A crash (default): every channel and bridge vanishes with no event. `graceful`
        (`core stop|restart now`): every channel is hung up - ChannelHangupRequest(soft, cause 4 = shutdown),
        StasisEnd, ChannelDestroyed - and those events are delivered before the websockets close. Afterwards
        connections are refused."""
        if graceful:
            self.hang_up_all_for_shutdown()
            clients = list(self._all_clients)
            await asyncio.gather(*(client.flush() for client in clients))
            with contextlib.suppress(TimeoutError):  # a clean close: nothing written is lost to an abort
                await asyncio.wait_for(asyncio.gather(*(c.ws.close() for c in clients), return_exceptions=True),
                                       SHUTDOWN_TIMEOUT_S)
        self.vanish_all()
        await self._stop_http()

    async def come_up(self, *, starting_status: int | None = None) -> None:
        """Asterisk's HTTP server is up again (same port). With `starting_status`, ARI is not ready yet: every
        /ari request answers that status (404 while res_ari is not loaded) until `starting_status` is set to
        None."""
        self.starting_status = starting_status
        if self._runner is None:
            await self.start()

    async def drop_websockets(self) -> None:
        """A network blip: every events websocket is cut (clients reconnect)."""
        for client in list(self._all_clients):
            client.abort()
        await asyncio.sleep(0)

    def vanish_all(self) -> None:
        """An Asterisk restart: every channel and bridge disappears without a single event."""
        self.cancel_timers()
        for ch in list(self.channels.values()):
            self._forget(ch)
            if ch.call is not None:
                ch.call.mark_ended("hungup", None)
        self.channels.clear()
        self.bridges.clear()
        self.pacer.active.clear()

    # -- test driving ----------------------------------------------------------------------------------
    async def place_call(
        self,
        route: str,
        *,
        app: str = "ai-operator",
        caller_number: str = "+77010000001",
        codec: str | None = None,
        then: tuple[str, ...] = (),
    ) -> SimCall:
        """An inbound call: a ringing PJSIP channel enters Stasis(app, route); `then`: the dialplan split's next
        apps, each tried in turn when the one before sends the call back (`continue` to the next priority)."""
        if app not in self._clients:
            raise RuntimeError(f"no websocket is subscribed to application {app!r}: Stasis would fail")
        return self.new_inbound(route, app, caller_number, codec, then)

    def app_registered(self, app: str) -> bool:
        return app in self._clients

    def expect_originate(self) -> asyncio.Future[SimCall]:
        """A future resolved with the SimCall of the next originated channel once it enters Stasis."""
        fut: asyncio.Future[SimCall] = asyncio.get_running_loop().create_future()
        self._originate_waiters.append(fut)
        return fut

    def emit(self, app: str, payload: dict[str, Any]) -> None:
        self.send_raw_event(app, json.dumps(payload))

    def send_raw_event(self, app: str, text: str) -> None:
        """Put any text on the app's events websocket (tests use it for malformed events)."""
        client = self._clients.get(app)
        if client is not None:
            client.queue.put_nowait(text)

    # -- HTTP ------------------------------------------------------------------------------------------
    def _authorized(self, request: web.Request) -> bool:
        key = request.query.get(AUTH_PARAM)
        if key is not None:
            return key == f"{self.user}:{self.password}"
        header = request.headers.get("Authorization", "")
        if not header.startswith("Basic "):
            return False
        try:
            decoded = base64.b64decode(header[6:], validate=True).decode()
        except (binascii.Error, UnicodeDecodeError):
            return False
        return decoded == f"{self.user}:{self.password}"

    async def _dispatch(self, request: web.Request) -> web.StreamResponse:
        path = "/" + request.match_info["tail"]
        if self.starting_status is not None:
            self.starting_answers += 1
            return starting_answer(self.starting_status)
        if not self._authorized(request):
            self.auth_failures += 1
            return _error(
                401, "Authentication required", {"WWW-Authenticate": 'Basic realm="Asterisk REST Interface"'}
            )
        query = {k: v for k, v in request.query.items() if k != AUTH_PARAM}
        body: Any = None
        if request.can_read_body:
            raw = await request.read()
            if raw.strip():
                try:
                    body = json.loads(raw)
                except ValueError:
                    return _error(400, "Invalid JSON body")
        self.requests.append((request.method, path, query, body))
        found = match_route(request.method, path)
        if found is None:
            return _error(404, "Resource not found")
        route, path_params = found
        try:
            params = validate(route, query, body)
        except ParamError as exc:
            return _error(400, str(exc))
        variables = (body or {}).get("variables") or {}
        try:
            return await self._handle(route.name, request, path_params, params, variables)
        except SimHttpError as exc:
            return _error(exc.status, exc.message)

    async def _handle(
        self,
        name: str,
        request: web.Request,
        pp: dict[str, str],
        q: dict[str, Any],
        variables: dict[str, str],
    ) -> web.StreamResponse:
        cid = pp.get("channelId", "")
        if name == "events":
            return await self._websocket(request, q["app"])
        if name == "list_channels":
            return web.json_response([c.to_json() for c in self.channels.values()])
        if name == "get_channel":
            return web.json_response(self.channel(cid).to_json())
        if name == "originate":
            return web.json_response(self.op_originate(q, variables).to_json())
        if name == "external_media":
            return web.json_response((await self.op_external_media(q, variables)).to_json())
        if name == "hangup":
            self.op_hangup(cid, q.get("reason"), q.get("reason_code"))
        elif name == "answer":
            self.op_answer(cid)
        elif name == "continue":
            self.op_continue(cid, q)
        elif name == "redirect":
            self.op_redirect(cid, q["endpoint"])
        elif name == "get_var":
            return web.json_response(self.op_get_var(cid, q["variable"]))
        elif name == "set_var":
            self.op_set_var(cid, q["variable"], q.get("value", ""))
        elif name == "list_bridges":
            return web.json_response([b.to_json() for b in self.bridges.values()])
        elif name == "create_bridge":
            return web.json_response(self.op_create_bridge(self._default_app(), q).to_json())
        elif name == "get_bridge":
            return web.json_response(self.bridge(pp["bridgeId"]).to_json())
        elif name == "destroy_bridge":
            self.op_destroy_bridge(pp["bridgeId"])
        elif name == "add_channel":
            self.op_add_channel(pp["bridgeId"], q["channel"])
        elif name == "remove_channel":
            self.op_remove_channel(pp["bridgeId"], q["channel"])
        else:
            return self._handle_system(name, pp, q)
        return web.Response(status=204)

    def _handle_system(self, name: str, pp: dict[str, str], q: dict[str, Any]) -> web.StreamResponse:
        if name == "info":
            info = self._asterisk_info()
            only = q.get("only")
            return web.json_response({k: v for k, v in info.items() if not only or k in only})
        if name == "ping":
            return web.json_response({"asterisk_id": ASTERISK_ID, "ping": "pong", "timestamp": now_ari()})
        if name == "list_apps":
            return web.json_response([self._application(a) for a in sorted(self.apps)])
        if name == "get_app":
            if pp["applicationName"] not in self.apps:
                raise SimHttpError(404, "Application does not exist.")
            return web.json_response(self._application(pp["applicationName"]))
        if name == "resources":
            apis = [{"path": f"/api-docs/{r}.{{format}}", "description": f"{r} resources"} for r in RESOURCES]
            return web.json_response(
                {"apiVersion": API_VERSION, "swaggerVersion": "1.1", "basePath": self.base_url, "apis": apis}
            )
        if name == "api_doc":
            resource = pp["resource"].removesuffix(".json")
            if resource not in RESOURCES or not pp["resource"].endswith(".json"):
                raise SimHttpError(404, "Resource not found")
            return web.json_response(
                {
                    "apiVersion": "2.0.0",
                    "swaggerVersion": "1.1",
                    "basePath": self.base_url,
                    "resourcePath": f"/api-docs/{resource}.{{format}}",
                    "apis": [],
                    "models": {},
                }
            )
        raise SimHttpError(404, "Resource not found")  # pragma: no cover - every route is handled above

    def _default_app(self) -> str:
        return next(iter(self._clients), "ai-operator")

    def _application(self, app: str) -> dict[str, Any]:
        return {
            "name": app,
            "channel_ids": [c.id for c in self.channels.values() if c.app == app and c.in_stasis],
            "bridge_ids": [b.id for b in self.bridges.values() if b.app == app],
            "endpoint_ids": [],
            "device_names": [],
            "events_allowed": [],
            "events_disallowed": [],
        }

    def _asterisk_info(self) -> dict[str, Any]:
        return {
            "build": {
                "os": "Linux",
                "kernel": "6.1.0",
                "options": "",
                "machine": "x86_64",
                "date": "2026-01-01",
                "user": "simpbx",
            },
            "system": {"version": ASTERISK_VERSION, "entity_id": ASTERISK_ID},
            "config": {
                "name": "simpbx",
                "default_language": "en",
                "setid": {"user": "asterisk", "group": "asterisk"},
            },
            "status": {"startup_time": now_ari(), "last_reload_time": now_ari()},
        }

    async def _websocket(self, request: web.Request, apps: list[str]) -> web.StreamResponse:
        ws = web.WebSocketResponse(protocols=("ari",), heartbeat=None)
        await ws.prepare(request)
        client = EventClient(ws, request, apps)
        self._all_clients.add(client)
        for app in apps:
            old = self._clients.get(app)
            if old is not None and old is not client:
                old.queue.put_nowait(json.dumps(event("ApplicationReplaced", app)))
            self._clients[app] = client
            self.apps.add(app)
        log.info("simpbx_ws_connected", apps=",".join(apps))
        try:
            async for _ in ws:
                pass
        finally:
            client.task.cancel()
            self._all_clients.discard(client)
            for app in apps:
                if self._clients.get(app) is client:
                    del self._clients[app]
        return ws


def _error(status: int, message: str, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response({"message": message}, status=status, headers=headers)


async def serve_forever(host: str, port: int, user: str, password: str) -> None:
    """`ai-operator simpbx`: run the simulated PBX until cancelled."""
    pbx = SimulatedPbx(user=user, password=password, host=host, port=port)
    url = await pbx.start()
    log.info("simpbx_ready", url=url, user=user)
    try:
        await asyncio.Event().wait()
    finally:
        await pbx.stop()
