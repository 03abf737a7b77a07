"""Typed ARI events and `parse_event`. Pure: JSON text or dict in, a typed event (or an error) out.

Every event carries the common Message/Event fields (type, application, timestamp, asterisk_id). Types we do not
model become `UnknownEvent` (the caller logs and skips it); a malformed event raises `EventError` naming the
event type, the field and the reason. Field tables mirror events.json of Asterisk 22 (a test checks them).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, ClassVar

from ai_operator.ari.errors import EventError, ModelError
from ai_operator.ari.models import Bridge, Channel, FieldSpec, parse_fields

BASE_FIELDS: tuple[FieldSpec, ...] = (
    FieldSpec("type", "string"),
    FieldSpec("asterisk_id", "string", required=False),
    FieldSpec("application", "string"),
    FieldSpec("timestamp", "Date"),
)


@dataclass(frozen=True, kw_only=True)
class Event:
    """Common fields of every ARI event."""

    FIELDS: ClassVar[tuple[FieldSpec, ...]] = ()
    type: str
    application: str
    timestamp: str
    asterisk_id: str | None = None


@dataclass(frozen=True, kw_only=True)
class UnknownEvent:
    """An event type we do not handle; `raw` keeps the JSON object."""

    type: str
    raw: dict[str, Any] = field(default_factory=dict)
    application: str | None = None


@dataclass(frozen=True, kw_only=True)
class StasisStart(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("args", "List[string]"),
        FieldSpec("channel", "Channel"),
        FieldSpec("replace_channel", "Channel", required=False),
    )
    args: list[str]
    channel: Channel
    replace_channel: Channel | None = None


@dataclass(frozen=True, kw_only=True)
class StasisEnd(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (FieldSpec("channel", "Channel"),)
    channel: Channel


@dataclass(frozen=True, kw_only=True)
class ChannelDestroyed(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("cause", "int"),
        FieldSpec("cause_txt", "string"),
        FieldSpec("tech_cause", "int", required=False),
        FieldSpec("channel", "Channel"),
    )
    cause: int
    cause_txt: str
    channel: Channel
    tech_cause: int | None = None


@dataclass(frozen=True, kw_only=True)
class ChannelHangupRequest(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("cause", "int", required=False),
        FieldSpec("tech_cause", "int", required=False),
        FieldSpec("soft", "boolean", required=False),
        FieldSpec("channel", "Channel"),
    )
    channel: Channel
    cause: int | None = None
    tech_cause: int | None = None
    soft: bool | None = None


@dataclass(frozen=True, kw_only=True)
class ChannelDtmfReceived(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("digit", "string"),
        FieldSpec("duration_ms", "int"),
        FieldSpec("channel", "Channel"),
    )
    digit: str
    duration_ms: int
    channel: Channel


@dataclass(frozen=True, kw_only=True)
class ChannelStateChange(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (FieldSpec("channel", "Channel"),)
    channel: Channel


@dataclass(frozen=True, kw_only=True)
class ChannelVarset(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("variable", "string"),
        FieldSpec("value", "string"),
        FieldSpec("channel", "Channel", required=False),
    )
    variable: str
    value: str
    channel: Channel | None = None


@dataclass(frozen=True, kw_only=True)
class ChannelEnteredBridge(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("bridge", "Bridge"),
        FieldSpec("channel", "Channel", required=False),
    )
    bridge: Bridge
    channel: Channel | None = None


@dataclass(frozen=True, kw_only=True)
class ChannelLeftBridge(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (FieldSpec("bridge", "Bridge"), FieldSpec("channel", "Channel"))
    bridge: Bridge
    channel: Channel


@dataclass(frozen=True, kw_only=True)
class BridgeDestroyed(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (FieldSpec("bridge", "Bridge"),)
    bridge: Bridge


@dataclass(frozen=True, kw_only=True)
class ApplicationReplaced(Event):
    """Another websocket registered the same application name: this connection gets no more events."""


@dataclass(frozen=True, kw_only=True)
class Dial(Event):
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("caller", "Channel", required=False),
        FieldSpec("peer", "Channel"),
        FieldSpec("forward", "string", required=False),
        FieldSpec("forwarded", "Channel", required=False),
        FieldSpec("dialstring", "string", required=False),
        FieldSpec("dialstatus", "string"),
    )
    peer: Channel
    dialstatus: str
    caller: Channel | None = None
    forward: str | None = None
    forwarded: Channel | None = None
    dialstring: str | None = None


EVENT_TYPES: dict[str, type[Event]] = {
    cls.__name__: cls
    for cls in (
        StasisStart,
        StasisEnd,
        ChannelDestroyed,
        ChannelHangupRequest,
        ChannelDtmfReceived,
        ChannelStateChange,
        ChannelVarset,
        ChannelEnteredBridge,
        ChannelLeftBridge,
        BridgeDestroyed,
        ApplicationReplaced,
        Dial,
    )
}

AnyEvent = Event | UnknownEvent


def parse_event(data: dict[str, Any] | str | bytes) -> AnyEvent:
    """Parse one websocket message into a typed event.

    Unknown types give `UnknownEvent`; bad JSON, a missing required field or a wrong type raise `EventError`.
    """
    if isinstance(data, str | bytes):
        try:
            data = json.loads(data)
        except (ValueError, UnicodeDecodeError) as exc:
            raise EventError("<unparsed>", "<json>", f"invalid JSON: {exc}") from None
    if not isinstance(data, dict):
        raise EventError("<unparsed>", "<root>", f"expected a JSON object, got {type(data).__name__}")
    event_type = data.get("type")
    if not isinstance(event_type, str) or not event_type:
        raise EventError(
            "<unknown>", "type", "missing required field" if event_type is None else "expected string"
        )
    cls = EVENT_TYPES.get(event_type)
    if cls is None:
        app = data.get("application")
        return UnknownEvent(type=event_type, raw=data, application=app if isinstance(app, str) else None)
    try:
        values = parse_fields(event_type, data, BASE_FIELDS + cls.FIELDS)
    except ModelError as exc:
        raise EventError(event_type, exc.field, exc.reason) from None
    return cls(**values)


def event_channel(event: AnyEvent) -> Channel | None:
    """The channel an event is about (None when it has none)."""
    return getattr(event, "channel", None)


__all__ = [
    "BASE_FIELDS",
    "EVENT_TYPES",
    "AnyEvent",
    "ApplicationReplaced",
    "BridgeDestroyed",
    "ChannelDestroyed",
    "ChannelDtmfReceived",
    "ChannelEnteredBridge",
    "ChannelHangupRequest",
    "ChannelLeftBridge",
    "ChannelStateChange",
    "ChannelVarset",
    "Dial",
    "Event",
    "EventError",
    "StasisEnd",
    "StasisStart",
    "UnknownEvent",
    "event_channel",
    "parse_event",
]
