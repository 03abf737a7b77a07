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

    def __post_init__(self) -> None:
        if not self.call_id:
            raise ValueError("call_id: must not be empty")
        if self.direction not in DIRECTIONS:
            raise ValueError(f"direction: expected inbound or outbound, got {self.direction!r}")
        check_ended_by(self.ended_by)


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
