"""Self-test cases for the operator's rules: transitions, permission matrix, guardrail, detectors. Pure."""

from __future__ import annotations

from typing import Any

from ai_operator.dialogue import SelfTestCase
from policies.operator.language import detect_language
from policies.operator.machine import StateMachine
from policies.operator.permissions import MATRIX, TOOLS, expected_allowed, guardrail
from policies.operator.regions import resolve_region
from policies.operator.selftest_support import TOOL_ARGS, case, check, session_in
from policies.operator.states import Event, State

LINEAR = [
    ("CALL_STARTED", "call.started", "GREETING"),
    ("GREETING", "greeting.played", "LANGUAGE_SELECTION"),
    ("LANGUAGE_SELECTION", "language.selected", "REGION_SELECTION"),
    ("REGION_SELECTION", "region.selected", "READY_TO_HELP"),
    ("READY_TO_HELP", "question.received", "QUESTION_ANSWERING"),
    ("QUESTION_ANSWERING", "answer.completed", "READY_TO_HELP"),
]
ANY = [("handoff.requested", "HANDOFF"), ("closing.requested", "CLOSING"), ("call.ended", "ENDED")]
NON_ENDED = [s.value for s in MATRIX if s.value != "ENDED"]

LANGUAGE_CASES = {
    "русский": "ru",
    "на русском": "ru",
    "по-русски": "ru",
    "орысша": "ru",
    "Russian": "ru",
    "russkiy": "ru",
    "po-russki": "ru",
    "давайте на русском, пожалуйста": "ru",
    "қазақша": "kk",
    "Қазақ тілінде": "kk",
    "казахский": "kk",
    "на казахском": "kk",
    "kazakh": "kk",
    "kazakhsha": "kk",
    "qazaqsha!": "kk",
    "английский": None,
    "Казахстан": None,
    "не знаю": None,
    "русский или қазақша": None,
    "": None,
}
REGION_CASES = {
    "Караганды": "KZ-35",
    "в Караганде": "KZ-35",
    "Қарағанды облысы": "KZ-35",
    "Qaraghandy": "KZ-35",
    "из Павлодара": "KZ-55",
    "Экибастуз": "KZ-55",
    "Семей": "KZ-10",
    "Абай облысы": "KZ-10",
    "Кокшетау": "KZ-11",
    "Актобе": "KZ-15",
    "Конаев": "KZ-19",
    "Алматинская область": "KZ-19",
    "Гурьев": "KZ-23",
    "Уральск": "KZ-27",
    "Тараз": "KZ-31",
    "Талдыкорган": "KZ-33",
    "Рудный": "KZ-39",
    "Кызылорда": "KZ-43",
    "Шевченко": "KZ-47",
    "Жанаозен": "KZ-47",
    "Петропавловск": "KZ-59",
    "Кентау": "KZ-61",
    "Жезказган": "KZ-62",
    "Усть-Каменогорск": "KZ-63",
    "Өскемен": "KZ-63",
    "Нур-Султан": "KZ-71",
    "Целиноград": "KZ-71",
    "город Алматы": "KZ-75",
    "Shymkent": "KZ-79",
}
FALSE_POSITIVES = (
    "Казахстан",
    "улица Абая",
    "проспект Абая",
    "улица Жамбыла",  # "Жамбыла" alone selects KZ-31: only the street rule stops it
    "Абай көшесі",
    "область",
    "Москва",
    "Бишкек",
    "Ташкент",
    "семейный тариф",
)


