"""Named routes: `Stasis(<app>,<name>)` in the dialplan reaches route `name`. Pure parsing.

A route is `ROUTE_<NAME>_ENABLED`, `ROUTE_<NAME>_POLICY` and options `ROUTE_<NAME>_<OPTION>`. The runtime's own
options (`ROUTE_OPTIONS`) are declared and parsed here; a policy declares its own (e.g. freight's `LOAD`) as
`PolicyDefinition.route_options`, so a new option never needs an edit here. Configuration knows no policy: it
keeps a policy's options as text (`Route.option_text`); where the runtime is assembled, `ai_operator/route_binding.py`
finds the route's policy and has it parse them (`Route.options`). The handoff target is parsed into a value
when the file is read, not when the caller asks for a human.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import ai_operator.config.values as v
from ai_operator.config.schema import provider_choices

ROUTE_KEY_RE = re.compile(r"^ROUTE_([A-Z0-9]+)_([A-Z][A-Z0-9_]*)$")
ROUTE_OPTIONS: dict[str, str] = {
    "ENABLED": "true/false: the bot answers this route",
    "POLICY": "dialogue policy name (a folder of policies/, or of POLICY_PATH)",
    "HANDOFF": "where a human handoff goes: context,extension[,priority] or an endpoint like PJSIP/operator-desk",
    "STT": "per-route speech-to-text provider override (a registered provider, or none)",
    "TTS": "per-route text-to-speech provider override (a registered provider: espeak, openai)",
    "LLM": "per-route model provider override (a registered provider, or none)",
    "HOLD_S": "turn-boundary hold for dangling utterances, seconds (0..10), over the policy's own",
    "PRODUCTION": "true/false: real callers reach this route (enabling it is warned about; doctor says so)",
}
_CONTEXT_RE = re.compile(r"^[A-Za-z0-9_.+-]+$")
_EXTEN_RE = re.compile(r"^[A-Za-z0-9_.+*#!\[\]-]+$")
_ENDPOINT_RE = re.compile(r"^([A-Za-z][A-Za-z0-9]*)/([A-Za-z0-9_.@:+-]+)$")


@dataclass(frozen=True)
class HandoffTarget:
    """A dialplan location (`context,extension[,priority]`) or an endpoint (`PJSIP/operator-desk`)."""

    context: str | None = None
    extension: str | None = None
    priority: int | None = None
    endpoint: str | None = None

    @classmethod
    def parse(cls, raw: str) -> HandoffTarget:
        text = raw.strip()
        allowed = "context,extension[,priority] (e.g. ai-operator-handoff,operator,1) or TECH/resource (e.g. PJSIP/operator-desk)"
        if "/" in text:
            if not _ENDPOINT_RE.match(text):
                raise ValueError(f"expected {allowed}, got {raw!r}")
            return cls(endpoint=text)
        parts = [p.strip() for p in text.split(",")]
        if not 2 <= len(parts) <= 3 or not _CONTEXT_RE.match(parts[0]) or not _EXTEN_RE.match(parts[1]):
            raise ValueError(f"expected {allowed}, got {raw!r}")
        priority = None
        if len(parts) == 3:
            if not parts[2].isdigit() or int(parts[2]) < 1:
                raise ValueError(f"the priority in context,extension[,priority] must be a number >= 1, got {parts[2]!r}")
            priority = int(parts[2])
        return cls(context=parts[0], extension=parts[1], priority=priority)

    def __str__(self) -> str:
        if self.endpoint:
            return self.endpoint
        return ",".join(str(p) for p in (self.context, self.extension, self.priority) if p is not None)


@dataclass(frozen=True)
class Route:
    """A named route: the runtime's options parsed; its policy's own as text until the runtime binds the route."""

    name: str  # lower-case, as in the Stasis argument
    enabled: bool
    policy: str
    handoff: HandoffTarget | None = None
    stt: str | None = None  # provider overrides
    tts: str | None = None
    llm: str | None = None
    hold_s: float | None = None  # over the policy's own hold (the runtime sets the session's `hold_s`)
    production: bool = False  # real callers reach it: enabling it is a warning, doctor names it
    option_text: Mapping[str, str] = field(default_factory=dict)  # the route's other keys as written ("LOAD": "x.json")
    options: Mapping[str, Any] | None = None  # `option_text` parsed by the route's policy; None until bound (route_binding.py)


def parse_runtime_option(option: str, raw: str) -> Any:
    """One of `ROUTE_OPTIONS` (not ENABLED/POLICY) as a typed value; raises ValueError saying what is allowed."""
    if option == "HANDOFF":
        return HandoffTarget.parse(raw) if raw.strip() else None
    if option in ("STT", "TTS", "LLM"):
        return v.parse_choice(raw, provider_choices(option.lower())()) if raw.strip() else None
    if option == "HOLD_S":
        return v.parse_float(raw, 0, 10) if raw.strip() else None
    if option == "PRODUCTION":
        return v.parse_bool(raw) if raw.strip() else False
    raise KeyError(option)
