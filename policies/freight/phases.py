"""The freight call's phase machine: `Phase`, dispositions, and the pure transition function per phase.

Owns exactly the spec's arrows (seed 000, "The phases"): OPENING -> PITCHED on the right person; OPENING ->
CLOSING on wrong number, voicemail, callback (abuse x2 is handled by the session for every phase); a figure
goes through the ladder (at/under anchor -> SQUEEZED once; above it -> PROBING with the same ask-why line
whether or not it is over the ceiling, quote held); PROBING -> COUNTERED on a justification (one authorised
figure), -> DEFERRED on a held over-ceiling quote, a new figure re-evaluates, a question back about our rate
gets one neutral line and the question again; SQUEEZED -> DEFERRED on anything but a lower figure (his quote);
COUNTERED -> DEFERRED on yes (the concession) or LAST_ASK on no; LAST_ASK -> DEFERRED settling where he stands;
DEFERRED -> CLOSING on an acknowledgement. A callback ends the call politely from any negotiating phase where
the spec leaves room (OPENING, PITCHED, PROBING, COUNTERED). `decide` adds what a quote's reading asks for
before the arrows: a per-ton/km quote gets the trip rate asked for, a phone number is noted. A quote held over
the ceiling and a quote we take hear the same wind-down (`DEFER`). `Ladder` is the state the transitions read
and write. Pure: no I/O.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from enum import Enum

import policies.freight.lines as L
from policies.freight.intents import Intent
from policies.freight.ladder import ZONE_AT_OR_UNDER_ANCHOR, quote_zone
from policies.freight.load import Load
from policies.freight.quotes import Quote


class Phase(Enum):
    OPENING = "opening"
    PITCHED = "pitched"
    PROBING = "probing"
    SQUEEZED = "squeezed"
    COUNTERED = "countered"
    LAST_ASK = "last_ask"
    DEFERRED = "deferred"
    CLOSING = "closing"


# Dispositions: how the call ended, as the session record keeps it.
DEAL_AT_QUOTE = "deal_at_quote"  # we accepted his figure (a person confirms)
DEAL_AT_COUNTER = "deal_at_counter"  # he accepted our one concession
DEFERRED_OVER_CEILING = "deferred_over_ceiling"  # he held a quote over the ceiling: a person decides
WRONG_NUMBER = "wrong_number"
VOICEMAIL = "voicemail"
CALLBACK = "callback"  # he asked to be called later
ABUSE = "abuse"  # second abusive turn
DECLINED = "declined"  # no vehicle / not interested / said goodbye before quoting
NO_DEAL = "no_deal"  # he left mid-negotiation with nothing agreed
NO_RESPONSE = "no_response"  # silence after the re-prompt
MISUNDERSTOOD = "misunderstood"  # MAX_MISUNDERSTOOD_TURNS turns in a row she could not read
CALLER_HUNG_UP = "caller_hung_up"  # the line dropped from his side before the call was closed
# The call was ended by someone else (the session record's ended_by) before anything was decided.
ENDED_BY_PREFIX = "ended_by_"
ENDED_BY_OTHER = tuple(f"{ENDED_BY_PREFIX}{who}" for who in ("bot", "watchdog", "system"))
DISPOSITIONS = (DEAL_AT_QUOTE, DEAL_AT_COUNTER, DEFERRED_OVER_CEILING, WRONG_NUMBER, VOICEMAIL, CALLBACK, ABUSE,
                DECLINED, NO_DEAL, NO_RESPONSE, MISUNDERSTOOD, CALLER_HUNG_UP, *ENDED_BY_OTHER)  # fmt: skip

MAX_PROBES = 2  # "why so high?" at most twice per call; a third figure in range goes straight to the counter
MAX_OPENING_UNCLEAR = 1  # unclear answers to "is this <vendor>?" before she pitches anyway
MAX_DEFERRED_EXTRA = 2  # non-acknowledgements after the wind-down before the goodbye anyway
MAX_PROBE_QUESTIONS = 1  # questions back ("आप कितना दोगे?") answered with the neutral line before the counter
MAX_PERSON_ASKS = 2  # unclear answers from someone else, asked for the vendor, before a polite close


@dataclass
class Move:
    """One decided move: the line to speak, the phase after it, the figure it voices, how it ends the call."""

    move: str
    phase: Phase
    figure: int | None = None
    hang_up_reason: str | None = None
    disposition: str | None = None
    repeat: bool = False  # speak the previous line again (hearing problem)


@dataclass
class Ladder:
    """What the phase machine remembers about the negotiation."""

    load: Load
    concession: int
    quote: int | None = None  # his standing quote
    squeezed: bool = False
    countered: bool = False
    probes: int = 0
    probe_acks: int = 0
    probe_questions: int = 0
    opening_unclear: int = 0
    deferred_extra: int = 0
    someone_else: bool = False  # someone else answered for the vendor: no pitch until he is on the line
    handed_over: bool = False  # the phone was being passed to him
    person_asks: int = 0


def _close(move: str, disposition: str, reason: str | None = None) -> Move:
    return Move(move, Phase.CLOSING, hang_up_reason=reason or disposition, disposition=disposition)


def _settle(lad: Ladder, quote: int) -> Move:
    """DEFERRED where he stands: his quote (or our counter when that is what he stands on)."""
    lad.quote = quote
    if quote > lad.load.ceiling:
        return Move(L.DEFER, Phase.DEFERRED, disposition=DEFERRED_OVER_CEILING)
    if lad.countered and quote == lad.concession:
        return Move(L.DEAL_COUNTER, Phase.DEFERRED, figure=lad.concession, disposition=DEAL_AT_COUNTER)
    return Move(L.DEFER, Phase.DEFERRED, disposition=DEAL_AT_QUOTE)


def evaluate_quote(lad: Ladder, quote: int) -> Move:
    """The ladder sees a figure (from PITCHED, or a new figure in PROBING)."""
    lad.quote = quote
    zone = quote_zone(quote, lad.load)
    if zone == ZONE_AT_OR_UNDER_ANCHOR:
        if lad.squeezed:
            return _settle(lad, quote)
        lad.squeezed = True
        return Move(L.SQUEEZE, Phase.SQUEEZED)
    if lad.probes >= MAX_PROBES:
        return justified(lad)
    lad.probes += 1
    lad.probe_acks = lad.probe_questions = 0
    return Move(L.ASK_WHY, Phase.PROBING)  # the same words in range and over the ceiling: nothing to binary-search


def justified(lad: Ladder) -> Move:
    """PROBING answered: counter once with the concession, or defer a held over-ceiling quote."""
    quote = lad.quote if lad.quote is not None else lad.load.ceiling + 1
    if quote > lad.load.ceiling:
        return Move(L.DEFER, Phase.DEFERRED, disposition=DEFERRED_OVER_CEILING)
    if quote <= lad.concession:  # our one figure would be more than he asked: take his quote
        return _settle(lad, quote)
    lad.countered = True
    return Move(L.COUNTER, Phase.COUNTERED, figure=lad.concession)


def someone_else(lad: Ladder, it: Intent) -> Move | None:
    """Someone else answered (the driver, a relative, an employee): ask for the vendor or when to call him, wait
    while the phone is passed, close with a message once a time is given or he will call; None when the turn
    is for the usual opening reading (the vendor may be on the line after a hand-over)."""
    if it.other_person or it.relay:
        lad.someone_else, lad.handed_over = True, False
    if lad.someone_else and (it.relay or it.time_given):
        return _close(L.CALLBACK_MESSAGE, CALLBACK)
    if it.handover:
        lad.handed_over = True
        return Move(L.HOLD_ON, Phase.OPENING)
    if it.other_person:
        return Move(L.ASK_PERSON, Phase.OPENING)
    if lad.someone_else and ((it.no and not it.yes) or it.farewell or it.refusal or it.callback):
        return _close(L.CALLBACK_MESSAGE, CALLBACK)
    if it.identifies or lad.handed_over:
        return None  # he says he is the vendor, or the phone was passed: the usual reading
    if it.yes or it.bare_ack:  # "haan ji" to "may I talk to him?": he is being fetched
        lad.handed_over = True
        return Move(L.HOLD_ON, Phase.OPENING)
    lad.person_asks += 1
    if lad.person_asks > MAX_PERSON_ASKS:
        return _close(L.CALLBACK_MESSAGE, CALLBACK)
    return Move(L.ASK_PERSON, Phase.OPENING)


def opening(lad: Ladder, it: Intent, heard: int | None) -> Move:
    if it.stranger:  # "main suresh bol raha hoon": at the opening, someone else answered
        it = replace(it, other_person=True)
    if it.voicemail and not it.other_person:
        return _close(L.VOICEMAIL, VOICEMAIL)
    if it.other_person or it.relay or lad.someone_else or it.handover:
        move = someone_else(lad, it)
        if move is not None:
            return move
    if it.wrong_number:
        return _close(L.WRONG_NUMBER, WRONG_NUMBER)
    if it.hearing:
        return Move("", Phase.OPENING, repeat=True)
    if it.callback:  # before "no": "नहीं, अभी बिज़ी हूं" puts the call off, it is no wrong number
        return _close(L.CALLBACK, CALLBACK)
    if it.no and not it.yes and not it.question:
        return _close(L.WRONG_NUMBER, WRONG_NUMBER)
    if it.farewell:
        return _close(L.DECLINED, DECLINED)
    if (it.question and not it.identifies) or it.hello_only:  # "main ramesh bol raha hoon, kaun?": the pitch
        return Move(L.REASK_PERSON, Phase.OPENING)
    if it.right_person or heard is not None:
        return Move(L.PITCH, Phase.PITCHED)
    lad.opening_unclear += 1
    if lad.opening_unclear > MAX_OPENING_UNCLEAR and not lad.someone_else:
        return Move(L.PITCH, Phase.PITCHED)
    return Move(L.REASK_PERSON, Phase.OPENING)


def pitched(lad: Ladder, it: Intent, heard: int | None) -> Move:
    if heard is not None:
        return evaluate_quote(lad, heard)
    if it.hearing:
        return Move("", Phase.PITCHED, repeat=True)
    if it.other_person:  # "main to driver hoon, rate malik batayenge": back to asking for the vendor
        return someone_else(lad, it) or Move(L.ASK_PERSON, Phase.OPENING)
    if it.callback:
        return _close(L.CALLBACK, CALLBACK)
    if it.our_rate:
        return Move(L.OFFER_ANCHOR, Phase.PITCHED, figure=lad.load.anchor)
    if it.question:
        return Move(L.ANSWER, Phase.PITCHED)
    if it.farewell or (it.no and not it.yes):
        return _close(L.DECLINED, DECLINED)
    return Move(L.ASK_RATE, Phase.PITCHED)


def probing(lad: Ladder, it: Intent, heard: int | None) -> Move:
    """PROBING expects an answer: his justification unless a question, a hearing problem, a farewell or a figure."""
    if heard is not None and heard != lad.quote:
        return evaluate_quote(lad, heard)  # PROBING -> PITCHED: the ladder re-evaluates
    if it.hearing:
        return Move("", Phase.PROBING, repeat=True)
    if it.callback:
        return _close(L.CALLBACK, CALLBACK)
    if it.our_rate and heard is None:  # a question back is no justification: no counter yet, no figure named
        lad.probe_questions += 1
        if lad.probe_questions <= MAX_PROBE_QUESTIONS:
            return Move(L.PROBE_NEUTRAL, Phase.PROBING)
        return justified(lad)
    if it.question:
        return Move(L.ANSWER, Phase.PROBING)
    if it.farewell:
        return _close(L.FAREWELL, NO_DEAL, "vendor_farewell")
    if it.bare_ack and heard is None:
        lad.probe_acks += 1
        if lad.probe_acks == 1:
            return Move(L.PROBE_AGAIN, Phase.PROBING)
    return justified(lad)


def squeezed(lad: Ladder, it: Intent, heard: int | None) -> Move:
    """Anything but a lower figure accepts his quote (a hearing problem repeats the ask: it was not heard)."""
    if it.hearing and heard is None:
        return Move("", Phase.SQUEEZED, repeat=True)
    quote = lad.quote if lad.quote is not None else lad.load.anchor
    if heard is not None and heard < quote:
        quote = heard
    return _settle(lad, quote)


def countered(lad: Ladder, it: Intent, heard: int | None) -> Move:
    if heard is not None:
        if heard <= lad.concession:
            return _settle(lad, heard)
        lad.quote = heard
        return Move(L.LAST_ASK, Phase.LAST_ASK)
    if it.callback:  # "हां, सोच कर बताता हूं" is no yes to the counter
        return _close(L.CALLBACK, CALLBACK)
    if it.refusal or (it.no and not it.hearing and (it.farewell or not it.question)):  # "suit nahi karega": no ->
        return Move(L.LAST_ASK, Phase.LAST_ASK)  # the one more ask, no figure
    if it.hearing or it.question or it.our_rate:
        return Move(L.COUNTER, Phase.COUNTERED, figure=lad.concession)
    if it.firm_yes:  # a polite "ji" after a proverb or a "bataiye" is no yes to our figure
        return _settle(lad, lad.concession)
    if it.farewell:
        return _close(L.FAREWELL, NO_DEAL, "vendor_farewell")
    return Move(L.LAST_ASK, Phase.LAST_ASK)


def last_ask(lad: Ladder, it: Intent, heard: int | None) -> Move:
    """Anything but a new figure settles where he stands; a yes to "a little less" takes our counter."""
    if it.hearing and heard is None:
        return Move("", Phase.LAST_ASK, repeat=True)
    if heard is not None:
        return _settle(lad, heard)
    if it.firm_yes:
        return _settle(lad, lad.concession)
    return _settle(lad, lad.quote if lad.quote is not None else lad.concession)


def deferred(lad: Ladder, it: Intent, heard: int | None, disposition: str | None) -> Move:
    """Terminal: the next acknowledgement (or a farewell) ends the call; the ladder is not reopened."""
    reason = "deal_closed" if (disposition or "").startswith("deal") else "deferred"
    if heard is None and (it.acknowledgement or it.farewell or it.callback):
        return Move(L.GOODBYE, Phase.CLOSING, hang_up_reason=reason)
    if it.hearing and heard is None:
        return Move("", Phase.DEFERRED, repeat=True)
    lad.deferred_extra += 1
    if lad.deferred_extra > MAX_DEFERRED_EXTRA:
        return Move(L.GOODBYE, Phase.CLOSING, hang_up_reason=reason)
    return Move(L.ANSWER if it.question else L.DEFERRED_HOLD, Phase.DEFERRED)


TRIP_RATE_PHASES = frozenset({Phase.PITCHED, Phase.PROBING, Phase.SQUEEZED, Phase.COUNTERED, Phase.LAST_ASK})


def decide(phase: Phase, lad: Ladder, it: Intent, quote: Quote) -> Move:
    """The move for one turn in `phase` (not DEFERRED): what the quote's reading asks for, else the arrows."""
    leaving = it.callback or it.farewell or it.hearing
    if quote.rate is None and phase in TRIP_RATE_PHASES and not leaving:
        if quote.per_unit:  # "पंद्रह सौ रुपये टन" is no trip rate: ask for the whole trip
            return Move(L.ASK_TRIP_RATE, phase)
        if quote.phone and phase is Phase.PITCHED:
            return Move(L.NUMBER_NOTED, phase)
        if quote.partial and phase in (Phase.PITCHED, Phase.PROBING, Phase.SQUEEZED):
            return Move(L.ASK_WHOLE_RATE, phase)  # "पाँच सौ": the hundreds of a figure, or an amount off it
    if phase is Phase.OPENING and quote.per_unit and not lad.someone_else:
        return Move(L.PITCH, Phase.PITCHED)
    return HANDLERS[phase](lad, it, quote.rate)


HANDLERS = {
    Phase.OPENING: opening,
    Phase.PITCHED: pitched,
    Phase.PROBING: probing,
    Phase.SQUEEZED: squeezed,
    Phase.COUNTERED: countered,
    Phase.LAST_ASK: last_ask,
}