def _transition_cases() -> list[SelfTestCase]:
    out = []
    for src, event, dst in LINEAR + [(s, e, d) for s in NON_ENDED for e, d in ANY]:

        def body(src: str = src, event: str = event, dst: str = dst) -> None:
            m = StateMachine(State(src))
            r = m.fire(event)
            check(r.ok and m.state == State(dst), f"{src} --{event}--> expected {dst}, got {m.state.value}")

        out.append(case(f"transition {src} --{event}--> {dst}", body))

    def invalid() -> None:
        for src in NON_ENDED:
            for ev in Event:
                m = StateMachine(State(src))
                if m.can(ev):
                    continue
                r = m.fire(ev)
                check(not r.ok and bool(r.error) and m.state == State(src), f"{src} {ev.value} should be refused")
                check(m.history[-1]["allowed"] is False, f"{src} {ev.value}: denial not in history")

    def ended() -> None:
        for ev in Event:
            m = StateMachine(State.ENDED)
            r = m.fire(ev)
            check(not r.ok and m.state == State.ENDED, f"ENDED accepted {ev.value}")

    out += [
        case("invalid transitions refused, state kept, denial recorded", invalid),
        case("ENDED is immutable", ended),
    ]
    return out


def _matrix_cases() -> list[SelfTestCase]:
    out = []
    for state_enum in MATRIX:
        state = state_enum.value
        for tool in TOOLS:

            def body(state: str = state, tool: str = tool, expect: bool = expected_allowed(state_enum, tool)) -> None:
                s = session_in(state)
                before = s.snapshot()
                call = s.call_tool(tool, TOOL_ARGS[tool])
                check(
                    call.allowed == expect, f"{tool} in {state}: expected allowed={expect}, got {call.reason}"
                )
                if not expect:
                    after = s.snapshot()
                    check(
                        after["state"] == before["state"]
                        and after["language"] == before["language"]
                        and after["region_code"] == before["region_code"],
                        "denied tool changed the session",
                    )
                    check(after["history"][-1]["allowed"] is False, "denied tool not recorded in history")

            out.append(case(f"matrix {state} x {tool}", body))
    return out


def _guardrail_cases() -> list[SelfTestCase]:
    good = (State.READY_TO_HELP, "ru", "selected", "KZ-35")
    broken = {
        "language missing": (State.READY_TO_HELP, "", "selected", "KZ-35"),
        "language not ru/kk": (State.READY_TO_HELP, "en", "selected", "KZ-35"),
        "region status ambiguous": (State.READY_TO_HELP, "ru", "ambiguous", "KZ-35"),
        "region code empty": (State.READY_TO_HELP, "kk", "selected", ""),
        "state REGION_SELECTION": (State.REGION_SELECTION, "ru", "selected", "KZ-35"),
        "state HANDOFF": (State.HANDOFF, "ru", "selected", "KZ-35"),
    }
    out = [
        case(
            "guardrail passes when all hold", lambda: check(guardrail(*good).allowed, "denied a valid search")
        )
    ]
    for name, args in broken.items():

        def denied(args: tuple[Any, ...] = args) -> None:
            check(not guardrail(*args).allowed, f"allowed {args}")

        out.append(case(f"guardrail denies: {name}", denied))
    return out


def _detector_cases() -> list[SelfTestCase]:
    def lang() -> None:
        for text, expect in LANGUAGE_CASES.items():
            check(
                detect_language(text) == expect, f"{text!r}: expected {expect}, got {detect_language(text)}"
            )

    def regions() -> None:
        for text, code in REGION_CASES.items():
            r = resolve_region(text)
            check(
                r.selected and r.region_code == code,
                f"{text!r}: expected {code}, got {r.status} {r.region_code}",
            )

    def false_positives() -> None:
        for text in FALSE_POSITIVES:
            r = resolve_region(text)
            check(not r.selected, f"{text!r} must not select a region, got {r.region_code}")

    def almaty() -> None:
        r = resolve_region("Алматы")
        check(r.almaty, f"'Алматы' alone should be ambiguous, got {r.status}")

    return [
        case("language detector", lang),
        case("region resolver: names, cities, inflections", regions),
        case("region resolver: false positives", false_positives),
        case("Алматы alone is ambiguous", almaty),
    ]


def rule_cases() -> list[SelfTestCase]:
    return [*_transition_cases(), *_matrix_cases(), *_guardrail_cases(), *_detector_cases()]
