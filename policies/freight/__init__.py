"""Hindi freight-rate negotiation (seed 000): Ori calls a truck vendor about one load and negotiates his rate.

Exposes `POLICY` (see `ai_operator.dialogue.PolicyDefinition`) and the pure functions other parts and tests use:
`hear_rate`, `say_rate`, `utterance_may_continue`, `concession_for`, `ceiling_leaks`, `load_from_file`,
`build_model_messages`, `check_model_output`. Module map: numerals (word tables, tokenizer), figures
(hear/say), load (the load file), ladder (concession, ceiling guard), intents (what a turn is, turn boundary),
lines (canned Hindi), prompts (model input and output check), phases (the phase machine), session
(`FreightSession`), policy (`FreightPolicy`), selftest (self-test scripts and doctor checks).
"""

from ai_operator.dialogue import PolicyDefinition
from policies.freight.figures import find_figures, say_number, say_rate
from policies.freight.intents import classify, utterance_may_continue
from policies.freight.ladder import ceiling_leaks, concession_for, quote_zone
from policies.freight.load import DEFAULT_CONCESSION_BAND, Load, LoadError, load_from_file, load_from_mapping
from policies.freight.phases import DISPOSITIONS, Phase
from policies.freight.policy import FreightPolicy
from policies.freight.prompts import build_model_messages, check_model_output, strip_figures
from policies.freight.quotes import hear_quote, hear_rate
from policies.freight.session import DEFAULT_HOLD_S, FreightSession

POLICY: PolicyDefinition = FreightPolicy()

__all__ = [
    "DEFAULT_CONCESSION_BAND",
    "DEFAULT_HOLD_S",
    "DISPOSITIONS",
    "POLICY",
    "FreightPolicy",
    "FreightSession",
    "Load",
    "LoadError",
    "Phase",
    "build_model_messages",
    "ceiling_leaks",
    "check_model_output",
    "classify",
    "concession_for",
    "find_figures",
    "hear_quote",
    "hear_rate",
    "load_from_file",
    "load_from_mapping",
    "quote_zone",
    "say_number",
    "say_rate",
    "strip_figures",
    "utterance_may_continue",
]
