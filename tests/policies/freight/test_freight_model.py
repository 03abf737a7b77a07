"""Freight: what a model receives and what of its answer may be spoken."""

from __future__ import annotations

import re

import pytest

from ai_operator.dialogue import ModelTurn
from policies.freight import FreightSession, Load, ceiling_leaks, check_model_output, hear_rate, say_rate
from policies.freight import lines as L
from policies.freight.figures import find_figures
from policies.freight.prompts import build_model_messages, message_text, strip_figures

LOAD = Load(
    vendor_name="रमेश ट्रांसपोर्ट",
    origin="दिल्ली",
    destination="जयपुर",
    vehicle="32 फीट कंटेनर",
    weight="15",
    material="कपड़े के कार्टन",
    pickup="12 सितंबर सुबह 10 बजे",
    anchor=20_000,
    ceiling=26_000,
)


def session_at(*utterances: str, call_id: str = "model-call") -> tuple[FreightSession, object]:
    """A model-enabled session after `utterances`, resolving every model turn with its fallback."""
    s = FreightSession(call_id, LOAD, model_available=True)
    s.start()
    reply = None
    for u in utterances:
        reply = s.on_utterance(u)
        if reply.effect is not None and u != utterances[-1]:
            reply = s.on_effect_result(None)
    return s, reply


def all_rupee_figures(s: FreightSession) -> list[int]:
    return [LOAD.anchor, LOAD.ceiling, s.concession, 25_000]


def assert_clean(text: str, s: FreightSession) -> None:
    assert not re.search(r"[0-9०-९]", text), text
    for n in all_rupee_figures(s):
        assert say_rate(n).removesuffix(" रुपये") not in text
        assert all(n not in f.values for f in find_figures(text))
    assert not ceiling_leaks(text, LOAD.ceiling)


def test_counter_is_a_money_turn_without_load_brief() -> None:
    s, reply = session_at("हां जी", "पच्चीस हज़ार लगेगा", "डीज़ल बहुत महंगा है")
    effect = reply.effect
    assert isinstance(effect, ModelTurn) and effect.purpose == L.COUNTER and reply.text is None
    content = message_text(effect.messages)
    assert "Load brief" not in content and "जयपुर" not in content.split("Last exchanges")[0]
    assert "{rate}" in content  # the one figure she may voice, as a token
    assert "He just said: डीज़ल बहुत महंगा है" in content
    assert_clean(content + effect.system, s)
    assert hear_rate(effect.fallback) == s.concession  # the fallback already speaks the figure
    assert content.count("Vendor:") == 3  # the last three exchanges only


def test_non_money_turn_gets_the_spoken_load_brief_first() -> None:
    s, reply = session_at("हां जी", "माल कितना है और कहां जाना है?")
    effect = reply.effect
    assert effect.purpose == L.ANSWER
    content = message_text(effect.messages)
    assert content.startswith("Load brief:")
    for part in ("दिल्ली", "जयपुर", "बत्तीस फीट कंटेनर", "पंद्रह टन", "बारह सितंबर", "दस बजे", "रमेश"):
        assert part in content
    order = [content.index(k) for k in ("Load brief:", "Last exchanges:", "He just said:", "Your move")]
    assert order == sorted(order)
    assert "{rate}" not in content + effect.system
    assert_clean(content, s)


def test_history_strips_figures_of_both_sides() -> None:
    s, reply = session_at("हां", "पच्चीस हज़ार", "डीज़ल", "नहीं, 24,500 से कम नहीं", call_id="hist")
    # LAST_ASK after a new figure: the model sees the counter and his figures only as (रकम)
    content = message_text(reply.effect.messages)
    assert "(रकम)" in content
    assert_clean(content, s)
    assert say_rate(s.concession) not in content


@pytest.mark.parametrize(
    ("move", "output", "ok"),
    [
        (L.COUNTER, "समझ गई जी, हम {rate} कर सकते हैं, कर दीजिए?", True),
        (L.COUNTER, "समझ गई जी, हम बाईस हज़ार कर सकते हैं", False),  # no token: the figure is not ours
        (L.COUNTER, "हम {rate} दे सकते हैं, ज़्यादा से ज़्यादा पच्चीस हज़ार", False),
        (L.COUNTER, "हम {rate} दे सकते हैं, max 25k", False),
        (L.COUNTER, "हम {rate} या 24000 दे सकते हैं", False),
        (L.COUNTER, "हम {rate} या साढ़े चौबीस दे सकते हैं", False),
        (L.ASK_WHY, "इतना ज़्यादा क्यों है जी, थोड़ा बताइए?", True),
        (L.ASK_WHY, "{rate} क्यों?", False),
        (L.LAST_ASK, "थोड़ा सा कम कर दीजिए, दो सौ भी चलेगा", False),
        (L.GOODBYE, "धन्यवाद जी, नमस्ते!", True),
        (L.GOODBYE, "Thank you, bye!", False),
        (L.GOODBYE, "", False),
        (L.GOODBYE, None, False),
        (L.ANSWER, "जी, माल पंद्रह टन है, पिकअप कल सुबह है।", True),
    ],
)
def test_check_model_output(move: str, output: str | None, ok: bool) -> None:
    assert (check_model_output(output, move) is None) is ok


def test_model_output_rate_substituted() -> None:
    s, _ = session_at("हां", "पच्चीस हज़ार", "टोल")
    final = s.on_effect_result("ठीक है जी, {rate} कर देते हैं, चलेगा?")
    assert final.text == f"ठीक है जी, {say_rate(s.concession)} कर देते हैं, चलेगा?"
    assert final.fields["offered_rate"] == s.concession and final.fields["phase"] == "COUNTERED"


def test_model_output_with_foreign_figure_falls_back_to_canned() -> None:
    s, reply = session_at("हां", "पच्चीस हज़ार", "टोल")
    final = s.on_effect_result("ठीक है, {rate}, नहीं तो छब्बीस हज़ार तक चलेगा")
    assert final.text == reply.effect.fallback
    assert not ceiling_leaks(final.text, LOAD.ceiling)
    assert final.fields["offered_rate"] == s.concession


def test_no_model_result_speaks_fallback_and_goodbye_hangs_up() -> None:
    s, reply = session_at("हां", "उन्नीस हज़ार", "नहीं", "ठीक है धन्यवाद")
    assert reply.effect.purpose == L.GOODBYE and not reply.hang_up
    final = s.on_effect_result(None)
    assert final.text == L.CANNED[L.GOODBYE] and final.hang_up and final.disposition == "deal_at_quote"


def test_canned_moves_do_not_ask_the_model() -> None:
    s = FreightSession("canned", LOAD, model_available=True)
    assert s.start().effect is None
    assert s.on_utterance("हां जी").effect is None  # the pitch is canned
    assert s.on_effect_result("stray").text is None  # nothing pending: nothing spoken


def test_build_model_messages_is_pure_and_strips() -> None:
    history = [("पच्चीस हज़ार", "अच्छा जी"), ("२४००० ही लगेगा", "हम 21,800 कर सकते हैं")]
    system, messages = build_model_messages(L.SQUEEZE, load=LOAD, history=history, utterance="25k final")
    text = system + message_text(messages)
    assert not re.search(r"[0-9०-९]", text)
    assert "Load brief" not in text and "{rate}" not in text
    assert strip_figures("हम 21,800 कर सकते हैं") == "हम (रकम) कर सकते हैं"
    assert strip_figures("पच्चीस टन माल") == "पच्चीस टन माल"
