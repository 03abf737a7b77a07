"""`dispatch`: an outbound call that offers a driver today's stops, in English. It lives only here, in the tests,
to prove that a policy with a file option and an outbound route is just a folder: the stops file (`dial --arg
stops=FILE`, JSON Lines) is declared as a `FileOption` whose folder is the route key `ROUTE_<NAME>_STOPS_DIR`,
and nothing outside this folder knows about it."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from policies.dispatch.session import LANGUAGE, LINES, DispatchSession
from policies.dispatch.stops import Stop, read_stops

from ai_operator.dialogue import (
    CheckResult,
    FileOption,
    OptionContext,
    PolicyDefinition,
    RouteOption,
    RouteView,
    SelfTestCase,
    SelfTestResult,
    SessionOptions,
    ToolSpec,
)

STOPS_DIR = "STOPS_DIR"


def _parse_default_stops(raw: str, ctx: OptionContext) -> tuple[Stop, ...]:
    path = Path(raw.strip())
    return read_stops(path if path.is_absolute() else ctx.folder(STOPS_DIR) / path)


class DispatchPolicy:
    name = "dispatch"
    languages: tuple[str, ...] = (LANGUAGE,)
    state_field = "state"
    turn_fields: tuple[str, ...] = ("state", "stops")
    tools: tuple[ToolSpec, ...] = (
        ToolSpec("end_call", "hang up when the driver asks to", {"type": "object", "properties": {}}),
    )
    demo_caller: tuple[tuple[str, str], ...] = (("en", "uh yeah sure i can take them"),)
    route_options: Mapping[str, RouteOption] = {
        "STOPS": RouteOption("the default stops file (relative: to the route's STOPS_DIR)", _parse_default_stops),
    }
    file_options: Mapping[str, FileOption] = {
        "stops": FileOption("the driver's stops, JSON Lines (dial --arg stops=FILE)", STOPS_DIR, read_stops,
                            default_folder="stops"),
    }

    def new_session(self, call_id: str, route: RouteView, options: SessionOptions) -> DispatchSession:
        stops = options.files.get("stops") or route.option("STOPS")
        if not stops:
            raise ValueError(f"no stops: set ROUTE_{route.name.upper()}_STOPS or dial --arg stops=FILE")
        return DispatchSession(call_id, stops)

    def voice_segments(self, text: str, language: str) -> list[tuple[str, str]]:
        return [(text, language)]

    def canned_lines(self, route: RouteView) -> list[tuple[str, str]]:
        return [(LINES[key], LANGUAGE) for key in ("accepted", "declined", "shutdown", "max_call_length")]

    def self_test(self) -> list[SelfTestCase]:
        def declined() -> SelfTestResult:
            s = DispatchSession("selftest", (Stop("Aidos", "12 Abai Avenue", "9 am"),))
            s.start()
            last = s.on_utterance("yeah no i cant today")
            return SelfTestResult("dispatch: a hedged no declines", last.disposition == "declined", str(last.fields))

        return [SelfTestCase("dispatch: a hedged no declines", declined)]

    def doctor_checks(self) -> list[CheckResult]:
        return [CheckResult("dispatch lines", "OK", f"{len(LINES)} lines")]


POLICY: PolicyDefinition = DispatchPolicy()
