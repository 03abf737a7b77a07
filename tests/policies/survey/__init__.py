"""`survey`: a two-question yes/no customer survey in English. It lives only here, in the tests, to prove that a
policy is just a folder: it runs through the console, the daemon with the simulated PBX, doctor and the
self-test with `POLICY_PATH` pointing at `tests/policies`, and nothing outside this folder knows about it."""

from __future__ import annotations

from collections.abc import Mapping

from policies.survey.session import LINES, SurveySession

from ai_operator.dialogue import (
    CheckResult,
    PolicyDefinition,
    RouteOption,
    RouteView,
    SelfTestCase,
    SelfTestResult,
    SessionOptions,
    ToolSpec,
)


def _parse_questions(raw: str, _ctx: object) -> int:
    value = int(raw)
    if not 1 <= value <= 2:
        raise ValueError(f"expected 1 or 2 questions, got {raw!r}")
    return value


class SurveyPolicy:
    name = "survey"
    languages: tuple[str, ...] = ("en",)
    state_field = "step"
    turn_fields: tuple[str, ...] = ("step", "answers")
    tools: tuple[ToolSpec, ...] = ()
    demo_caller: tuple[tuple[str, str], ...] = (("en", "yes I was"), ("en", "no"))
    route_options: Mapping[str, RouteOption] = {
        "QUESTIONS": RouteOption("how many of the two questions to ask (1 or 2)", _parse_questions),
    }

    def new_session(self, call_id: str, route: RouteView, options: SessionOptions) -> SurveySession:
        return SurveySession(call_id, questions=route.option("QUESTIONS") or 2)

    def voice_segments(self, text: str, language: str) -> list[tuple[str, str]]:
        return [(text, language)]

    def canned_lines(self, route: RouteView) -> list[tuple[str, str]]:
        return [(LINES["greeting"], "en"), (LINES["shutdown"], "en")]

    def self_test(self) -> list[SelfTestCase]:
        def yes_no() -> SelfTestResult:
            s = SurveySession("selftest", questions=2)
            s.start()
            s.on_utterance("yeah sure")
            last = s.on_utterance("no not really")
            ok = last.hang_up and s.answers == ["yes", "no"]
            return SelfTestResult("survey: yes then no completes", bool(ok), str(s.answers))

        return [SelfTestCase("survey: yes then no completes", yes_no)]

    def doctor_checks(self) -> list[CheckResult]:
        return [CheckResult("survey lines", "OK" if all(LINES.values()) else "FAIL", f"{len(LINES)} lines")]


POLICY: PolicyDefinition = SurveyPolicy()
