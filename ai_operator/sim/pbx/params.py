"""The ARI REST subset the simulated PBX serves, with its parameter rules, and request validation. Pure.

Each route lists its query parameters (type, required, allowed values) and body keys, written after
Asterisk 22's channels/bridges/applications/asterisk.json. Validation mirrors Asterisk: a missing required or
an unknown parameter, a bad integer/boolean or a value outside the allowed set gives 400 with a message.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from ai_operator.media.codecs import CODECS
from ai_operator.sim.pbx.state import HANGUP_CAUSES

HANGUP_REASONS = tuple(HANGUP_CAUSES)
MEDIA_FORMATS = tuple(CODECS)  # externalMedia formats this PBX can carry (others: 422 Unknown format)
BRIDGE_TYPES = ("mixing", "holding", "dtmf_events", "proxy_media", "video_sfu", "video_single", "sdp_label")
INFO_SECTIONS = ("build", "system", "config", "status")
AUTH_PARAM = "api_key"


@dataclass(frozen=True)
class Param:
    kind: str = "string"  # string | int | boolean | list (comma-separated)
    required: bool = False
    allowed: tuple[str, ...] = ()


@dataclass(frozen=True)
class Route:
    method: str
    pattern: re.Pattern[str]
    name: str
    params: dict[str, Param] = field(default_factory=dict)
    body: tuple[str, ...] = ()


class ParamError(ValueError):
    """A request Asterisk would refuse with 400; the message says which parameter and why."""


def _route(
    method: str, path: str, name: str, params: dict[str, Param] | None = None, body: tuple[str, ...] = ()
) -> Route:
    regex = "^" + re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", path) + "$"
    return Route(method, re.compile(regex), name, params or {}, body)


S, REQ = Param(), Param(required=True)
ROUTES: tuple[Route, ...] = (
    _route("GET", "/channels", "list_channels"),
    _route(
        "POST",
        "/channels",
        "originate",
        {
            "endpoint": REQ,
            "extension": S,
            "context": S,
            "priority": Param("int"),
            "label": S,
            "app": S,
            "appArgs": S,
            "callerId": S,
            "timeout": Param("int"),
            "channelId": S,
            "otherChannelId": S,
            "originator": S,
            "formats": S,
        },
        ("variables",),
    ),
    _route(
        "POST",
        "/channels/externalMedia",
        "external_media",
        {
            "channelId": S,
            "app": REQ,
            "external_host": S,
            "encapsulation": Param(allowed=("rtp", "audiosocket", "none")),
            "transport": Param(allowed=("udp", "tcp", "websocket")),
            "connection_type": Param(allowed=("client", "server")),
            "format": Param(required=True),
            "direction": Param(allowed=("both",)),
            "data": S,
            "transport_data": S,
        },
        ("variables",),
    ),
    _route("GET", "/channels/{channelId}", "get_channel"),
    _route(
        "DELETE",
        "/channels/{channelId}",
        "hangup",
        {"reason_code": S, "reason": Param(allowed=HANGUP_REASONS)},
    ),
    _route("POST", "/channels/{channelId}/answer", "answer"),
    _route(
        "POST",
        "/channels/{channelId}/continue",
        "continue",
        {"context": S, "extension": S, "priority": Param("int"), "label": S},
    ),
    _route("POST", "/channels/{channelId}/redirect", "redirect", {"endpoint": REQ}),
    _route("GET", "/channels/{channelId}/variable", "get_var", {"variable": REQ}),
    _route(
        "POST",
        "/channels/{channelId}/variable",
        "set_var",
        {"variable": REQ, "value": S, "report_events": Param("boolean")},
    ),
    _route("GET", "/bridges", "list_bridges"),
    _route(
        "POST",
        "/bridges",
        "create_bridge",
        {"type": Param("list", allowed=BRIDGE_TYPES), "bridgeId": S, "name": S},
        ("variables",),
    ),
    _route("GET", "/bridges/{bridgeId}", "get_bridge"),
    _route("DELETE", "/bridges/{bridgeId}", "destroy_bridge"),
    _route(
        "POST",
        "/bridges/{bridgeId}/addChannel",
        "add_channel",
        {
            "channel": Param("list", required=True),
            "role": S,
            "absorbDTMF": Param("boolean"),
            "mute": Param("boolean"),
            "inhibitConnectedLineUpdates": Param("boolean"),
        },
    ),
    _route(
        "POST",
        "/bridges/{bridgeId}/removeChannel",
        "remove_channel",
        {"channel": Param("list", required=True)},
    ),
    _route("GET", "/asterisk/info", "info", {"only": Param("list", allowed=INFO_SECTIONS)}),
    _route("GET", "/asterisk/ping", "ping"),
    _route("GET", "/applications", "list_apps"),
    _route("GET", "/applications/{applicationName}", "get_app"),
    _route(
        "GET", "/events", "events", {"app": Param("list", required=True), "subscribeAll": Param("boolean")}
    ),
    _route("GET", "/api-docs/resources.json", "resources"),
    _route("GET", "/api-docs/{resource}", "api_doc"),
)


def match_route(method: str, path: str) -> tuple[Route, dict[str, str]] | None:
    """The route for `method path` (path relative to /ari) and its path parameters; literal routes first."""
    for route in ROUTES:
        if route.method != method:
            continue
        m = route.pattern.match(path)
        if m:
            return route, m.groupdict()
    return None


def validate(route: Route, query: dict[str, str], body: Any) -> dict[str, Any]:
    """Check and convert the query (`api_key` excluded by the caller); raise `ParamError` like Asterisk."""
    out: dict[str, Any] = {}
    for name, value in query.items():
        spec = route.params.get(name)
        if spec is None:
            raise ParamError(f"Unknown parameter: {name}")
        out[name] = _convert(name, spec, value)
    for name, spec in route.params.items():
        if spec.required and name not in out:
            raise ParamError(f"Missing required parameter: {name}")
    if body is not None:
        if not isinstance(body, dict):
            raise ParamError("Request body must be a JSON object")
        for key in body:
            if key not in route.body:
                raise ParamError(f"Unknown body parameter: {key}")
        variables = body.get("variables")
        if variables is not None and not (
            isinstance(variables, dict) and all(isinstance(v, str) for v in variables.values())
        ):
            raise ParamError("variables: expected an object of string values")
    return out


def _convert(name: str, spec: Param, value: str) -> Any:
    if spec.kind == "int":
        if not re.fullmatch(r"-?\d+", value):
            raise ParamError(f"{name}: '{value}' is not an integer")
        return int(value)
    if spec.kind == "boolean":
        if value not in ("true", "false", "yes", "no", "1", "0"):
            raise ParamError(f"{name}: '{value}' is not a boolean")
        return value in ("true", "yes", "1")
    if spec.kind == "list":
        items = [v for v in value.split(",") if v]
        if not items:
            raise ParamError(f"{name}: empty list")
        for item in items:
            if spec.allowed and item not in spec.allowed:
                raise ParamError(f"{name}: invalid value '{item}' (allowed: {', '.join(spec.allowed)})")
        return items
    if spec.allowed and value not in spec.allowed:
        raise ParamError(f"{name}: invalid value '{value}' (allowed: {', '.join(spec.allowed)})")
    return value
