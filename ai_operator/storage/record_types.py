"""The call and turn records the daemon writes (plain dataclasses, validated on construction, no I/O)."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any

DIRECTIONS = ("inbound", "outbound")
ENDED_BY = ("bot", "caller", "watchdog", "system")


def check_ended_by(value: str | None) -> None:
    if value is not None and value not in ENDED_BY:
        raise ValueError(f"ended_by: expected one of {', '.join(ENDED_BY)}, got {value!r}")


@dataclass
class CallRecord:
    """One call, as written when it starts (answer and end are added by later writes)."""

    call_id: str
    route: str
    policy: str
    caller_id: str | None
    direction: str
    started_at: datetime
    answered_at: datetime | None = None
    ended_at: datetime | None = None
    ended_by: str | None = None
    disposition: str | None = None
    summary: dict[str, Any] = field(default_factory=dict)
    rtp_packets_received: int | None = None  # the RTP figures (CallMedia) are added when the call ends
    rtp_packets_expected: int | None = None
    rtp_packets_lost: int | None = None
    rtp_jitter_ms: float | None = None

    def __post_init__(self) -> None:
        if not self.call_id:
            raise ValueError("call_id: must not be empty")
        check_media(vars(self))
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction: expected inbound or outbound, got {self.direction!r}")
        check_ended_by(self.ended_by)


@dataclass(frozen=True)
class CallMedia:
    """What a call's RTP endpoint received (RFC 3550): packets received, expected and lost (expected - received,
    negative with duplicates) and the worst source's interarrival jitter in milliseconds."""

    rtp_packets_received: int
    rtp_packets_expected: int
    rtp_packets_lost: int
    rtp_jitter_ms: float

    def __post_init__(self) -> None:
        check_media(vars(self))


MEDIA_FIELDS = ("rtp_packets_received", "rtp_packets_expected", "rtp_packets_lost", "rtp_jitter_ms")


def check_media(data: dict[str, Any]) -> None:
    """The RTP figures present in `data` are numbers of the right kind (counts are integers)."""
    for key in MEDIA_FIELDS:
        value = data.get(key)
        if value is None:
            continue
        whole = key != "rtp_jitter_ms"
        if isinstance(value, bool) or not isinstance(value, int if whole else (int, float)):
            raise ValueError(f"{key}: expected {'an integer' if whole else 'a number'}, got {value!r}")


@dataclass
class TurnRecord:
    """One exchange of a call. `timings` in milliseconds, e.g. vad_ms, stt_ms, policy_ms, model_ms,
    tts_first_frame_ms, first_rtp_ms."""

    call_id: str
    seq: int
    at: datetime
    caller_text: str | None
    bot_text: str | None
    state: str | None
    fields: dict[str, Any] = field(default_factory=dict)
    tool_calls: list[dict[str, Any]] = field(default_factory=list)
    timings: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if not self.call_id:
            raise ValueError("call_id: must not be empty")
        if not isinstance(self.seq, int) or self.seq < 0:
            raise ValueError(f"seq: expected a non-negative integer, got {self.seq!r}")
