"""Whether a caller's transcript at a short pause is already a whole answer for the state the call is in:
`utterance_complete`, asked by the runtime at `VAD_EARLY_STT_MS` of silence so that the turn can end there. Pure.

True only for the short answers each state is waiting for, judged exactly as the state would take them: a
language in LANGUAGE_SELECTION ("русский", "қазақша"), a region the resolver selects in REGION_SELECTION or when
a region was asked for ("Караганда", "я из Павлодара"; "Алматы" is not whole: "...область" may follow), "город"
or "область" after the Almaty question, a bare yes/no to an offered specialist ("да", "нет спасибо") or to a
near article the operator asked about ("да именно", "жоқ олай емес"; confirmation.py), "say that again", and
in READY_TO_HELP a whole knowledge-base question (`question_ends.py`: a topic the knowledge base has, not ending
on a preposition, a conjunction, a number, a filler or a correction still to come).
False when a question there dangles ("сколько стоит тариф на", "интернет и"): the runtime waits for the rest.
A goodbye or a handoff cannot be taken back once its line starts (the goodbye is not cut by the caller's voice,
the transfer follows the line), so they are True, in any state, only when nothing is left to say: a goodbye
whose last words are the farewell ("всё понятно спасибо до свидания", "рахмет сау болыңыз"), a request for a
person that does not dangle ("соедините меня с оператором пожалуйста"; not "соедините с оператором и"); a
bare "спасибо всё" or "оператор но" is None. Their reply is held like any early turn's, and withdrawn if the
caller goes on before it is heard; the hang-up (or transfer) comes only after the line has played.
Anything else - a language or region change, another long turn - is None: the runtime decides it
speculatively and answers at the normal end of the utterance. A turn ended early is withdrawn if the caller goes
on before the reply is heard (its reply waits `VAD_EARLY_REPLY_MS` of silence), so a wrong True costs a withdrawn
decision, not a wrong answer, while the caller's pause is shorter than that; still, it is kept to what is sure.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from policies.operator.confirmation import YES, confirmation_reply, declines
from policies.operator.followups import is_no, is_repeat_request, is_yes
from policies.operator.intents import ends_on_farewell, is_closing, is_handoff_request
from policies.operator.language import detect_language, language_change
from policies.operator.question_ends import dangling, kb_question
from policies.operator.regions import is_region_change_request, resolve_almaty_answer, resolve_region
from policies.operator.states import State

if TYPE_CHECKING:
    from policies.operator.facts import CallFacts

SHORT_ANSWER_WORDS = 5  # a longer turn may be a sentence with more to come: it waits for the end silence
QUESTION_WORDS = 25  # a longer question is a story: it waits for the end silence


def utterance_complete(session: CallFacts, text: str) -> bool | None:
    """True when `text` is a whole short answer or knowledge-base question for `session`'s state, False when a
    question dangles, None otherwise (see the module doc)."""
    words = (text or "").split()
    state = session.state
    if state == State.READY_TO_HELP and session.confirming is not None and len(words) <= SHORT_ANSWER_WORDS and (
            confirmation_reply(text).said == YES or declines(text)):
        return True  # yes or no to "do you mean ...?"
    if len(words) <= QUESTION_WORDS and (is_handoff_request(text) or is_closing(text)):
        return _ending(text)
    if state == State.READY_TO_HELP and SHORT_ANSWER_WORDS < len(words) <= QUESTION_WORDS:
        return _question(text)
    if not words or len(words) > SHORT_ANSWER_WORDS:
        return None
    if state not in (State.LANGUAGE_SELECTION, State.REGION_SELECTION, State.READY_TO_HELP):
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
    return _question(text) if state == State.READY_TO_HELP else None


def _ending(text: str) -> bool | None:
    """A goodbye or a request for a person: True when nothing is left to say (see the module doc), else None."""
    if is_handoff_request(text) and not is_closing(text):
        return True if not dangling(text) else None
    return True if ends_on_farewell(text) and not is_handoff_request(text) else None


def _question(text: str) -> bool | None:
    """In READY_TO_HELP: a whole knowledge-base question True, a dangling one False, anything else None."""
    if is_handoff_request(text) or is_closing(text) or language_change(text) or is_region_change_request(text):
        return None
    if dangling(text):
        return False
    return True if kb_question(text) else None
