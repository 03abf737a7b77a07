"""What a model receives for one of Ori's moves, and the check its answer must pass.

Owns `build_model_messages` (spec "what the model receives": for a non-money move the load brief in spoken
forms, then the last three exchanges with figures stripped, what he just said, the brief for the move; for a
money move no load brief; never a rupee figure, a threshold or the ceiling - the one figure she may voice is the
literal token {rate}), `strip_figures`, and `check_model_output` (rejects any figure other than {rate}, and
any budget/limit/maximum word).
Pure: no I/O.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from typing import Any

import policies.freight.lines as L
from policies.freight.figures import find_figures, say_number
from policies.freight.load import Load
from policies.freight.numerals import prepare

HISTORY_EXCHANGES = 3
MAX_MODEL_CHARS = 400
FIGURE_PLACEHOLDER = "(रकम)"
_DEVANAGARI_LETTER = re.compile(r"[\u0905-\u0939]")
_DIGIT = re.compile(r"\d")

SYSTEM_PROMPT = (
    "You are Ori (ओरी), a polite woman calling a truck vendor in India on behalf of a freight company. "
    "Speak natural spoken Hindi in Devanagari script: one or two short sentences, no lists, no emojis, no English "
    "sentences. Never say any number, amount, rate, percentage or figure of your own, never guess one, never "
    "promise anything the brief does not give you. Amounts in the conversation are shown as (रकम)."
)

MOVE_BRIEFS: dict[str, str] = {
    L.OFFER_ANCHOR: "He asked what we pay. Tell him our figure for this load, written exactly as the token {rate}, "
    "and ask what he can do.",
    L.ASK_WHY: "He has just named his rate. Ask him, politely and briefly, why it is that high - what the rate is "
    "made of. Do not name any amount and do not agree yet.",
    L.PROBE_AGAIN: "He did not explain his rate. Ask once more, gently, what it is based on (diesel, toll, an empty "
    "return). Do not name any amount.",
    L.PROBE_NEUTRAL: "He asked what we would pay instead of explaining his rate. Do not answer with any amount and do "
    "not talk about what we can pay; say politely that we will look at it once we understand his rate, and ask "
    "again what it is based on (diesel, toll, an empty return).",
    L.SQUEEZE: "His rate is reasonable. Ask him, once, whether he can come down a little more. Do not name any amount.",
    L.COUNTER: "He explained his rate. Offer our figure, written exactly as the token {rate}, and ask him to agree.",
    L.LAST_ASK: "He refused our figure. Ask one last time, warmly, whether he can reduce a little. Name no amount "
    "and do not repeat our figure.",
    L.ANSWER: "He asked something. Answer briefly from the load brief only; if the brief does not say, tell him the "
    "team will confirm. Then return to this question: ",
    L.DEAL_COUNTER: "He accepted our figure. Confirm the deal at {rate} (write the token exactly) and say the team "
    "will confirm and call him about the vehicle details.",
    L.DEFER: "His rate goes to the team. Say warmly that you have noted his rate and the team will confirm and call "
    "him. Name no amount, do not promise and do not refuse anything.",
    L.GOODBYE: "The call is done. Thank him and say goodbye in one short sentence.",
}


def strip_figures(text: str) -> str:
    """`text` (normalised) with every money-like figure replaced by (रकम) and small counts spelled in words."""
    t = prepare(text)
    figures = find_figures(t)
    if not figures and not _DIGIT.search(t):
        return text  # nothing to strip: keep the original spelling
    out: list[str] = []
    pos = 0
    for fig in figures:
        out.append(t[pos : fig.start])
        small = fig.value < 10 and all(v == int(v) for v in fig.exact)
        if fig.measure and fig.value < 1000 and all(v == int(v) for v in fig.exact):
            out.append(say_number(fig.value))
        elif small and not fig.has_multiplier:
            out.append(say_number(fig.value) if fig.has_digits else t[fig.start : fig.end])
        else:
            out.append(FIGURE_PLACEHOLDER)
        pos = fig.end
    out.append(t[pos:])
    return _DIGIT.sub("", "".join(out))


def load_brief(load: Load) -> str:
    """The load in spoken forms: route, vehicle, weight, material, pickup, who she is calling."""
    s = load.spoken()
    return (
        f"Load brief: route {s['origin']} से {s['destination']}; vehicle {s['vehicle']}; weight {s['weight']}; "
        f"material {s['material']}; pickup {s['pickup']}; you are calling {s['vendor_name']}."
    )


def build_model_messages(
    move: str,
    *,
    load: Load,
    history: Sequence[tuple[str, str]],
    utterance: str,
    follow_up: str = "",
) -> tuple[str, list[dict[str, Any]]]:
    """(system, messages) for a model-worded move. `history` is (vendor said, Ori said) pairs, oldest first."""
    sections: list[str] = []
    if move not in L.MONEY_MOVES:
        sections.append(load_brief(load))  # spoken forms already: no digits, no rupee figure
    recent = list(history)[-HISTORY_EXCHANGES:]
    if recent:
        rows = [f"Vendor: {strip_figures(v) or '(picked up)'}\nOri: {strip_figures(o)}" for v, o in recent]
        sections.append("Last exchanges:\n" + "\n".join(rows))
    sections.append(f"He just said: {strip_figures(utterance) or '(nothing)'}")
    brief = MOVE_BRIEFS[move]
    if move == L.ANSWER:
        brief += strip_figures(follow_up) or "what the call is waiting for."
    sections.append(f"Your move ({move}): {brief}")
    return SYSTEM_PROMPT, [{"role": "user", "content": "\n\n".join(sections)}]


def check_model_output(text: Any, move: str) -> str | None:
    """Why a model's line cannot be spoken (a figure other than {rate}, a missing {rate}, ...), or None if fine."""
    if not isinstance(text, str) or not text.strip():
        return "empty"
    if len(text) > MAX_MODEL_CHARS:
        return "too_long"
    has_token = L.RATE_TOKEN in text
    if move in L.FIGURE_MOVES and not has_token:
        return "figure_missing"
    if move not in L.FIGURE_MOVES and has_token:
        return "figure_not_authorised"
    rest = text.replace(L.RATE_TOKEN, " ")
    if "{" in rest or "}" in rest:
        return "template_left"
    if _DIGIT.search(prepare(rest)):
        return "foreign_figure"
    for fig in find_figures(rest):
        fractional = any(v != int(v) for v in fig.exact)
        if fig.has_multiplier or fig.has_digits or fractional or (not fig.measure and fig.value >= 10):
            return "foreign_figure"
    if "₹" in rest:
        return "foreign_figure"
    if not _DEVANAGARI_LETTER.search(rest):
        return "not_hindi"
    if L.limit_words(rest):
        return "limit_word"
    return None


def message_text(messages: Sequence[Mapping[str, Any]]) -> str:
    """All message contents joined (for checks and tests)."""
    return "\n".join(str(m.get("content", "")) for m in messages)
