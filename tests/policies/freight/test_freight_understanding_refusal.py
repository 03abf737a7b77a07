"""Freight, a refused counter-offer (issue 27, class 7): after Ori's one concession (COUNTERED), a refusal in any
form - a flat no, a no with a reason, an ultimatum, "then it's over", "leave it", "my rate is final", a
"fine, then find another truck" - moves to LAST_ASK, whose line names no figure. Acceptances still close the
deal at the counter. Phrasings are STT-like: no punctuation, fillers, code switching."""

from __future__ import annotations

from pathlib import Path

import pytest

from policies.freight import lines as L
from policies.freight.quotes import hear_rate
from tests.support.freight import cli_call, countered, play

REFUSALS = [
    "isse kam nahi hoga",
    "इससे कम नहीं होगा",
    "nahi bhai itne mein nahi hoga",
    "ठीक है तो फिर रहने दीजिए",
    "then it's over",
    "ok then it is over",
    "to phir baat khatam",
    "फिर तो बात खत्म समझो",
    "mera rate final hai",
    "जो बोला वही फाइनल है",
    "itne mein mera diesel bhi nahi niklega",
    "no sir not possible diesel is too costly",
    "koi baat nahi phir kabhi",
    "ना जी इसमें घाटा है",
    "हमसे नहीं हो पाएगा",
    "dusri gaadi dekh lo phir",
    "take it or leave it",
    "itne kam mein nahi maanunga",
    "sorry can't do at that rate",
    "bilkul nahi",
    "उतने में गाड़ी नहीं जाएगी भाई",
    "no way",
    "theek hai aap kisi aur se karwa lo",
    "pachees se neeche nahi jaunga warna rehne do",
    "अगर इतना ही देना है तो मत दो",
    "impossible sir",
    "यह रेट नहीं चलेगा हमको",
    "leave it then",
    "haan haan samajh gaya par nahi hoga",
    "chalo rehne do",
    "नहीं तो फोन रख दो",
    "at that rate i won't do it",
    "ठीक है फिर आप कोई और गाड़ी देख लीजिए",
    "wahi rate hai jo bola",
    "mujhe nahi karna",
    "final bol diya maine",
    "ok toh phir koi baat nahi",
    "bas ho gaya phir",
    "forget it then",
    "isme hamara ghata hai",
    "ok no deal then",
    "isse achha to gaadi khadi rakhunga",
    "इससे अच्छा तो गाड़ी खड़ी रखूंगा",
    "achha to aap rakho apna load",
    "चलो फिर आप कोई और देख लो",
    "theek hai koi aur dhundh lo",
    "i would rather keep my truck idle",
    "kya baat kar rahe ho itne mein kaun chalayega",
    "इतने में कौन चलाएगा गाड़ी",
    "aap mazak kar rahe ho kya",
    "इतने में तो हम गाड़ी घर पे खड़ी रखें वो अच्छा",
    # the figure mocked, even after a yes word: not even X at this rate, who would, would you, I'd sooner sell
    "haan haan itne mein to tempo bhi na aaye",
    "wah bhai wah is rate pe to toll bhi nahi niklega",
    "इतने में तो डीज़ल भी नहीं आएगा जी",
    "haan bilkul itne mein to main gaadi hi bech dunga",
    "aap hi batao is rate mein kaun truck bhejega",
    "kya aap khud itne mein gaadi chalaoge",
    "at this rate even the driver won't come",
    "ji hum seedhi baat karte hain jo rate bola tha wohi lagega",
    "हां हां इतने में तो साइकिल भी ना चले",
    "itne mein kaun bhejega sahab aap hi bolo",
]
ACCEPTANCES = ["ठीक है चलेगा", "haan kar denge", "done", "ok ji pakka", "chalo theek hai kar dete hain",
               "theek hai lekin payment jaldi karna", "हां जी ठीक है इतने में कर देंगे", "ok fine deal",
               "haan itne mein bhi chalega", "haan ji itne mein main apni gaadi bhej dunga",
               "ok at this rate i will do it"]  # fmt: skip



@pytest.mark.parametrize("text", REFUSALS)
def test_a_refused_counter_moves_to_the_last_ask_naming_no_figure(text: str) -> None:
    session = countered(f"refuse-{text}")
    reply = play(session, text)
    assert reply.fields["phase"] == "LAST_ASK" and session.moves[-1] == L.LAST_ASK, session.moves
    assert reply.fields["offered_rate"] is None and hear_rate(reply.text) is None
    assert not any(ch.isdigit() for ch in reply.text) and L.limit_words(reply.text) == []
    assert session.offered == [session.concession]  # no second concession


@pytest.mark.parametrize("text", ACCEPTANCES)
def test_an_acceptance_still_closes_at_the_counter(text: str) -> None:
    session = countered(f"accept-{text}")
    reply = play(session, text)
    assert reply.fields["phase"] == "DEFERRED" and session.disposition == "deal_at_counter"


@pytest.mark.parametrize("text", REFUSALS[:6])
def test_after_the_last_ask_he_settles_where_he_stands(text: str) -> None:
    session = countered(f"refuse-settle-{text}")
    play(session, text)
    reply = play(session, "nahi utna hi")
    assert reply.fields["phase"] == "DEFERRED" and session.disposition == "deal_at_quote"
    assert session.offered == [session.concession]


def test_a_refusal_through_the_command_line(tmp_path: Path) -> None:
    out = cli_call(tmp_path, ["haan ji main hi hoon", "pachees hazaar", "diesel mehnga hai", "chalo rehne do",
                              "nahi utna hi lagega"])  # fmt: skip
    assert [t["phase"] for t in out[1:]] == ["PITCHED", "PROBING", "COUNTERED", "LAST_ASK", "DEFERRED"]
    assert out[4]["offered_rate"] is None
