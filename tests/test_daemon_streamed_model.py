"""A model turn on the phone is spoken while the model streams (simulated PBX, real daemon, real espeak-ng, the
chat model over real HTTP against the local OpenAI server streaming at 10 tokens/s): the policy searched the
knowledge base itself (through its gate) and the model answered from those hits in ONE chat request; the caller
hears the first sentence before the model has finished, and the answer is said once, whole, and recorded as said
with the citations of what the model was given."""

from __future__ import annotations

import json
from typing import Any

import pytest

from ai_operator.daemon.services import DaemonOverrides
from ai_operator.llm.chat import ChatModel
from ai_operator.sim.latency_profiles import LatencyProfile, ProviderLatency
from ai_operator.sim.openai_server import FakeOpenAI
from tests.support.daemon import Caller, runs, stage_for

ANSWER = ("Домашний интернет стоит от шести тысяч тенге в месяц. Подключение бесплатное, роутер можно взять в "
          "аренду. Хотите подключить?")
SLOW_TOKENS = LatencyProfile("paced", chat_tokens_per_s=10.0)  # about 3 s from the first token to the last


def script(body: dict[str, Any]) -> dict[str, Any]:
    """A model that searches when it has no search result, and answers from the result it has."""
    found = [m for m in body["messages"] if m.get("role") == "tool"]
    if not found:
        return {"tool_calls": [{"name": "search_knowledge_base", "arguments": {"query": "домашний интернет"}}]}
    hits = json.loads(found[-1]["content"])
    return {"content": f"По данным раздела {hits[0]['title']}. {ANSWER}" if hits else "Не нашёл."}


@pytest.mark.slow
async def test_the_first_sentence_is_heard_before_the_model_has_finished(daemon_base) -> None:
    async with FakeOpenAI(latency=ProviderLatency(SLOW_TOKENS)) as llm:
        llm.chat_script = script
        model = ChatModel(api_key=llm.api_key, base_url=llm.base_url, model="gpt-test", timeout_s=20)
        async with stage_for(daemon_base, overrides=DaemonOverrides(model=model)) as stage:
            caller = await Caller.place(stage)
            await caller.quiet(min_turns=1)
            for line in ("По-русски, пожалуйста.", "Я живу в Караганде."):
                await caller.turn(line)
            asked = await caller.turn("Сколько стоит домашний интернет?")
            await caller.sim.hangup()
            record = await caller.record()
    answers = [r for r in llm.requests if r["path"] == "/v1/chat/completions"]
    assert len(answers) == 1 and answers[0]["json"]["stream"], "not one model round"
    given = json.loads(next(m for m in answers[0]["json"]["messages"] if m["role"] == "tool")["content"])
    assert given and all(h["language"] == "ru" and h["source"] for h in given)
    heard = caller.frames_between(asked)
    assert heard, "no reply to the question"
    assert heard[0] < answers[0]["answered"], "the reply started only after the model had finished"
    assert len(runs(heard, gap_s=0.6)) == 1, "the answer was not one utterance (said twice, or cut)"
    turn = record["turns"][-1]
    assert turn["bot_text"] == f"По данным раздела {given[0]['title']}. {ANSWER}"
    assert {(c["name"], c["allowed"]) for c in turn["tool_calls"]} == {("search_knowledge_base", True)}
    assert {c["id"] for c in turn["fields"]["citations"]} == {h["id"] for h in given}
    assert turn["timings"]["model_total_ms"] > turn["timings"]["model_ms"] > 0 and turn["timings"]["kb_ms"] > 0
