"""The simulated PBX's call logic: what each ARI operation does to channels and bridges, and which events it
emits (in Asterisk's order). No HTTP here: `server.py` maps requests onto these methods; failures are raised as
`SimHttpError(status, message)` with Asterisk's own messages.
"""

from __future__ import annotations

import asyncio
from collections import deque
from typing import Any

from ai_operator.ari.hangups import SOFTHANGUP_EXPLICIT, SOFTHANGUP_SHUTDOWN
from ai_operator.sim.pbx.bridging import BridgeOps, SimHttpError
from ai_operator.sim.pbx.call import SimCall
from ai_operator.sim.pbx.params import MEDIA_FORMATS
from ai_operator.sim.pbx.rtp_peer import MediaPacer, RtpPeer
from ai_operator.sim.pbx.state import (
    CAUSE_TEXTS,
    HANGUP_CAUSES,
    NORMAL_CLEARING,
    IdFactory,
    SimBridge,
    SimChannel,
    event,
)

LOCAL_ADDRESS_VAR = "UNICASTRTP_LOCAL_ADDRESS"
LOCAL_PORT_VAR = "UNICASTRTP_LOCAL_PORT"
ORIGINATE_ANSWER_DELAY_S = 0.02


class PbxCore(BridgeOps):
    """Channels, bridges, calls and RTP peers; events go out through `emit` (implemented by the server)."""

    def __init__(self, stasis_delay_s: float = 0.01, rtp_host: str = "127.0.0.1") -> None:
        self.stasis_delay_s = stasis_delay_s
        # When set to an unset Event, new externalMedia channels enter Stasis only once it is set (tests that
        # need the window between externalMedia and its StasisStart to stay open, whatever the machine's load).
        self.external_media_gate: asyncio.Event | None = None
        self._gated: set[asyncio.Task[None]] = set()
        self.rtp_host = rtp_host
        self.channels: dict[str, SimChannel] = {}
        self.bridges: dict[str, SimBridge] = {}
        self.calls: list[SimCall] = []
        self.pacer = MediaPacer()
        self.peer_factory: type[RtpPeer] = RtpPeer  # the benchmark's callers swap in a recording peer
        self._ids = IdFactory()
        self._originate_waiters: deque[asyncio.Future[SimCall]] = deque()
        self._timers: set[asyncio.TimerHandle] = set()

    def emit(self, app: str, payload: dict[str, Any]) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    # -- helpers ---------------------------------------------------------------------------------------
    def channel(self, channel_id: str) -> SimChannel:
        ch = self.channels.get(channel_id)
        if ch is None:
            raise SimHttpError(404, "Channel not found")
        return ch

    def stasis_channel(self, channel_id: str) -> SimChannel:
        ch = self.channel(channel_id)
        if not ch.in_stasis:
            raise SimHttpError(409, "Channel not in Stasis application")
        return ch

    def _channel_event(self, ch: SimChannel, event_type: str, **fields: Any) -> None:
        if ch.in_stasis:
            self.emit(ch.app, event(event_type, ch.app, channel=ch.to_json(), **fields))

    def _later(self, delay: float, fn: Any, *args: Any) -> None:
        loop = asyncio.get_running_loop()
        handle: asyncio.TimerHandle

        def run() -> None:
            self._timers.discard(handle)
            fn(*args)

        handle = loop.call_later(delay, run)
        self._timers.add(handle)

    def cancel_timers(self) -> None:
        for handle in self._timers:
            handle.cancel()
        self._timers.clear()
        for task in self._gated:
            task.cancel()

    def counts(self) -> dict[str, int]:
        """Live channels, bridges, externalMedia channels and open RTP sockets (for leak tests)."""
        return {
            "channels": len(self.channels),
            "bridges": len(self.bridges),
            "external_media": sum(1 for c in self.channels.values() if c.kind == "external"),
            "rtp_sockets": sum(1 for c in self.channels.values() if c.rtp is not None and c.rtp.is_open),
            "active_media": len(self.pacer.active),
        }

    def peer_for(self, call: SimCall) -> RtpPeer | None:
        for ch in self.channels.values():
            if ch.rtp is not None and ch.rtp.call is call:
                return ch.rtp
        return None

    # -- the caller's side -----------------------------------------------------------------------------
    def app_registered(self, app: str) -> bool:  # pragma: no cover - overridden
        """Whether a websocket subscribes to `app` (else `Stasis(app)` fails at once)."""
        return True

    def new_inbound(
        self, route: str, app: str, caller_number: str, codec: str | None, then: tuple[str, ...] = ()
    ) -> SimCall:
        ch = SimChannel(
            id=self._ids.channel_id(),
            name=f"PJSIP/caller-{self._ids.suffix()}",
            app=app,
            kind="caller",
            state="Ring",
            caller_number=caller_number,
            app_data=f"{app},{route}",
        )
        call = SimCall(self, ch.id, route, codec)  # type: ignore[arg-type]
        call.apps.append(app)
        call.dialplan.extend(then)
        ch.call = call
        ch.in_stasis = True
        self.channels[ch.id] = ch
        self.calls.append(call)
        self._channel_event(ch, "StasisStart", args=[route])
        return call

    def caller_dtmf(self, call: SimCall, digit: str, duration_ms: int) -> None:
        ch = self.channels.get(call.channel_id)
        if ch is None:
            raise RuntimeError(f"call {call.channel_id} has ended; cannot send DTMF")
        self._channel_event(ch, "ChannelDtmfReceived", digit=digit, duration_ms=duration_ms)

    async def caller_hangup(self, call: SimCall) -> None:
        ch = self.channels.get(call.channel_id)
        if ch is None:
            call.mark_ended("hungup", call.hung_up_by)
            return
        self._destroy(ch, NORMAL_CLEARING, by="caller", request=True)

    # -- teardown --------------------------------------------------------------------------------------
    def _destroy(
        self, ch: SimChannel, cause: int, *, by: str | None, request: bool, soft_reason: int | None = None
    ) -> None:
        """Hang up `ch` (Q.850 `cause`). A soft hang-up (Asterisk's own: ARI DELETE, shutdown) announces its
        soft-hangup reason flag in `ChannelHangupRequest.cause` with `soft: true`, as main/channel.c does."""
        if request:
            fields: dict[str, Any] = {"cause": cause}
            if soft_reason is not None:
                fields = {"cause": soft_reason, "soft": True}
            self._channel_event(ch, "ChannelHangupRequest", **fields)
        self._leave_bridge(ch)
        self._channel_event(ch, "StasisEnd")
        self._channel_event(ch, "ChannelDestroyed", cause=cause, cause_txt=CAUSE_TEXTS.get(cause, "Unknown"))
        ch.in_stasis = False
        self._forget(ch)
        if ch.call is not None:
            ch.call.mark_ended("hungup", by)

    def hang_up_all_for_shutdown(self) -> None:
        """`core restart now`: Asterisk soft-hangs-up every channel (reason AST_SOFTHANGUP_SHUTDOWN), so each
        one in Stasis gets ChannelHangupRequest(soft), StasisEnd and ChannelDestroyed before ARI goes away."""
        self.cancel_timers()
        for ch in list(self.channels.values()):
            self._destroy(ch, NORMAL_CLEARING, by="asterisk", request=True, soft_reason=SOFTHANGUP_SHUTDOWN)
        for br in list(self.bridges.values()):
            self.bridges.pop(br.id, None)
            self.emit(br.app, event("BridgeDestroyed", br.app, bridge=br.to_json()))

    def _forget(self, ch: SimChannel) -> None:
        self.channels.pop(ch.id, None)
        if ch.rtp is not None:
            self.pacer.active.discard(ch.rtp)
            ch.rtp.call = None
            ch.rtp.close()

    # -- channel operations ----------------------------------------------------------------------------
    def op_answer(self, channel_id: str) -> None:
        ch = self.stasis_channel(channel_id)
        if ch.state != "Up":
            ch.state = "Up"
            self._channel_event(ch, "ChannelStateChange")
        if ch.call is not None:
            ch.call.mark_answered()
        if ch.bridge_id and ch.bridge_id in self.bridges:
            self._refresh_bridge(self.bridges[ch.bridge_id])

    def op_hangup(self, channel_id: str, reason: str | None, reason_code: str | None) -> None:
        ch = self.channel(channel_id)
        if reason_code is not None:
            if not reason_code.isdigit():
                raise SimHttpError(400, "Invalid reason for hangup provided")
            cause = int(reason_code)
        else:
            cause = HANGUP_CAUSES[reason or "normal"]
        self._destroy(ch, cause, by="app", request=True, soft_reason=SOFTHANGUP_EXPLICIT)

    def op_continue(self, channel_id: str, params: dict[str, Any]) -> None:
        ch = self.stasis_channel(channel_id)
        self._leave_bridge(ch)
        self._channel_event(ch, "StasisEnd")
        ch.in_stasis = False
        target = {k: params.get(k) for k in ("context", "extension", "priority", "label")}
        if not any(target.values()) and self._next_stasis(ch):
            return
        self._forget(ch)  # the dialplan carries the call on, out of our sight
        if ch.call is not None:
            ch.call.continued = target
            ch.call.mark_ended("dialplan", None)

    def _next_stasis(self, ch: SimChannel) -> bool:
        """A `continue` to the next priority runs the dialplan split's next `Stasis(<app>,<route>)`
        (`SimCall.dialplan`): the same channel, still unanswered, enters the next app. An app no websocket
        subscribes to fails at once (STASISSTATUS=FAILED) and the dialplan goes on to the one after."""
        call = ch.call
        while call is not None and call.dialplan:
            app = call.dialplan.pop(0)
            ch.priority += 1
            if not self.app_registered(app):
                ch.variables["STASISSTATUS"] = "FAILED"
                continue
            ch.app, ch.app_data, ch.in_stasis = app, f"{app},{call.route}", True
            call.apps.append(app)
            self._channel_event(ch, "StasisStart", args=[call.route])
            return True
        return False

    def op_redirect(self, channel_id: str, endpoint: str) -> None:
        ch = self.stasis_channel(channel_id)
        tech = endpoint.split("/", 1)[0]
        if "/" not in endpoint or not endpoint.split("/", 1)[1]:
            raise SimHttpError(404, "Channel or endpoint not found")
        if tech.lower() != ch.name.split("/", 1)[0].lower():
            raise SimHttpError(422, "Endpoint is not the same type as the channel")
        if ch.call is not None:
            ch.call.redirected_to = endpoint
        self._destroy(ch, NORMAL_CLEARING, by=None, request=False)

    def op_get_var(self, channel_id: str, variable: str) -> dict[str, str]:
        ch = self.channel(channel_id)
        if variable not in ch.variables:
            raise SimHttpError(404, "Provided variable was not found")
        return {"value": ch.variables[variable]}

    def op_set_var(self, channel_id: str, variable: str, value: str) -> None:
        ch = self.stasis_channel(channel_id)
        ch.variables[variable] = value
        self._channel_event(ch, "ChannelVarset", variable=variable, value=value)

    async def op_external_media(self, params: dict[str, Any], variables: dict[str, str]) -> SimChannel:
        if params.get("encapsulation", "rtp") != "rtp" or params.get("transport", "udp") != "udp":
            raise SimHttpError(400, "Only encapsulation=rtp over transport=udp is supported by this PBX")
        if params.get("connection_type", "client") != "client":
            raise SimHttpError(400, "connection_type=server is not valid for rtp/udp")
        host_port = params.get("external_host")
        if not host_port:
            raise SimHttpError(400, "external_host is required for rtp/udp")
        host, _, port = host_port.rpartition(":")
        if not host or not port.isdigit() or not 0 < int(port) < 65536:
            raise SimHttpError(400, f"external_host must be host:port, got '{host_port}'")
        fmt = params["format"]
        if fmt not in MEDIA_FORMATS:
            raise SimHttpError(422, f"Unknown format '{fmt}'")
        channel_id = params.get("channelId") or self._ids.channel_id()
        if channel_id in self.channels:
            raise SimHttpError(409, "Channel with given unique ID already exists")
        peer = self.peer_factory(fmt, (host, int(port)))
        await peer.open(self.rtp_host)
        local_host, local_port = peer.local
        ch = SimChannel(
            id=channel_id,
            name=f"UnicastRTP/{host}:{port}-0x{self._ids.suffix()}",
            app=params["app"],
            kind="external",
            state="Down",
            context="default",
            app_data=params["app"],
            variables={**variables, LOCAL_ADDRESS_VAR: local_host, LOCAL_PORT_VAR: str(local_port)},
            public_vars=(LOCAL_ADDRESS_VAR, LOCAL_PORT_VAR),
            rtp=peer,
        )
        self.channels[ch.id] = ch
        gate = self.external_media_gate
        if gate is not None and not gate.is_set():
            async def enter_when_open(channel_id: str = ch.id) -> None:
                await gate.wait()
                self._later(self.stasis_delay_s, self._enter_stasis, channel_id, [])

            task = asyncio.get_running_loop().create_task(enter_when_open())
            self._gated.add(task)
            task.add_done_callback(self._gated.discard)
        else:
            self._later(self.stasis_delay_s, self._enter_stasis, ch.id, [])
        return ch

    def _enter_stasis(self, channel_id: str, args: list[str]) -> None:
        ch = self.channels.get(channel_id)
        if ch is None or ch.in_stasis:
            return
        ch.in_stasis = True
        if ch.kind == "originated":
            ch.state = "Up"
        self._channel_event(ch, "StasisStart", args=args)
        if ch.call is not None:
            ch.call.mark_answered()
            if self._originate_waiters:
                fut = self._originate_waiters.popleft()
                if not fut.done():
                    fut.set_result(ch.call)

    def op_originate(self, params: dict[str, Any], variables: dict[str, str]) -> SimChannel:
        app = params.get("app")
        if not app:
            raise SimHttpError(400, "Application or extension must be specified")
        endpoint = params["endpoint"]
        if "/" not in endpoint:
            raise SimHttpError(400, f"Invalid endpoint: {endpoint}")
        channel_id = params.get("channelId") or self._ids.channel_id()
        if channel_id in self.channels:
            raise SimHttpError(409, "Channel with given unique ID already exists")
        caller_id = params.get("callerId") or ""
        name, _, number = caller_id.rpartition("<")
        ch = SimChannel(
            id=channel_id,
            name=f"{endpoint.split('@')[0]}-{self._ids.suffix()}",
            app=app,
            kind="originated",
            state="Down",
            caller_number=number.rstrip(">") if number else caller_id,
            caller_name=name.strip().strip('"'),
            context="default",
            app_data=f"{app},{params.get('appArgs', '')}",
            variables=dict(variables),
        )
        args = params["appArgs"].split(",") if params.get("appArgs") else []
        call = SimCall(self, ch.id, args[0] if args else "", None)  # type: ignore[arg-type]
        ch.call = call
        self.channels[ch.id] = ch
        self.calls.append(call)
        self._later(ORIGINATE_ANSWER_DELAY_S + self.stasis_delay_s, self._enter_stasis, ch.id, args)
        return ch
