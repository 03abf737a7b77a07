"""`dialogue-self-test` and `doctor` for the freight policy: scripted calls walking every arrow of the phase
diagram, hear_rate cases, the ceiling guard, how vendors are understood (selftest_understanding.py: the ceiling
never in wording, callbacks, figures as said, a question back while probing), and checks of the shipped sample
load.

Owns `ARROW_SCRIPTS` (also used by the tests), `run_script`, `self_test_cases` and `doctor_checks`. Pure except
that `doctor_checks` reads etc/loads/sample.json through `load_from_file`.
"""

from __future__ import annotations

from collections.abc import Sequence
from importlib import resources
from pathlib import Path
from typing import Any

import policies.freight.lines as L
from ai_operator.dialogue import CheckResult, SelfTestCase
from policies.freight.figures import say_rate
from policies.freight.ladder import ceiling_leaks, concession_for
from policies.freight.load import Load, LoadError, load_from_file
from policies.freight.quotes import hear_rate
from policies.freight.selftest_understanding import understanding_cases
from policies.freight.session import FreightSession

# package data (in a checkout a link to etc/loads/sample.json), so an installed wheel has it too
SAMPLE_LOAD_PATH = Path(str(resources.files("policies.freight").joinpath("sample_load.json")))
SELF_TEST_LOAD = Load(
    vendor_name="रमेश", origin="दिल्ली", destination="जयपुर", vehicle="बत्तीस फीट कंटेनर", weight="15",
    material="कपड़े के कार्टन", pickup="कल सुबह दस बजे", anchor=20_000, ceiling=26_000,
)  # fmt: skip
CONCESSION = "CONCESSION"  # placeholder in expectations for the call's concession figure

Step = tuple[str, str, dict[str, Any]]  # utterance, phase after it, expected fields (subset)
CONFIRM: Step = ("हां जी, मैं रमेश ही बोल रहा हूं, बोलिए", "PITCHED", {})
QUOTE: Step = ("पच्चीस हज़ार लगेगा", "PROBING", {"heard_rate": 25_000})
JUSTIFY: Step = ("डीज़ल बहुत महंगा है और टोल भी लगता है", "COUNTERED", {"offered_rate": CONCESSION})
REFUSE: Step = ("नहीं, इतने में नहीं होगा", "LAST_ASK", {"offered_rate": None})

ARROW_SCRIPTS: dict[str, list[Step]] = {
    "opening_to_pitched": [CONFIRM],
    "opening_wrong_number": [("ग़लत नंबर है भाई", "CLOSING", {"disposition": "wrong_number"})],
    "opening_voicemail": [
        ("आप जिस नंबर पर कॉल कर रहे हैं वह अभी उपलब्ध नहीं है", "CLOSING", {"disposition": "voicemail"})
    ],
    "opening_callback": [("अभी बिज़ी हूं, बाद में कॉल करना", "CLOSING", {"disposition": "callback"})],
    "opening_abuse_twice": [
        ("चुप कर साले", "OPENING", {"disposition": None}),
        ("बेवकूफ कहीं के", "CLOSING", {"disposition": "abuse"}),
    ],
    "pitched_figure_probing": [CONFIRM, QUOTE],
    "pitched_under_anchor_squeezed": [
        CONFIRM,
        ("उन्नीस हज़ार", "SQUEEZED", {"heard_rate": 19_000, "offered_rate": None}),
    ],
    "pitched_over_ceiling_probing": [CONFIRM, ("तीस हज़ार से कम नहीं", "PROBING", {"heard_rate": 30_000})],
    "probing_justified_countered": [CONFIRM, QUOTE, JUSTIFY],
    "probing_new_figure_reevaluated": [
        CONFIRM,
        QUOTE,
        ("चलो साढ़े चौबीस हज़ार कर दूंगा", "PROBING", {"heard_rate": 24_500}),
    ],
    "probing_new_figure_under_anchor": [
        CONFIRM,
        QUOTE,
        ("अच्छा बीस हज़ार", "SQUEEZED", {"heard_rate": 20_000}),
    ],
    "probing_bare_ack_asks_once_more": [
        CONFIRM,
        QUOTE,
        ("हां जी", "PROBING", {"offered_rate": None}),
        ("हां जी", "COUNTERED", {"offered_rate": CONCESSION}),
    ],
    "probing_question_stays": [CONFIRM, QUOTE, ("माल कितने टन है?", "PROBING", {})],
    "probing_held_over_ceiling_deferred": [
        CONFIRM,
        ("तीस हज़ार", "PROBING", {}),
        ("डीज़ल महंगा है, इससे कम नहीं होगा", "DEFERRED", {"disposition": "deferred_over_ceiling"}),
    ],
    "squeezed_accepts_quote": [
        CONFIRM,
        ("उन्नीस हज़ार", "SQUEEZED", {}),
        ("नहीं, इससे कम नहीं", "DEFERRED", {"disposition": "deal_at_quote"}),
    ],
    "squeezed_lower_figure": [
        CONFIRM,
        ("उन्नीस हज़ार", "SQUEEZED", {}),
        ("चलो साढ़े अठारह हज़ार", "DEFERRED", {"disposition": "deal_at_quote"}),
    ],
    "countered_yes_deal": [
        CONFIRM,
        QUOTE,
        JUSTIFY,
        ("ठीक है, चलेगा", "DEFERRED", {"disposition": "deal_at_counter"}),
    ],
    "countered_no_last_ask": [CONFIRM, QUOTE, JUSTIFY, REFUSE],
    "last_ask_settles": [
        CONFIRM,
        QUOTE,
        JUSTIFY,
        REFUSE,
        ("नहीं जी, यही रेट है", "DEFERRED", {"disposition": "deal_at_quote"}),
    ],
    "deferred_ack_closes": [
        CONFIRM,
        QUOTE,
        JUSTIFY,
        ("हां ठीक है", "DEFERRED", {}),
        ("ठीक है जी, धन्यवाद", "CLOSING", {"disposition": "deal_at_counter"}),
    ],
}

