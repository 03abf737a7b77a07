"""Freight: random vendor scripts never make Ori voice the ceiling, more than one concession, or a figure
outside [anchor, ceiling). The scripts mix the issue-27 classes: the wrong person answering, refusals of the
counter, fragments merged with their continuation, and fractional magnitudes (सवा/डेढ़/ढाई/पौने/आधा, "2.5 lakh",
"one and a half lakh"), which are also heard as the figure they mean."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from policies.freight import (
    DISPOSITIONS,
    POLICY,
    FreightSession,
    Load,
    Phase,
    ceiling_leaks,
    hear_rate,
    say_rate,
)
from policies.freight.intents import utterance_may_continue
from tests.policies.freight.test_freight_understanding_dangling import FRAGMENTS
from tests.policies.freight.test_freight_understanding_refusal import REFUSALS
from tests.policies.freight.test_freight_understanding_wrong_person import ASK, HOLD, LATER
from tests.support.policies import freight_route
from tests.support.policies import session as policy_session

TEXTS = st.sampled_from(
    [
        "हां जी", "हां बोलिए", "ठीक है", "चलेगा", "नहीं", "नहीं होगा", "ना जी", "डीज़ल बहुत महंगा है",
        "वापसी खाली आना पड़ता है", "टोल टैक्स लगता है", "कितने टन है?", "पिकअप कब है?", "आप कितना दोगे?",
        "आवाज़ नहीं आ रही", "क्या?", "साले", "बेवकूफ", "bye", "बाद में कॉल करना", "गलत नंबर", "हेलो",
        "धन्यवाद", "done", "ओके", "तो मेरा rate लगभग", "नमस्ते",
        *ASK, *HOLD, *LATER, *REFUSALS, *FRAGMENTS,
    ]
)  # fmt: skip
# (words, fraction of the multiplier): a count k is added where the form takes one ("सवा {k}" = k + 1/4).
FRACTION_FORMS = (
    ("सवा {k}", 0.25), ("sava {k}", 0.25), ("savva {k}", 0.25), ("पौने {k}", -0.25), ("paune {k}", -0.25),
    ("pone {k}", -0.25), ("साढ़े {k}", 0.5), ("saadhe {k}", 0.5), ("sadhe {k}", 0.5), ("{k} and a half", 0.5),
    ("{k}.5", 0.5), ("{k}.25", 0.25), ("{k}.75", 0.75),
)  # fmt: skip
FRACTION_UNITS = (("डेढ़", 1.5), ("dedh", 1.5), ("derh", 1.5), ("ढाई", 2.5), ("dhai", 2.5), ("dhaai", 2.5),
                  ("आधा", 0.5), ("adha", 0.5), ("aadha", 0.5), ("पौना", 0.75), ("one and a half", 1.5),
                  ("two and a half", 2.5))  # fmt: skip
MULTIPLIERS = ((1_000, ("हज़ार", "hazaar", "thousand")), (100_000, ("लाख", "lakh", "lac")))


@st.composite
def loads(draw: st.DrawFn) -> Load:
    anchor = draw(st.integers(min_value=5_000, max_value=3_00_000))
    gap = draw(st.integers(min_value=2, max_value=anchor))
    return Load(
        vendor_name="रमेश", origin="दिल्ली", destination="जयपुर", vehicle="बत्तीस फीट", weight="15",
        material="कपड़ा", pickup="कल", anchor=anchor, ceiling=anchor + gap,
    )  # fmt: skip


def figure_text(draw: st.DrawFn, load: Load) -> str:
    """A vendor figure near the ladder (often exactly the anchor or the ceiling), in a random spoken form."""
    n = draw(
        st.one_of(
            st.sampled_from([load.anchor, load.ceiling, load.ceiling + 1, load.anchor - 1]),
            st.integers(min_value=max(500, load.anchor // 2), max_value=load.ceiling * 2),
        )
    )
    form = draw(st.sampled_from(["words", "digits", "comma", "k", "range", "sentence"]))
    if form == "words":
        return say_rate(n)
    if form == "digits":
        return str(n)
    if form == "comma":
        return f"₹{n:,}"
    if form == "k" and n % 1000 == 0:
        return f"{n // 1000}k"
    if form == "range":
        return f"{max(500, n - 1000)}-{n}"
    return f"मेरा रेट {say_rate(n)} है"


def fraction_text(draw: st.DrawFn, near: int) -> tuple[str, int]:
    """A fractional magnitude near `near`, in a random spoken form, and the figure it means."""
    scale, words = draw(st.sampled_from(MULTIPLIERS))
    word = draw(st.sampled_from(words))
    if draw(st.booleans()):
        unit, x = draw(st.sampled_from(FRACTION_UNITS))
        text = f"{unit} {word}"
    else:
        form, frac = draw(st.sampled_from(FRACTION_FORMS))
        k = draw(st.integers(min_value=1, max_value=max(1, min(99, 3 * near // scale))))
        text, x = f"{form.format(k=k)} {word}", k + frac
    frame = draw(st.sampled_from(["{}", "मेरा रेट {} रहेगा", "rate {} lagega", "bas {} final", "{} rupaye"]))
    return frame.format(text), round(x * scale)


@st.composite
def fractions(draw: st.DrawFn) -> tuple[str, int]:
    return fraction_text(draw, draw(st.integers(min_value=5_000, max_value=3_00_000)))


@settings(max_examples=300, deadline=None)
@given(fractions())
def test_fractional_magnitudes_are_heard_as_the_figure_they_mean(case: tuple[str, int]) -> None:
    text, value = case
    assert hear_rate(text) == value, text


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(FRAGMENTS), st.integers(min_value=1_000, max_value=50_00_000), st.booleans())
def test_a_fragment_is_held_until_its_figure_arrives(fragment: str, n: int, words: bool) -> None:
    assert utterance_may_continue(fragment)
    merged = f"{fragment} {say_rate(n) if words else n}"
    assert not utterance_may_continue(merged) and hear_rate(merged) == n


@st.composite
def scripts(draw: st.DrawFn) -> tuple[Load, list[tuple[str, str]], bool, list[str]]:
    load = draw(loads())
    steps: list[tuple[str, str]] = []
    for _ in range(draw(st.integers(min_value=1, max_value=14))):
        kind = draw(st.sampled_from(["text", "text", "figure", "figure", "fraction", "fragment", "silence",
                                     "not_heard", "dtmf"]))  # fmt: skip
        if kind == "figure":
            steps.append((kind, figure_text(draw, load)))
        elif kind == "fraction":
            steps.append(("figure", fraction_text(draw, load.ceiling)[0]))
        elif kind == "fragment":  # what the turn holder decides: the fragment merged with its figure
            steps.append(("figure", f"{draw(st.sampled_from(FRAGMENTS))} {figure_text(draw, load)}"))
        else:
            steps.append((kind, draw(TEXTS)))
    model = draw(st.booleans())
    c = load.ceiling
    outputs = draw(
        st.lists(
            st.sampled_from(
                [
                    "ठीक है जी, {rate} पर बात करते हैं।", "इतना क्यों जी?", f"हम {say_rate(c)} तक जा सकते हैं",
                    f"ठीक है {c}", f"{{rate}} नहीं तो {say_rate(c)}", "धन्यवाद जी, नमस्ते।", "", "{rate}",
                    f"max {c // 1000}k", "थोड़ा कम कीजिए ना जी",
                ]
            ),
            min_size=20, max_size=20,
        )
    )  # fmt: skip
    return load, steps, model, outputs


@settings(max_examples=250, deadline=None)
@given(scripts(), st.text(min_size=1, max_size=12))
def test_random_scripts_keep_the_ladder(script: tuple, call_id: str) -> None:
    load, steps, model, outputs = script
    session = policy_session(freight_route(load), call_id, model_available=model)
    assert isinstance(session, FreightSession)
    replies = [session.start()]
    out = iter(outputs)
    for kind, text in steps:
        if kind == "figure" or kind == "text":
            reply = session.on_utterance(text)
        elif kind == "silence":
            reply = session.on_silence()
        elif kind == "not_heard":
            reply = session.on_not_heard()
        else:
            reply = session.on_dtmf("1")
        while reply.effect is not None:
            reply = session.on_effect_result(next(out, None))
        replies.append(reply)
    concession = session.concession
    assert load.anchor < concession < load.ceiling
    closed = False
    for reply in replies:
        assert set(reply.fields) == set(POLICY.turn_fields)
        assert reply.language == "hi"
        assert not ceiling_leaks(reply.text, load.ceiling), reply.text
        heard_back = hear_rate(reply.text or "")
        assert heard_back in (None, load.anchor, concession), reply.text
        offered = reply.fields["offered_rate"]
        assert offered is None or load.anchor <= offered < load.ceiling
        if closed:
            assert reply.text is None  # nothing is said after the call was closed
        if reply.hang_up:
            assert reply.fields["phase"] == Phase.CLOSING.name and reply.disposition in DISPOSITIONS
            closed = True
    assert session.guard_hits == 0  # the ladder itself never tried to voice the ceiling
    assert set(session.offered) <= {load.anchor, concession}
    assert len(set(session.offered) - {load.anchor}) <= 1  # at most one concession per call
