"""A turn the rules could not read, asked of the model as a constrained classification.

Owns, for the phases where an unread turn would only be asked again (OPENING, PITCHED): the allowed labels, the
JSON schema the answer must match (one `label`, an enum of exactly those values), the model input
(`classification_turn`: the schema, her last line and his words with every figure stripped - no load, no
rupee figure, nothing of the ladder), `read_label` (the policy's own validation: anything but a JSON object
with an allowed label is None, and the turn is asked again as without a model) and `apply`, which turns a
label into the reading the phase machine understands. Pure: no I/O.
"""

from __future__ import annotations

import dataclasses
import json
from typing import Any

from policies.freight.intents import Intent
from policies.freight.prompts import strip_figures

PURPOSE = "classify"
UNCLEAR = "unclear"
LABELS: dict[str, tuple[str, ...]] = {
    "OPENING": ("right_person", "wrong_number", "callback", "not_interested", UNCLEAR),
    "PITCHED": ("callback", "not_interested", "asks_our_rate", "question", UNCLEAR),
}
LABEL_MEANINGS = {
    "right_person": "he confirms he is the person she asked for, or invites her to go on",
    "wrong_number": "he says she has the wrong number or person",
    "callback": "he is busy or asks to be called or told later",
    "not_interested": "he has no vehicle or does not want the load, or ends the call",
    "asks_our_rate": "he asks what rate or amount she will pay",
    "question": "he asks something about the load (route, weight, material, pickup)",
    UNCLEAR: "none of these, or you cannot tell",
}
_FLAGS = {
    "right_person": {"right_person": True},
    "wrong_number": {"wrong_number": True},
    "callback": {"callback": True},
    "not_interested": {"farewell": True},
    "asks_our_rate": {"our_rate": True},
    "question": {"question": True},
}


def schema(phase: str) -> dict[str, Any]:
    """The JSON schema of the answer in `phase`: {"label": one of the allowed values}."""
    return {
        "type": "object",
        "properties": {"label": {"type": "string", "enum": list(LABELS[phase])}},
        "required": ["label"],
        "additionalProperties": False,
    }


def classification_turn(phase: str, her_line: str, his_words: str) -> tuple[str, list[dict[str, Any]]]:
    """(system, messages) asking the model which allowed label fits what the vendor said."""
    meanings = "\n".join(f"- {label}: {LABEL_MEANINGS[label]}" for label in LABELS[phase])
    system = (
        "You label one turn of a Hindi phone call between Ori, who calls truck vendors about a load, and a "
        "vendor. The vendor's words come from speech recognition (Hindi, Hinglish or English; no punctuation). "
        "Answer with one JSON object only, no other text, matching this JSON schema: "
        f"{json.dumps(schema(phase))}\nLabels:\n{meanings}"
    )
    content = f"Ori said: {strip_figures(her_line) or '(nothing)'}\nThe vendor said: {strip_figures(his_words)}"
    return system, [{"role": "user", "content": content}]


def read_label(result: Any, phase: str) -> str | None:
    """The allowed label in the model's answer, or None when the answer is not exactly what the schema allows."""
    if not isinstance(result, str):
        return None
    text = result.strip().removeprefix("```json").removeprefix("```").removesuffix("```").strip()
    try:
        data = json.loads(text)
    except ValueError:
        return None
    if not isinstance(data, dict) or set(data) != {"label"}:
        return None
    label = data["label"]
    return label if isinstance(label, str) and label in LABELS.get(phase, ()) else None


def apply(it: Intent, label: str | None) -> Intent:
    """The reading of the turn with the model's label (unchanged for None and "unclear")."""
    flags = _FLAGS.get(label or "")
    return dataclasses.replace(it, unknown=False, **flags) if flags else it
