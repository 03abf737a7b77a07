"""ARI (Asterisk REST Interface): typed models and events, the REST client, the events websocket, errors."""

from ai_operator.ari.errors import (
    AriAuthError,
    AriError,
    AriHttpError,
    AriUnavailable,
    EventError,
    ModelError,
)
from ai_operator.ari.events import parse_event
from ai_operator.ari.events_ws import AriEventStream
from ai_operator.ari.models import Bridge, CallerID, Channel, DialplanCEP
from ai_operator.ari.rest import AriRestClient

__all__ = [
    "AriAuthError",
    "AriError",
    "AriEventStream",
    "AriHttpError",
    "AriRestClient",
    "AriUnavailable",
    "Bridge",
    "CallerID",
    "Channel",
    "DialplanCEP",
    "EventError",
    "ModelError",
    "parse_event",
]
