"""`FreightSession`: one call of Ori negotiating one load, as a `PolicySession`.

Owns the event handling around the phase machine (phases.py): abuse strikes, silence and hearing problems,
DTMF, reading each turn (quotes.hear_quote with the anchor's scale while a rate is awaited, intents.classify,
and with a model configured a constrained classification of a turn the rules could not read, constrained.py),
the model round trip (a `ModelTurn` whose answer must pass `check_model_output`, with `{rate}` spoken
by `say_rate` afterwards), the ceiling guard on every model line, the exchange history for the model,
and the disposition kept for the session record. Pure: no I/O.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import lru_cache
from typing import Any

import policies.freight.lines as L
from ai_operator.dialogue import ModelTurn, Reply, ToolCall
from policies.freight.constrained import LABELS, classification_turn, read_label
from policies.freight.constrained import PURPOSE as LABEL_PURPOSE
from policies.freight.constrained import apply as apply_label
from policies.freight.constrained import schema as label_schema
from policies.freight.figures import say_rate
from policies.freight.fragments import utterance_complete as _complete
from policies.freight.intents import Intent, classify
from policies.freight.intents import utterance_may_continue as _may_continue
from policies.freight.ladder import ceiling_leaks, concession_for
from policies.freight.load import Load
from policies.freight.numerals import tokenize
from policies.freight.phases import (
    ABUSE,
    CALLER_HUNG_UP,
    ENDED_BY_PREFIX,
    MISUNDERSTOOD,
    NO_RESPONSE,
    TRIP_RATE_PHASES,
    Ladder,
    Move,
    Phase,
    decide,
    deferred,
)
from policies.freight.prompts import build_model_messages, check_model_output
from policies.freight.quotes import Quote, hear_quote, hear_rate

LANGUAGE = "hi"


@lru_cache(maxsize=1024)
def _voiced_figure(line: str) -> int | None:
    """The rate her own line voices (read back to check it); her lines repeat, so this is cached."""
    return hear_rate(line)


DEFAULT_HOLD_S = 1.5
MAX_ABUSE_STRIKES = 2
MAX_SILENCE_PROMPTS = 1  # re-prompts before the give-up line
NO_TOOLS_REASON = "the freight policy has no tools"


class FreightSession:
    """One freight call. Every method is pure and fast; see `ai_operator.dialogue.PolicySession`."""

    def __init__(
        self,
        call_id: str,
        load: Load,
        *,
        model_available: bool = False,
        hold_s: float = DEFAULT_HOLD_S,
        max_misunderstood: int = 3,
    ):
        self.call_id = call_id
        self.load = load
        self.model_available = model_available
        self.hold_s = hold_s
        self.max_misunderstood = max_misunderstood
        self.misunderstood = 0  # turns in a row with no reading that were only asked again
        self.phase = Phase.OPENING
        self.ladder = Ladder(load=load, concession=concession_for(call_id, load))
        self.disposition: str | None = None
        self.heard_rate: int | None = None
        self.offered_rate: int | None = None
        self.offered: list[int] = []  # every figure she voiced, in order (anchor and/or the one concession)
        self.history: list[tuple[str, str]] = []  # (vendor said, Ori said)
        self.moves: list[str] = []  # every move decided, in order ("" for a repeat), for tests and records
        self.tool_calls: list[ToolCall] = []
        self.guard_hits = 0  # lines the ceiling guard had to replace (0 unless something upstream is wrong)
        self.abuse_strikes = 0
        self.silences = 0
        self.ended_by: str | None = None
        self._spoken = load.spoken()
        self._last: tuple[str, int | None] | None = None  # last line spoken and the figure in it
        self._pending: tuple[Move, str, str] | None = None  # move, vendor utterance, fallback line
        self._classifying: tuple[str, Quote, Intent] | None = None  # an unread turn the model is labelling

    @property
    def concession(self) -> int:
        return self.ladder.concession

    @property
    def spoken_language(self) -> str:
        return LANGUAGE

    # -- contract ---------------------------------------------------------------------------------
    def start(self) -> Reply:
        if self._last is not None or self.phase is Phase.CLOSING:  # already greeted, or over: never restart
            return self._silent()
        self._turn(None)
        return self._emit(Move(L.GREETING, Phase.OPENING), "", allow_model=False)

    def on_utterance(self, text: str) -> Reply:
        if self.phase is Phase.CLOSING:
            return self._silent()
        self.silences = 0
        # A bare "पच्चीस" is shorthand for 25,000 only while a rate is awaited; its scale comes from the anchor.
        tokens = tokenize(text)  # read once, for the figures and the words
        quote = hear_quote(text, anchor=self.load.anchor if self.phase in TRIP_RATE_PHASES else None, tokens=tokens)
        heard = quote.rate
        self._turn(heard)
        it = classify(text, tokens, self.load.vendor_name)
        if it.abuse:
            self.abuse_strikes += 1
            if self.abuse_strikes >= MAX_ABUSE_STRIKES:  # a disposition already decided (a deal) is kept
                return self._emit(Move(L.ABUSE_CLOSE, Phase.CLOSING, None, ABUSE, ABUSE), text)
            return self._emit(Move(L.ABUSE_WARNING, self.phase), text, allow_model=False)
        if self.phase is Phase.DEFERRED:
            move = deferred(self.ladder, it, heard, self.disposition)
        elif self._ask_model_to_label(it, quote):
            return self._classify(text, quote, it)
        else:
            move = decide(self.phase, self.ladder, it, quote)
        return self._emit(self._bounded(move, it), text)

    def _bounded(self, move: Move, it: Intent) -> Move:
        """MAX_MISUNDERSTOOD_TURNS: after that many turns in a row with no reading, only asked again, close
        politely (a person calls back) instead of asking for ever."""
        if not (it.unknown and move.move in (L.REASK_PERSON, L.ASK_RATE, L.ASK_WHOLE_RATE)):
            self.misunderstood = 0
            return move
        self.misunderstood += 1
        if self.misunderstood < self.max_misunderstood:
            return move
        return Move(L.MISUNDERSTOOD, Phase.CLOSING, None, MISUNDERSTOOD, MISUNDERSTOOD)

    def on_dtmf(self, digit: str) -> Reply:
        if self.phase is Phase.CLOSING:
            return self._silent()
        self._turn(None)
        return self._emit(Move(L.DTMF, self.phase), "", allow_model=False, record=False)

    def on_silence(self) -> Reply:
        if self.phase is Phase.CLOSING:
            return self._silent()
        self._turn(None)
        self.silences += 1
        if self.silences > MAX_SILENCE_PROMPTS:
            return self._emit(
                Move(L.GIVE_UP, Phase.CLOSING, None, NO_RESPONSE, NO_RESPONSE), "", allow_model=False
            )
        return self._emit(Move(L.REPROMPT, self.phase), "", allow_model=False, record=False)

    def on_not_heard(self) -> Reply:
        if self.phase is Phase.CLOSING:
            return self._silent()
        self._turn(None)
        return self._emit(Move(L.NOT_HEARD, self.phase), "", allow_model=False, record=False)

    def on_forced_end(self, reason: str) -> Reply:
        """The runtime ends the call (daemon shutdown, max call length): a polite line, then CallEnd."""
        self._turn(None)
        self._pending = None
        self.phase = Phase.CLOSING
        if self.disposition is None:
            self.disposition = reason
        text = L.MAX_CALL_LENGTH if reason == "max_call_length" else L.SHUTDOWN  # shutdown, a dead provider
        return Reply(text=text, language=LANGUAGE, hang_up=True, hang_up_reason=reason, disposition=reason,
                     fields=self._fields())

    def on_effect_result(self, result: Any) -> Reply:
        if self._classifying is not None:
            return self._labelled(result)
        if self._pending is None:
            return self._silent()
        move, utterance, fallback = self._pending
        self._pending = None
        reason = check_model_output(result, move.move)
        if reason is not None:
            reply = self._finish(move, utterance, fallback, fallback)
            if result is not None:
                reply.notes.append(f"model output rejected for {move.move}: {reason}; the canned line was spoken")
            return reply
        text = str(result).strip()
        if move.figure is not None:
            text = text.replace(L.RATE_TOKEN, say_rate(move.figure))
        return self._finish(move, utterance, text, fallback)

    def call_tool(self, name: str, arguments: Mapping[str, Any]) -> ToolCall:
        call = ToolCall(name=name, allowed=False, reason=NO_TOOLS_REASON, arguments=dict(arguments or {}))
        self.tool_calls.append(call)
        return call

    def utterance_may_continue(self, text: str) -> bool:
        return self.hold_s > 0 and _may_continue(text)

    def utterance_complete(self, text: str) -> bool | None:
        """Asked at a short pause: a short turn that does not dangle is whole (`fragments.utterance_complete`)."""
        if self.phase is Phase.CLOSING or self.ended_by is not None:
            return None
        return _complete(text)

    def on_call_ended(self, ended_by: str) -> None:
        if self.ended_by is not None:
            return
        self.ended_by = ended_by
        if self.disposition is None:
            self.disposition = CALLER_HUNG_UP if ended_by == "caller" else f"{ENDED_BY_PREFIX}{ended_by}"
        self.phase = Phase.CLOSING
        self._pending = self._classifying = None

    def snapshot(self) -> dict[str, Any]:
        return self._fields()

    # -- internals --------------------------------------------------------------------------------
    def _ask_model_to_label(self, it: Intent, quote: Quote) -> bool:
        """An unread turn in a phase that would only ask again: worth a constrained classification."""
        if not (self.model_available and it.unknown and self.phase.name in LABELS):
            return False
        return quote.rate is None and not quote.per_unit and not quote.phone

    def _classify(self, text: str, quote: Quote, it: Intent) -> Reply:
        self._classifying = (text, quote, it)
        system, messages = classification_turn(self.phase.name, self._last[0] if self._last else "", text)
        again = L.REASK_PERSON if self.phase is Phase.OPENING else L.ASK_RATE
        effect = ModelTurn(system=system, messages=messages, fallback=self._canned(Move(again, self.phase)),
                           purpose=LABEL_PURPOSE, response_schema=label_schema(self.phase.name))  # fmt: skip
        return Reply(text=None, language=LANGUAGE, effect=effect, fields=self._fields())

    def _labelled(self, result: Any) -> Reply:
        """The model's label checked against the schema's values; no label reads the turn as the rules did."""
        assert self._classifying is not None
        text, quote, it = self._classifying
        self._classifying = None
        label = read_label(result, self.phase.name)
        labelled = apply_label(it, label)
        move = self._bounded(decide(self.phase, self.ladder, labelled, quote), labelled)
        reply = self._emit(move, text)
        if result is not None:
            reply.notes.append(f"model labelled an unread turn: {label or f'rejected {str(result)[:60]!r}'}")
        return reply

    def _turn(self, heard: int | None) -> None:
        self.heard_rate, self.offered_rate = heard, None

    def _fields(self) -> dict[str, Any]:
        return {
            "phase": self.phase.name,
            "heard_rate": self.heard_rate,
            "offered_rate": self.offered_rate,
            "disposition": self.disposition,
        }

    def _silent(self) -> Reply:
        self._turn(None)
        return Reply(text=None, language=LANGUAGE, fields=self._fields())

    def _canned(self, move: Move) -> str:
        if move.repeat and self._last is not None:
            return self._last[0]
        name = move.move or L.NOT_HEARD
        rate = say_rate(move.figure) if move.figure is not None else None
        return L.canned(name, self._spoken, rate, phase=move.phase.name)

    def _emit(self, move: Move, utterance: str, *, allow_model: bool = True, record: bool = True) -> Reply:
        if move.repeat and self._last is not None:
            move.figure = self._last[1]
        self.moves.append("" if move.repeat else move.move)
        self.phase = move.phase
        if move.disposition and self.disposition is None:
            self.disposition = move.disposition
        fallback = self._canned(move)
        if allow_model and self.model_available and not move.repeat and move.move in L.MODEL_MOVES:
            follow_up = L.render(L.ANSWER_FOLLOW_UP.get(move.phase.name, ""), self._spoken)
            system, messages = build_model_messages(
                move.move, load=self.load, history=self.history, utterance=utterance, follow_up=follow_up
            )
            self._pending = (move, utterance, fallback)
            effect = ModelTurn(system=system, messages=messages, fallback=fallback, purpose=move.move)
            return Reply(text=None, language=LANGUAGE, effect=effect, fields=self._fields())
        return self._finish(move, utterance, fallback, fallback, record=record)

    def _finish(self, move: Move, utterance: str, text: str, fallback: str, *, record: bool = True) -> Reply:
        notes: list[str] = []
        # Last guard on a model's line: the ceiling never leaves the policy. Canned lines are not guarded: their
        # only figure is the anchor or the concession, and a guard on them would make wording depend on the
        # ceiling (a greeting changed for one ceiling is a leak of its own).
        if text != fallback and ceiling_leaks(text, self.load.ceiling):
            notes.append(f"ceiling guard replaced the line of {move.move}")
            self.guard_hits += 1
            text = fallback
        figure = move.figure if move.figure is not None and _voiced_figure(text) == move.figure else None
        self.offered_rate = figure
        if figure is not None:
            self.offered.append(figure)
        self._last = (text, figure)
        if record:
            self.history.append((utterance, text))
        hang_up = move.phase is Phase.CLOSING
        return Reply(
            text=text,
            language=LANGUAGE,
            hang_up=hang_up,
            hang_up_reason=(move.hang_up_reason or "call_complete") if hang_up else None,
            disposition=self.disposition if hang_up else None,
            fields=self._fields(),
            notes=notes,
        )
