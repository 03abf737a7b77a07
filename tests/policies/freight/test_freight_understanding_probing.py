"""Freight class 9: after "why so high?" (PROBING) a question back about our rate is no justification. The bot
does not counter yet: one neutral line naming no figure and no budget, the question again, phase PROBING. A
real justification still gets the counter; a question about the load still gets its answer."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.freight import lines as L
from policies.freight.quotes import hear_rate
from tests.support.freight import CONFIRM, LOAD, QUOTE, cli_call, play, started

QUESTIONS_BACK = [
    # Devanagari Hindi
    "आप बताओ कितना दोगे",
    "आपका बजट क्या है",
    "आप ही बता दीजिए कितने में करवाओगे",
    "पहले आप बोलिए आपकी तरफ से कितना है",
    "आप लोग कितना देते हो इस रूट का",
    "तो आप कितना दे सकते हो",
    "आप ही बताइए कितने में करवाना है",
    # Hinglish
    "aap kitna doge",
    "aapka budget kya hai bhai",
    "aap hi bata do kitna milega",
    "pehle aap bolo aapka rate kya hai",
    "tum batao kitne mein karwana hai",
    "aapki taraf se kitna hai sir",
    # English
    "what is your budget",
    "how much will you pay",
    "you tell me your offer first",
    "ok what's your rate then",
    "tell me your price",
    "pehle aap hi bolo",
]

JUSTIFICATIONS = [
    "डीज़ल बहुत महंगा हो गया है",
    "toll bahut lagta hai is route pe",
    "wapsi khali aani padti hai",
    "road kharab hai time lagta hai",
    "driver ka kharcha bhi hai bhai",
    "because of diesel and toll",
]
LOAD_QUESTIONS = ["माल कितने टन है", "pickup kab hai", "loading kahan se hai", "आप बताइए माल कितने टन है",
                  "aap bataiye pickup kab hai"]  # fmt: skip


def probing(call_id: str):
    session = started(call_id)
    reply = play(session, CONFIRM, QUOTE)
    assert reply.fields["phase"] == "PROBING" and reply.text == L.CANNED[L.ASK_WHY]
    return session


def assert_neutral(reply, session) -> None:
    assert reply.fields["phase"] == "PROBING", session.moves
    assert session.moves[-1] == L.PROBE_NEUTRAL
    assert reply.fields["offered_rate"] is None and session.offered == []  # no counter yet
    assert hear_rate(reply.text) is None and not any(ch.isdigit() for ch in reply.text)
    assert L.limit_words(reply.text) == []
    assert "?" in reply.text  # it asks again


@pytest.mark.parametrize("text", QUESTIONS_BACK)
def test_a_question_back_gets_one_neutral_line_and_the_question_again(text: str) -> None:
    session = probing(f"qb-{text}")
    assert_neutral(play(session, text), session)
    reply = play(session, "diesel aur toll dono mehnge hain")  # now he explains: the one counter
    assert reply.fields["phase"] == "COUNTERED" and reply.fields["offered_rate"] == session.concession


@pytest.mark.parametrize("text", QUESTIONS_BACK[:5])
def test_a_second_question_back_gets_the_counter(text: str) -> None:
    session = probing(f"qb2-{text}")
    play(session, text)
    reply = play(session, "aap pehle apna rate bolo na")
    assert reply.fields["phase"] == "COUNTERED" and session.offered == [session.concession]


@pytest.mark.parametrize("text", QUESTIONS_BACK[:4])
def test_a_question_back_over_the_ceiling_is_the_same_line(text: str) -> None:
    session = started(f"qb-over-{text}")
    play(session, CONFIRM, "tees hazaar")  # over the ceiling
    assert_neutral(play(session, text), session)


@pytest.mark.parametrize("text", QUESTIONS_BACK[:3])
def test_the_model_brief_for_the_neutral_line_names_no_figure_or_budget(text: str) -> None:
    session = started(f"qb-model-{text}", model=True)
    play(session, CONFIRM, QUOTE)
    reply = session.on_utterance(text)
    assert reply.effect is not None and reply.effect.purpose == L.PROBE_NEUTRAL
    brief = reply.effect.messages[-1]["content"].split("Your move")[1] + reply.effect.system
    assert "{rate}" not in brief and L.limit_words(brief) == []
    final = session.on_effect_result("जी, हमारा बजट थोड़ा कम है, आप बताइए किस हिसाब से है?")  # names a budget
    assert final.text == L.CANNED[L.PROBE_NEUTRAL]  # rejected: the canned line is spoken


@pytest.mark.parametrize("text", JUSTIFICATIONS)
def test_a_justification_still_gets_the_counter(text: str) -> None:
    session = probing(f"just-{text}")
    reply = play(session, text)
    assert reply.fields["phase"] == "COUNTERED" and reply.fields["offered_rate"] == session.concession


@pytest.mark.parametrize("text", LOAD_QUESTIONS)
def test_a_question_about_the_load_is_answered(text: str) -> None:
    session = probing(f"lq-{text}")
    reply = play(session, text)
    assert reply.fields["phase"] == "PROBING" and session.moves[-1] == L.ANSWER
    assert LOAD.origin in reply.text


def test_question_back_through_the_command_line(tmp_path: Path) -> None:
    out = cli_call(tmp_path, ["haan ji main hi hoon", "pachees hazaar", "aap bataiye aap kitna doge", "toll bahut hai"])
    assert [t["phase"] for t in out[1:]] == ["PITCHED", "PROBING", "PROBING", "COUNTERED"]
    assert out[3]["offered_rate"] is None and out[4]["offered_rate"] is not None
