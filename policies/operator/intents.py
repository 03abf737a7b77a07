"""Caller intents the operator policy honours in any state: human handoff and closing. Pure.

The understanding (persons and requests in ru/kk/en with case endings, negation, bot refusal, Kazakh
farewells) lives in `nlu_intents`; this module is the API the session calls.
"""

from __future__ import annotations

from policies.operator.nlu_intents import ends_on_farewell, is_closing, is_handoff_request

__all__ = ["ends_on_farewell", "is_closing", "is_handoff_request"]