HEAR_CASES: dict[str, int | None] = {
    "साढ़े बाईस हज़ार": 22_500, "सवा लाख": 125_000, "पौने दो लाख": 175_000, "डेढ़ लाख": 150_000,
    "ढाई हज़ार": 2_500, "बाईस-तेईस हज़ार": 23_000, "२३०००": 23_000, "23000/-": 23_000, "23k": 23_000,
    "twenty three thousand": 23_000, "₹23,000": 23_000, "हां जी बोलिए": None,
}  # fmt: skip


def _expect(value: Any, concession: int) -> Any:
    return concession if value == CONCESSION else value


def run_script(session: FreightSession, steps: Sequence[Step]) -> list[str]:
    """Play `steps` against a started session; the list of mismatches (empty when the script holds)."""
    problems: list[str] = []
    for n, (utterance, phase, fields) in enumerate(steps, 1):
        reply = session.on_utterance(utterance)
        got = reply.fields
        if got.get("phase") != phase:
            problems.append(f"step {n} {utterance!r}: phase {got.get('phase')} != {phase}")
        for key, value in fields.items():
            want = _expect(value, session.concession)
            if got.get(key) != want:
                problems.append(f"step {n} {utterance!r}: {key} {got.get(key)!r} != {want!r}")
        if phase == "CLOSING" and not reply.hang_up:
            problems.append(f"step {n}: CLOSING without hang_up")
        if ceiling_leaks(reply.text, session.load.ceiling):
            problems.append(f"step {n}: the reply voices the ceiling")
    return problems


_case = SelfTestCase.of_problems


def _script_case(name: str, steps: list[Step]) -> SelfTestCase:
    def fn() -> list[str]:
        session = FreightSession(f"selftest-{name}", SELF_TEST_LOAD)
        session.start()
        return run_script(session, steps)

    return _case(f"freight:{name}", fn)


def _hear_cases() -> list[str]:
    return [
        f"{t!r}: heard {hear_rate(t)} != {want}" for t, want in HEAR_CASES.items() if hear_rate(t) != want
    ]


def _ceiling_guard() -> list[str]:
    session = FreightSession("selftest-guard", SELF_TEST_LOAD, model_available=True)
    session.start()
    session.on_utterance(CONFIRM[0])
    session.on_utterance(QUOTE[0])
    pending = session.on_utterance(JUSTIFY[0])
    if pending.effect is None:
        return ["counter with a model configured did not ask the model"]
    reply = session.on_effect_result("ठीक है, {rate} नहीं तो छब्बीस हज़ार तक चलेगा")
    problems = []
    if ceiling_leaks(reply.text, SELF_TEST_LOAD.ceiling):
        problems.append("a model line naming the ceiling was spoken")
    if reply.fields.get("offered_rate") != session.concession:
        problems.append("the fallback counter did not voice the concession")
    return problems


def self_test_cases() -> list[SelfTestCase]:
    cases = [_script_case(name, steps) for name, steps in ARROW_SCRIPTS.items()]
    cases.append(_case("freight:hear_rate", _hear_cases))
    cases.append(_case("freight:ceiling_guard", _ceiling_guard))
    return cases + understanding_cases()


def doctor_checks() -> list[CheckResult]:
    out: list[CheckResult] = []
    load = SELF_TEST_LOAD
    if not SAMPLE_LOAD_PATH.is_file():
        out.append(
            CheckResult("freight sample load", "WARN", f"{SAMPLE_LOAD_PATH} not shipped with this install")
        )
    else:
        try:
            load = load_from_file(SAMPLE_LOAD_PATH)
            out.append(CheckResult("freight sample load", "OK", str(SAMPLE_LOAD_PATH)))
        except LoadError as exc:
            out.append(CheckResult("freight sample load", "FAIL", f"{exc} - fix the file"))
    c = concession_for("doctor", load)
    bad = [
        n for n in (load.anchor, c, *range(load.anchor, load.ceiling + 1, 97)) if hear_rate(say_rate(n)) != n
    ]
    out.append(
        CheckResult(
            "freight hear/say round trip",
            "FAIL" if bad else "OK",
            f"not heard back: {bad[:5]}" if bad else "",
        )
    )
    spoken = load.spoken()
    with_digits = [k for k in L.CANNED if any(ch.isdigit() for ch in L.canned(k, spoken, say_rate(c)))]
    out.append(
        CheckResult(
            "freight canned lines have no digits",
            "FAIL" if with_digits else "OK",
            f"lines with digits: {', '.join(with_digits)}" if with_digits else "",
        )
    )
    leaking = [k for k in L.CANNED if ceiling_leaks(L.canned(k, spoken, say_rate(c)), load.ceiling)]
    out.append(
        CheckResult(
            "freight canned lines never voice the ceiling",
            "FAIL" if leaking else "OK",
            f"lines voicing the ceiling: {', '.join(leaking)}" if leaking else "",
        )
    )
    return out
