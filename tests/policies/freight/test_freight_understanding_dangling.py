"""Freight, dangling fragments (issue 27, class 8): a turn that ends where the figure is still to come ("my rate
is", "मेरा रेट है", "rate hoga", "it would be", "इसका लगेगा") is held by the turn boundary for its continuation and
decided once, merged, with the figure; complete turns (a yes, a figure, a question, a statement about the rate)
are not held. Phrasings are STT-like: no punctuation, fillers, code switching."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_operator.turn_boundary import TurnHolder
from policies.freight.intents import utterance_may_continue
from tests.support.freight import CONFIRM, cli_call, play, started

FRAGMENTS = [
    "mera rate hai",
    "मेरा रेट है",
    "my rate would be",
    "the rate will be",
    "इसका होगा",
    "rate hoga",
    "तो रेट रहेगा",
    "iska lagega",
    "haan ji rate hai umm",
    "for this load my price is",
    "it would be",
    "total hoga bhai",
    "पूरी गाड़ी का भाड़ा लगेगा",
    "so it comes to",
    "हमारा रेट होता है",
    "rate rahega aapke liye",
    "dekho sir is route ka kiraya hoga",
    "the price for this is",
    "kam se kam",
    "i will charge",
    "rate hai sir ji",
    "रेट बनता है",
    "bhada lagta hai",
    "it'll be",
    "meri taraf se hoga",
    "हमारी तरफ से रहेगा जी",
    "uh the total would be like",
    "इस लोड का किराया होगा करीब",
    "final rate hoga",
    "isme lagega",
    "तो होगा",
    "arre matlab toh hoga",
    "phir banega",
    "देखिए जी",  # openers alone: what he means to say is to come
    "dekho bhai",
    "arre suniye",
]
COMPLETE = [
    "ठीक है", "हां जी", "haan ji main hi bol raha hoon", "rate zyada hai", "mera rate pachees hazaar hai",
    "pachees hazaar rate hai", "rate kitna hai", "aapka rate kya hai", "हो जाएगा", "theek hai ho jayega",
    "rate final hai", "that will be fine", "तेईस हज़ार होगा", "डीज़ल बहुत महंगा है", "my rate is 25000",
    "rate aapko pata hai", "ok done", "कल बात करेंगे", "बीस टन का रेट तेईस हज़ार होगा", "no", "है", "haan hoga",
    "nahi hoga", "bees hazaar to hoga", "dekho bhai nahi hoga",
]  # fmt: skip


@pytest.mark.parametrize("text", FRAGMENTS)
def test_a_fragment_is_held_and_decided_with_its_continuation(text: str) -> None:
    assert utterance_may_continue(text)
    session = started(f"frag-{text}")
    play(session, CONFIRM)
    holder = TurnHolder(session.utterance_may_continue, session.hold_s)
    assert holder.feed(text, now=0.0) == []  # held: nothing is answered
    turns = holder.feed("chhabbis hazaar", now=0.8)
    assert turns == [f"{text} chhabbis hazaar"]  # one merged turn
    reply = play(session, turns[0])
    assert reply.fields["heard_rate"] == 26_000 and reply.fields["phase"] == "PROBING"


@pytest.mark.parametrize("text", COMPLETE)
def test_a_complete_turn_is_not_held(text: str) -> None:
    assert not utterance_may_continue(text)


def test_a_fragment_with_no_continuation_is_decided_as_it_stands() -> None:
    session = started("frag-alone")
    play(session, CONFIRM)
    holder = TurnHolder(session.utterance_may_continue, session.hold_s)
    assert holder.feed("mera rate hai", now=0.0) == []
    assert holder.poll(now=session.hold_s) == ["mera rate hai"]
    reply = play(session, "mera rate hai")
    assert reply.fields["phase"] == "PITCHED" and reply.fields["heard_rate"] is None


def test_a_fragment_through_the_command_line(tmp_path: Path) -> None:
    out = cli_call(tmp_path, ["haan ji main hi hoon", "my rate would be", "+0.8 around twenty five thousand"])
    assert len(out) == 3  # greeting, confirmation, one merged turn
    assert out[2]["caller"] == "my rate would be around twenty five thousand"
    assert out[2]["heard_rate"] == 25_000 and out[2]["phase"] == "PROBING"
