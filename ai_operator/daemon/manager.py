"""Routes ARI events to calls: admission (route enabled, capacity, draining), DTMF, hang-ups, reconcile, drain.

A caller channel's `StasisStart` names the route in its first Stasis argument (`Stasis(<app>,<route>)`);
further arguments are `outbound` and the policy's file options (freight: `load=<path>`) for calls we originated.
A call that the bot must not take goes back to the dialplan untouched (`continue`) with a log line saying why.
Our own externalMedia channels' `StasisStart` is recognised and handed to the call waiting for it.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

import structlog

from ai_operator.ari.events import (
    ApplicationReplaced,
    ChannelDestroyed,
    ChannelDtmfReceived,
    ChannelHangupRequest,
    StasisEnd,
    StasisStart,
)
from ai_operator.ari.hangups import ended_by as hangup_ended_by
from ai_operator.daemon.call import Call
from ai_operator.daemon.services import Services
from ai_operator.logs import get_logger

log = get_logger("manager")

EXTERNAL_MEDIA_PREFIX = "UnicastRTP/"
SHUTDOWN_MARGIN_S = 5.0  # after the drain timeout: the closing line's CallEnd watchdog plus this


def parse_stasis_args(args: list[str]) -> tuple[str, dict[str, str]]:
    """`[route, "outbound", "load=/x.json"]` -> ("route", {"outbound": "", "load": "/x.json"})."""
    route = (args[0] if args else "").strip().lower()
    extra: dict[str, str] = {}
    for arg in args[1:]:
        key, _, value = arg.partition("=")
        extra[key.strip().lower()] = value.strip()
    return route, extra


class CallManager:
    """Owns the live calls of the daemon."""

    def __init__(self, svc: Services) -> None:
        self.svc = svc
        self.calls: dict[str, Call] = {}
        self.media_owner: dict[str, Call] = {}
        self.tasks: dict[str, asyncio.Task[None]] = {}
        self.draining = False

    async def handle(self, event: Any) -> None:
        """One ARI event. Never raises: a failure is logged with the event type."""
        try:
            if isinstance(event, StasisStart):
                await self._stasis_start(event)
            elif isinstance(event, StasisEnd | ChannelDestroyed | ChannelHangupRequest):
                call = self.calls.get(event.channel.id)
                if call is not None:  # an Asterisk shutdown announces itself in a soft ChannelHangupRequest
                    call.on_caller_gone(hangup_ended_by(event))
            elif isinstance(event, ChannelDtmfReceived):
                call = self.calls.get(event.channel.id)
                if call is not None:
                    call.on_dtmf(event.digit)
            elif isinstance(event, ApplicationReplaced):
                log.error("ari_application_replaced", app=event.application, reason="another client took over this app")
        except Exception as exc:
            log.error("event_handling_failed", type=getattr(event, "type", "?"), error=str(exc))

    async def _stasis_start(self, event: StasisStart) -> None:
        channel = event.channel
        owner = self.media_owner.get(channel.id)
        if owner is not None or channel.name.startswith(EXTERNAL_MEDIA_PREFIX):
            if owner is not None:
                owner.on_external_media_started()
            return
        route_name, extra = parse_stasis_args(event.args)
        route = self.svc.settings.route(route_name) if route_name else None
        reason = None
        if self.draining:
            reason = "draining"
        elif route is None:
            reason = "route_unknown"
        elif not route.enabled:
            reason = "route_disabled"
        elif len(self.calls) >= self.svc.settings.call.max_calls:
            reason = "over_capacity"
        elif self.svc.load.behind(time.monotonic()):
            reason = "overloaded"
        if reason is not None:
            await self._reject(channel, route_name, reason)
            return
        assert route is not None
        direction = "outbound" if "outbound" in extra else "inbound"
        try:
            call_args = {k: v for k, v in extra.items() if k != "outbound"}
            # the call's own copy of the services: a reload later does not change what it started with
            call = Call(self.svc.for_call(), channel, route, direction=direction, call_args=call_args)
        except Exception as exc:  # e.g. a freight load file that went bad: the caller must not hang in Stasis
            log.error("call_setup_failed", call_id=channel.id, route=route.name, error=str(exc),
                      action="continue in dialplan")
            await self._continue(channel.id)
            return
        # which daemon (its ARI app) on which Asterisk (the event's entity id) served it: a cluster's one
        # database holds every node's calls
        call.summary["served_by"] = {"app": self.svc.settings.ari.app, "asterisk_id": event.asterisk_id}
        self.calls[call.call_id] = call
        self.media_owner[call.em_channel_id] = call
        self.tasks[call.call_id] = asyncio.create_task(self._run(call), name=f"call-{call.call_id}")

    async def _reject(self, channel: Any, route_name: str, reason: str) -> None:
        self.svc.metrics.reject(reason)
        detail = self.svc.load.reason if reason == "overloaded" else None
        log.info("call_rejected", call_id=channel.id, route=route_name or None, reason=reason, detail=detail,
                 action="continue in dialplan")
        await self._continue(channel.id)

    async def _continue(self, channel_id: str) -> None:
        try:
            await self.svc.ari.continue_in_dialplan(channel_id)
        except Exception as exc:
            log.warning("continue_failed", call_id=channel_id, error=str(exc))

    async def _run(self, call: Call) -> None:
        from ai_operator.storage.records import CallRecord

        # This task (and the speaker/STT/KB work it starts) belongs to one call: every log line it emits, from
        # whatever component (speech, storage, kb), carries the call id and route.
        structlog.contextvars.bind_contextvars(call_id=call.call_id, route=call.route.name)
        metrics = self.svc.metrics
        metrics.calls_active.labels(route=call.route.name).inc()
        caller = getattr(getattr(call.channel, "caller", None), "number", "") or None
        try:
            await self.svc.records.call_started(
                CallRecord(
                    call_id=call.call_id,
                    route=call.route.name,
                    policy=call.route.policy,
                    caller_id=caller,
                    direction=call.direction,
                    started_at=call.started_at,
                    summary=dict(call.summary),
                )
            )
            log.info("call_started", call_id=call.call_id, route=call.route.name, caller=caller, direction=call.direction)
            await call.run()
        finally:
            metrics.calls_active.labels(route=call.route.name).dec()
            self.calls.pop(call.call_id, None)
            self.media_owner.pop(call.em_channel_id, None)
            self.tasks.pop(call.call_id, None)

    async def reconcile(self) -> None:
        """After an ARI reconnect: calls whose channel no longer exists are closed (`ended_by=system`)."""
        if not self.calls:
            return
        try:
            live = {c.id for c in await self.svc.ari.list_channels()}
        except Exception as exc:
            log.warning("reconcile_failed", error=str(exc))
            return
        gone = [c for cid, c in self.calls.items() if cid not in live]
        for call in gone:
            call.on_caller_gone("system")
        log.info("reconciled", live=len(self.calls) - len(gone), closed=len(gone))

    async def drain(self, timeout_s: float) -> None:
        """Stop taking calls; let calls finish for `timeout_s`, then end the rest with a closing line."""
        self.draining = True
        log.info("draining", calls=len(self.calls), timeout_s=timeout_s)
        if await self._wait_empty(timeout_s):
            return
        for call in list(self.calls.values()):
            call.shutdown()
        if await self._wait_empty(self.svc.settings.call.hangup_watchdog_s + SHUTDOWN_MARGIN_S):
            return
        for task in list(self.tasks.values()):
            task.cancel()
        await asyncio.gather(*self.tasks.values(), return_exceptions=True)

    async def _wait_empty(self, timeout_s: float) -> bool:
        tasks = list(self.tasks.values())
        if not tasks:
            return True
        await asyncio.wait(tasks, timeout=timeout_s)
        return not self.tasks

    def health(self) -> dict[str, Any]:
        behind = self.svc.load.behind(time.monotonic())
        self.svc.metrics.overloaded.set(1 if behind else 0)
        return {"calls": len(self.calls), "draining": self.draining, "overloaded": behind,
                "loop_lag_ms": round(self.svc.load.last_lag_ms, 1), "at": datetime.now(UTC).isoformat()}
