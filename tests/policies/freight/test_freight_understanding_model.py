"""Freight: with a model configured, a turn the rules could not read (OPENING, PITCHED) is sent to the model as a
constrained classification - a JSON schema allowing only that phase's labels - and the policy validates the
answer: an allowed label decides the move, anything else asks again exactly as without a model. Tested on the
session and through the real `ChatModel` over HTTP to the local OpenAI-compatible server."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from ai_operator.conversation import Conversation
from ai_operator.dialogue import ModelTurn
from ai_operator.llm.chat import ChatModel
from ai_operator.sim.openai_server import FakeOpenAI
from policies.freight import lines as L
from policies.freight.constrained import LABELS, PURPOSE, read_label, schema
from policies.freight.intents import classify
from tests.support.freight import CONFIRM, LOAD, started
from tests.support.policies import freight_route
from tests.support.policies import session as policy_session

REPO = Path(__file__).resolve().parents[3]  # tests/policies/freight/ -> the checkout
FREIGHT = freight_route(REPO / "etc/loads/sample.json")
UNREAD_OPENING = ["abhi khet mein paani laga raha hoon", "वो तो मेरे भाई का काम है", "umm kis company se"]
UNREAD_PITCHED = ["vo sab chhodo yaar", "gaadiyan sab bahar gayi hui hain"]


@pytest.mark.parametrize(
    ("answer", "label"),
    [
        ('{"label": "callback"}', "callback"),
        ('```json\n{"label": "wrong_number"}\n```', "wrong_number"),
        ('{"label": "asks_our_rate"}', None),  # a PITCHED label is not allowed in OPENING
        ('{"label": "deal"}', None),
        ('{"label": "callback", "rate": 25000}', None),  # nothing but the label
        ('{"label": 3}', None),
        ("callback", None),
        ("", None),
        (None, None),
    ],
)
def test_read_label_allows_only_the_schema_values(answer: str | None, label: str | None) -> None:
    assert read_label(answer, "OPENING") == label


def test_the_schema_is_an_enum_of_the_phase_labels() -> None:
    for phase, labels in LABELS.items():
        doc = schema(phase)
        assert doc["properties"]["label"]["enum"] == list(labels) and doc["additionalProperties"] is False


@pytest.mark.parametrize("text", UNREAD_OPENING)
def test_an_unread_opening_turn_is_labelled_by_the_model(text: str) -> None:
    assert classify(text).unknown
    session = started(f"label-{text}", model=True)
    reply = session.on_utterance(text)
    effect = reply.effect
    assert isinstance(effect, ModelTurn) and effect.purpose == PURPOSE and reply.text is None
    sent = effect.system + json.dumps(effect.messages, ensure_ascii=False)
    assert '"enum": ["right_person", "wrong_number", "callback", "not_interested", "unclear"]' in sent
    assert not re.search(r"\d{3,}", sent) and "ceiling" not in sent.lower() and LOAD.material not in sent
    final = session.on_effect_result('{"label": "callback"}')
    assert final.hang_up and final.disposition == "callback" and final.text == L.CANNED[L.CALLBACK]


@pytest.mark.parametrize("answer", ['{"label": "deal_done"}', "हां जी", None, '{"label": "unclear"}'])
def test_a_bad_or_unclear_label_asks_again_as_without_a_model(answer: str | None) -> None:
    with_model = started("label-bad", model=True)
    with_model.on_utterance(UNREAD_OPENING[0])
    reply = with_model.on_effect_result(answer)
    without = started("label-bad")
    assert reply.text == without.on_utterance(UNREAD_OPENING[0]).text
    assert reply.fields["phase"] == "OPENING" and not reply.hang_up


@pytest.mark.parametrize("text", UNREAD_PITCHED)
def test_an_unread_turn_after_the_pitch_can_be_a_decline(text: str) -> None:
    session = started(f"label-pitched-{text}", model=True)
    session.on_utterance(CONFIRM)
    reply = session.on_utterance(text)
    assert reply.effect is not None and reply.effect.purpose == PURPOSE
    final = session.on_effect_result('{"label": "not_interested"}')
    assert final.hang_up and final.disposition == "declined"


def test_a_read_turn_never_asks_the_model_to_label_it() -> None:
    session = started("label-read", model=True)
    assert session.on_utterance("abhi busy hoon kal phone karna").hang_up  # the rules read it: no model
    session = started("label-read-2", model=True)
    assert session.on_utterance(CONFIRM).effect is None


@pytest.fixture
async def fake():
    server = FakeOpenAI()
    await server.start()
    yield server
    await server.stop()


async def test_labelling_through_the_local_openai_server(fake: FakeOpenAI) -> None:
    def answer(body: dict) -> dict:
        system = body["messages"][0]["content"]
        return {"content": '{"label": "callback"}' if system.startswith("You label") else "धन्यवाद जी, नमस्ते।"}

    fake.chat_script = answer
    model = ChatModel(api_key=fake.api_key, base_url=fake.base_url, model="gpt-4o-mini", timeout_s=5)
    session = policy_session(FREIGHT, "label-http", model_available=True)
    conv = Conversation(session, model=model)
    await conv.start()
    out = await conv.utterance(UNREAD_OPENING[1])
    assert out.reply.hang_up and out.reply.disposition == "callback"
    bodies = [r["json"] for r in fake.requests if r["path"] == "/v1/chat/completions"]
    assert len(bodies) == 1 and '"enum"' in bodies[0]["messages"][0]["content"]
