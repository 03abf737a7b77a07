"""Freight class 6: the ceiling never shows through wording. The first reply to any quote above the anchor is the
same whatever the ceiling; over random calls, two loads that differ only in the ceiling are heard identically
until the spec's flow forces a difference (the one counter against a held over-ceiling quote), and a held
over-ceiling quote hears the same wind-down as any other deferral. No line, model brief or accepted model answer
names a budget, limit or maximum in Hindi, English or Hinglish."""

from __future__ import annotations

import re
import unicodedata
from typing import Any

import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as st

from ai_operator.dialogue import ModelTurn, Reply
from policies.freight import FreightSession, Load, check_model_output, say_rate
from policies.freight import lines as L
from policies.freight.prompts import MOVE_BRIEFS, SYSTEM_PROMPT, build_model_messages, message_text
from tests.support.freight import CONFIRM, LOAD, load_with, play, started

# The words of the issue and more, written the ways they are said (checked on text without nukta).
LIMIT_DEVANAGARI = ["बजट", "सीमा", "लिमिट", "अधिकतम", "मैक्सिमम", "मैक्स", "सीलिंग", "ज्यादा से ज्यादा", "हद से",
                    "रेंज", "ऊपर नहीं जा"]  # fmt: skip
LIMIT_LATIN = r"\b(budget|limit|limits|max|maximum|ceiling|threshold|cap|upto|up to|at most|seema|adhiktam|" \
    r"zyada se zyada|jyada se jyada|range)\b"  # fmt: skip


def limit_hits(text: str) -> list[str]:
    plain = unicodedata.normalize("NFC", unicodedata.normalize("NFD", text).replace("\u093c", ""))
    hits = [w for w in LIMIT_DEVANAGARI if w in plain]
    return hits + re.findall(LIMIT_LATIN, plain.lower())


def test_no_catalog_line_names_a_budget_limit_or_maximum() -> None:
    spoken = LOAD.spoken()
    lines = [L.canned(m, spoken, say_rate(23_000), phase=p) for m in L.CANNED for p in L.ANSWER_FOLLOW_UP]
    lines += [L.render(t, spoken) for t in L.ANSWER_FOLLOW_UP.values()]
    assert len(lines) > 100
    for line in lines:
        assert limit_hits(line) == [] and L.limit_words(line) == [], line


def test_no_model_brief_names_a_budget_limit_or_maximum() -> None:
    texts = [SYSTEM_PROMPT, *MOVE_BRIEFS.values()]
    history = [("pachees hazaar", L.CANNED[L.ASK_WHY]), ("diesel mehnga hai", L.CANNED[L.COUNTER])]
    for move in L.MODEL_MOVES:
        system, messages = build_model_messages(move, load=LOAD, history=history, utterance="haan ji",
                                                follow_up=L.ANSWER_FOLLOW_UP["PROBING"])  # fmt: skip
        texts += [system, message_text(messages)]
    for text in texts:
        assert limit_hits(text) == [] and L.limit_words(text) == [], text


MODEL_LINES_NAMING_A_LIMIT = [
    "ये रेट हमारे बजट से बाहर है जी",
    "हमारी लिमिट इतनी नहीं है जी, थोड़ा कम कीजिए",
    "इससे ऊपर हम नहीं जा पाएंगे जी",
    "ज़्यादा से ज़्यादा {rate} दे सकते हैं",
    "हमारी सीमा {rate} है जी",
    "अधिकतम हम {rate} ही कर सकते हैं",
    "मैक्सिमम {rate} हो पाएगा जी",
    "ये हमारी रेंज से बाहर है जी",
    "जी हमारा budget कम है",
    "max {rate} ही दे पाएंगे जी",
    "बस {rate} तक ही limit है जी",
    "zyada se zyada {rate} जी",
    "हमारे सीलिंग से ऊपर है जी",
    "इस हद से आगे नहीं जा सकते जी",
    "upto {rate} हो सकता है जी",
    "सबसे ज़्यादा {rate} जी",
]


@pytest.mark.parametrize("line", MODEL_LINES_NAMING_A_LIMIT)
def test_a_model_line_naming_a_limit_is_never_spoken(line: str) -> None:
    move = L.COUNTER if "{rate}" in line else L.ASK_WHY
    assert check_model_output(line, move) is not None


# Quotes above the anchor (20,000) as vendors say them; the sessions below put the ceiling on either side.
QUOTES_ABOVE_ANCHOR = [
    "pachees hazaar lagega", "bhai tees hazaar se kam nahi hoga", "rate 45000 final", "do lakh",
    "chhabbis hazar", "छब्बीस हज़ार पांच सौ", "सत्ताईस हज़ार लगेगा भाई", "तीस-बत्तीस हज़ार", "28k",
    "इक्कीस हज़ार", "saade bais hazaar", "2 4 5 0 0", "चालीस हजार रुपये", "₹26,500", "twenty seven thousand",
]  # fmt: skip


def first_reply(load: Load, quote: str, *, model: bool = False) -> tuple[Any, ...]:
    session = started("same-call", load, model=model)
    play(session, CONFIRM)
    return heard(session.on_utterance(quote))


def heard(reply: Reply) -> tuple[Any, ...]:
    """Everything of a reply that can reach the vendor: the line, or what the model is asked for it."""
    effect = reply.effect
    model = (effect.system, message_text(effect.messages), effect.fallback, effect.purpose) \
        if isinstance(effect, ModelTurn) else None  # fmt: skip
    return reply.text, model, reply.hang_up, tuple(sorted(reply.fields.items()))


