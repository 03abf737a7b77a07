"""`FreightPolicy`: the freight policy's `PolicyDefinition` (its route options, file option, session factory, lines).

Owns how a route and a call's options become a session: the load is the call's own file option `load` (`dial
--arg load=FILE`; the runtime accepts it only inside the route's `LOADS_DIR` and reads it with
`load_from_file`) or else the route's `LOAD` option, which is read and checked where the runtime is assembled
(start-up, reload, doctor), so a route whose load is missing or invalid never starts.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import policies.freight.lines as L
from ai_operator.dialogue import (
    CheckResult,
    FileOption,
    OptionContext,
    RouteOption,
    RouteView,
    SelfTestCase,
    SessionOptions,
    ToolSpec,
)
from policies.freight.load import Load, LoadError, load_from_file
from policies.freight.session import LANGUAGE, FreightSession

LOADS_DIR = "LOADS_DIR"  # the route option naming the folder of load files


def parse_load_option(raw: str, ctx: OptionContext) -> Load:
    """`ROUTE_<NAME>_LOAD`: a load file, relative to the route's LOADS_DIR; read and validated now."""
    path = Path(raw.strip())
    if not path.is_absolute():
        path = ctx.folder(LOADS_DIR) / path
    return load_from_file(path)


class FreightPolicy:
    """Hindi freight-rate negotiation (seed 000): Ori calls a truck vendor about one load."""

    name = "freight"
    languages: tuple[str, ...] = (LANGUAGE,)
    state_field = "phase"
    turn_fields: tuple[str, ...] = ("phase", "heard_rate", "offered_rate", "disposition")
    tools: tuple[ToolSpec, ...] = ()
    demo_caller: tuple[tuple[str, str], ...] = (
        ("hi", "हां जी, मैं ही बोल रहा हूं।"),
        ("hi", "इसका रेट छब्बीस हज़ार लगेगा।"),
        ("hi", "डीज़ल बहुत महंगा है और टोल भी लगता है।"),
        ("hi", "ठीक है, चलेगा।"),
        ("hi", "ठीक है जी, धन्यवाद।"),
    )
    route_options: Mapping[str, RouteOption] = {
        "LOAD": RouteOption("the default load JSON file (relative: to the route's LOADS_DIR)", parse_load_option,
                            required=True),
    }
    file_options: Mapping[str, FileOption] = {
        "load": FileOption("a load JSON file for this call (dial --arg load=FILE)", LOADS_DIR, load_from_file,
                           default_folder="loads"),
    }

    def new_session(self, call_id: str, route: RouteView, options: SessionOptions) -> FreightSession:
        """A fresh session; raises `LoadError` (naming the file and field) when the call's load is refused."""
        load = options.files.get("load") or route.option("LOAD")
        if not isinstance(load, Load):
            raise LoadError("", "load", f"no load: set ROUTE_{route.name.upper()}_LOAD or pass --arg load=FILE")
        return FreightSession(call_id, load, model_available=options.model_available,
                              max_misunderstood=options.max_misunderstood_turns)

    def voice_segments(self, text: str, language: str) -> list[tuple[str, str]]:
        return [(text, language)]

    def canned_lines(self, route: RouteView) -> list[tuple[str, str]]:
        return [(L.SHUTDOWN, LANGUAGE), (L.MAX_CALL_LENGTH, LANGUAGE)]

    def self_test(self) -> list[SelfTestCase]:
        from policies.freight.selftest import self_test_cases

        return self_test_cases()

    def doctor_checks(self) -> list[CheckResult]:
        from policies.freight.selftest import doctor_checks

        return doctor_checks()
