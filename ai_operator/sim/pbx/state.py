"""State of the simulated PBX: channels, bridges, and their ARI JSON (shaped like Asterisk 22's). Pure.

Also the small tables the double shares: hangup reasons -> Q.850 causes, cause texts, event envelopes.
"""

from __future__ import annotations

import itertools
import time
import uuid
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ai_operator.ari.models import format_ari_date

if TYPE_CHECKING:
    from ai_operator.sim.pbx.call import SimCall
    from ai_operator.sim.pbx.rtp_peer import RtpPeer

ASTERISK_VERSION = "22.10.1"
ASTERISK_ID = "52:54:00:a1:0b:22"
API_VERSION = "10.0.0"
DEFAULT_LANGUAGE = "en"
INBOUND_CONTEXT = "from-pstn"

HANGUP_CAUSES: dict[str, int] = {
    "normal": 16,
    "busy": 17,
    "congestion": 34,
    "no_answer": 19,
    "timeout": 19,
    "rejected": 21,
    "unallocated": 1,
    "normal_unspecified": 31,
    "number_incomplete": 28,
    "codec_mismatch": 58,
    "interworking": 127,
    "failure": 38,
    "answered_elsewhere": 26,
}
CAUSE_TEXTS: dict[int, str] = {
    1: "Unallocated (unassigned) number",
    16: "Normal Clearing",
    17: "User busy",
    19: "User alerting, no answer",
    21: "Call Rejected",
    26: "Answered elsewhere",
    28: "Invalid number format (incomplete number)",
    31: "Normal, unspecified",
    34: "Circuit/channel congestion",
    38: "Network out of order",
    58: "Bearer capability not available",
    127: "Interworking, unspecified",
}
NORMAL_CLEARING = 16


def now_ari() -> str:
    """The current time as Asterisk writes it: `2026-11-30T05:16:54.123+0000`."""
    return format_ari_date(datetime.now(UTC))


class IdFactory:
    """Asterisk-like unique ids (`1764480000.42`) and per-technology channel name suffixes."""

    def __init__(self) -> None:
        self._epoch = int(time.time())
        self._seq = itertools.count(1)

    def channel_id(self) -> str:
        return f"{self._epoch}.{next(self._seq)}"

    def suffix(self) -> str:
        return f"{next(self._seq):08x}"

    @staticmethod
    def bridge_id() -> str:
        return str(uuid.uuid4())


@dataclass
class SimChannel:
    id: str
    name: str
    app: str
    kind: str  # "caller" (inbound), "originated" (outbound), "external" (externalMedia)
    state: str = "Ring"  # Asterisk channel state names: Down, Ring, Up
    caller_number: str = ""
    caller_name: str = ""
    context: str = INBOUND_CONTEXT
    exten: str = "s"
    priority: int = 1
    app_name: str = "Stasis"
    app_data: str = ""
    created: str = field(default_factory=now_ari)
    variables: dict[str, str] = field(default_factory=dict)
    public_vars: tuple[str, ...] = ()  # variables shown in `channelvars`
    in_stasis: bool = False
    bridge_id: str | None = None
    call: SimCall | None = None
    rtp: RtpPeer | None = None

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "id": self.id,
            "name": self.name,
            "state": self.state,
            "protocol_id": "",
            "caller": {"name": self.caller_name, "number": self.caller_number},
            "connected": {"name": "", "number": ""},
            "accountcode": "",
            "dialplan": {
                "context": self.context,
                "exten": self.exten,
                "priority": self.priority,
                "app_name": self.app_name,
                "app_data": self.app_data,
            },
            "creationtime": self.created,
            "language": DEFAULT_LANGUAGE,
        }
        if self.public_vars:
            data["channelvars"] = {k: self.variables.get(k, "") for k in self.public_vars}
        return data


@dataclass
class SimBridge:
    id: str
    app: str
    name: str = ""
    bridge_type: str = "mixing"
    channels: list[str] = field(default_factory=list)
    created: str = field(default_factory=now_ari)

    def to_json(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "technology": "simple_bridge",
            "bridge_type": self.bridge_type,
            "bridge_class": "stasis",
            "creator": "Stasis",
            "name": self.name,
            "channels": list(self.channels),
            "creationtime": self.created,
            "video_mode": "none",
        }


def event(event_type: str, app: str, **fields: Any) -> dict[str, Any]:
    """An ARI event envelope (type, timestamp, application, asterisk_id) plus `fields`."""
    return {
        "type": event_type,
        "timestamp": now_ari(),
        "application": app,
        "asterisk_id": ASTERISK_ID,
        **fields,
    }