@pytest.mark.parametrize("quote", QUOTES_ABOVE_ANCHOR)
@pytest.mark.parametrize("model", [False, True])
def test_the_ask_why_reply_is_the_same_on_both_sides_of_the_ceiling(quote: str, model: bool) -> None:
    replies = {first_reply(load_with(ceiling=c), quote, model=model) for c in (20_002, 22_000, 26_000, 500_000)}
    assert len(replies) == 1
    text, brief, _, fields = replies.pop()
    assert dict(fields)["phase"] == "PROBING"
    assert text == L.CANNED[L.ASK_WHY] or brief[3] == L.ASK_WHY


@st.composite
def ladders(draw: st.DrawFn) -> tuple[int, int, int]:
    anchor = draw(st.integers(min_value=5_000, max_value=3_00_000))
    c1 = draw(st.integers(min_value=anchor + 2, max_value=anchor * 3))
    c2 = draw(st.integers(min_value=anchor + 2, max_value=anchor * 3))
    return anchor, min(c1, c2), max(c1, c2)


def spoken(draw: st.DrawFn, n: int) -> str:
    form = draw(st.sampled_from(["words", "digits", "k", "sentence", "range", "comma"]))
    if form == "words":
        return say_rate(n)
    if form == "k" and n % 1000 == 0:
        return f"{n // 1000}k"
    if form == "sentence":
        return f"bhai {say_rate(n)} lagega"
    if form == "range":
        return f"{max(500, n - 1000)}-{n}"
    if form == "comma":
        return f"₹{n:,}"
    return str(n)


@settings(max_examples=300, deadline=None)
@given(ladders(), st.data(), st.booleans())
def test_the_first_reply_to_any_quote_above_the_anchor_ignores_the_ceiling(ladder, data, model) -> None:
    anchor, c1, c2 = ladder
    quote = data.draw(st.one_of(st.integers(anchor + 1, c2 * 2), st.sampled_from([c1, c1 + 1, c2, c2 + 1])))
    assume(quote > anchor)
    text = spoken(data.draw, quote)
    low, high = (first_reply(load_with(anchor=anchor, ceiling=c), text, model=model) for c in (c1, c2))
    assert low == high


STEP_TEXTS = [
    "haan ji bolo", "diesel bahut mehnga hai", "toll lagta hai bhai", "theek hai chalega", "nahi hoga",
    "haan ji", "aap kitna doge", "आपका बजट क्या है", "kya awaaz nahi aa rahi", "1500 per ton",
    "mera number 98765 43210", "pickup kab hai", "dhanyavad", "इससे कम नहीं होगा", "ok done",
]  # fmt: skip
FLOW_FORCED = {L.COUNTER, L.DEAL_COUNTER, L.DEFER}  # moves where the spec lets the two calls part


@st.composite
def scripts(draw: st.DrawFn) -> tuple[tuple[int, int, int], list[tuple[str, str]]]:
    ladder = draw(ladders())
    anchor, c1, c2 = ladder
    steps = []
    for _ in range(draw(st.integers(min_value=1, max_value=10))):
        kind = draw(st.sampled_from(["text", "figure", "figure", "silence", "not_heard"]))
        if kind == "figure":
            n = draw(st.one_of(st.integers(max(500, anchor // 2), c2 * 2),
                               st.sampled_from([anchor, anchor + 1, c1, c1 + 1, c2, c2 + 1])))  # fmt: skip
            steps.append(("text", spoken(draw, n)))
        elif kind == "text":
            steps.append(("text", draw(st.sampled_from(STEP_TEXTS))))
        else:
            steps.append((kind, ""))
    return ladder, steps


def run(load: Load, steps: list[tuple[str, str]], model: bool) -> list[tuple[tuple[Any, ...], str]]:
    """What the vendor hears at each reply of a scripted call, with the move that produced it."""
    session = FreightSession("same-call", load, model_available=model)
    session.start()
    play(session, CONFIRM)
    out = []
    for kind, text in steps:
        reply = session.on_utterance(text) if kind == "text" else (
            session.on_silence() if kind == "silence" else session.on_not_heard())  # fmt: skip
        while True:
            text_, brief, hang, _ = heard(reply)
            out.append(((text_, brief, hang), session.moves[-1]))
            if reply.effect is None:
                break
            reply = session.on_effect_result(None)
    return out


@settings(max_examples=300, deadline=None)
@given(scripts(), st.booleans())
def test_a_call_reveals_nothing_of_the_ceiling_but_what_the_flow_forces(script, model) -> None:
    (anchor, c1, c2), steps = script
    low, high = (run(load_with(anchor=anchor, ceiling=c), steps, model) for c in (c1, c2))
    for (text, _, _), move in low + high:  # every wind-down is the one DEFER line, whatever the disposition
        if move == L.DEFER and text is not None:
            assert text == L.CANNED[L.DEFER]
    for (a, move_a), (b, move_b) in zip(low, high, strict=True):
        if a != b:  # the first difference: only where the spec parts the calls, and one side counters
            moves = {move_a, move_b}
            assert moves <= FLOW_FORCED and moves & {L.COUNTER, L.DEAL_COUNTER}, (moves, steps)
            break


def test_a_held_over_ceiling_quote_and_a_taken_quote_hear_the_same_wind_down() -> None:
    over = started("wind-down")
    play(over, CONFIRM, "tees hazaar")
    held = play(over, "isse kam nahi hoga bhai")
    taken = started("wind-down")
    play(taken, CONFIRM, "unnis hazaar")
    took = play(taken, "nahi isse kam nahi")
    assert (over.disposition, taken.disposition) == ("deferred_over_ceiling", "deal_at_quote")
    assert held.text == took.text == L.CANNED[L.DEFER]
