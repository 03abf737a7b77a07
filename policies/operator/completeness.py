"""Whether a caller's transcript at a short pause is already a whole answer for the state the call is in:
`utterance_complete`, asked by the runtime at `VAD_EARLY_STT_MS` of silence so that the turn can end there. Pure.

True only for the short answers each state is waiting for, judged exactly as the state would take them: a
language in LANGUAGE_SELECTION ("русский", "қазақша"), a region the resolver selects in REGION_SELECTION or when
a region was asked for ("Караганда", "я из Павлодара"; "Алматы" is not whole: "...область" may follow), "город"
or "область" after the Almaty question, a bare yes/no to an offered specialist ("да", "нет спасибо") and "say
that again". Anything else - a question, a handoff or a goodbye, a long turn - is None: the runtime waits for the
normal end of the utterance. A turn the runtime ended early is withdrawn if the caller goes on before the reply
is heard, so a wrong True costs a withdrawn decision, not a wrong answer; still, it is kept to what is sure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from policies.operator.followups import is_no, is_repeat_request, is_yes
from policies.operator.intents import is_closing, is_handoff_request
from policies.operator.language import detect_language, language_change
from policies.operator.regions import resolve_almaty_answer, resolve_region
from policies.operator.states import State

if TYPE_CHECKING:
    from policies.operator.facts import CallFacts

SHORT_ANSWER_WORDS = 5  # a longer turn may be a sentence with more to come: it waits for the end silence


def utterance_complete(session: CallFacts, text: str) -> bool | None:
    """True when `text` is a whole short answer for `session`'s state; None otherwise (see the module doc)."""
    words = (text or "").split()
    if not words or len(words) > SHORT_ANSWER_WORDS:
        return None
    state = session.state
    if state not in (State.LANGUAGE_SELECTION, State.REGION_SELECTION, State.READY_TO_HELP):
        return None
    if is_handoff_request(text) or is_closing(text):
        return None
    if session.last_said and is_repeat_request(text):
        return True
    if state == State.LANGUAGE_SELECTION:
        return True if detect_language(text) else None
    if state == State.READY_TO_HELP and session.handoff_offered and (is_yes(text) or is_no(text)):
        return True
    if state == State.REGION_SELECTION or session.awaiting:
        if state == State.REGION_SELECTION and language_change(text):
            return None
        result = resolve_almaty_answer(text) if session.awaiting == "almaty" else resolve_region(text)
        return True if result.selected else None
    return None
