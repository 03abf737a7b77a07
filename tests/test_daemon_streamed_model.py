"""A model turn on the phone is spoken while the model streams (simulated PBX, real daemon, real espeak-ng, the
chat model over real HTTP against the local OpenAI server streaming at 10 tokens/s): the caller hears the first
sentence before the model has finished, the search tool went through the policy before anything was said, and
the answer is said once, whole, and recorded as said."""

from __future__ import annotations

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
    if not any(m.get("role") == "tool" for m in body["messages"]):
        return {"tool_calls": [{"name": "search_knowledge_base", "arguments": {"query": "домашний интернет"}}]}
    return {"content": ANSWER}


@pytest.mark.slow
async def test_the_first_sentence_is_heard_before_the_model_has_finished(daemon_base) -> None:
    async with FakeOpenAI(latency=ProviderLatency(SLOW_TOKENS)) as llm:
        llm.chat_script = script
        model = ChatModel(api_key=llm.api_key, base_url=llm.base_url, model="gpt-test", timeout_s=20)
        async with stage_for(daemon_base, overrides=DaemonOverrides(model=model)) as stage:
            caller = await Caller.place(stage)
            await caller.quiet(min_turns=1)
            for line in ("По-русски, пожалуйста.", "Я живу в Караганде."):
                turns = caller.turns()
                await caller.say(line)
                await caller.quiet(min_turns=turns + 1)
            turns = caller.turns()
            asked = await caller.say("Сколько стоит домашний интернет?")
            await caller.quiet(min_turns=turns + 1)
            await caller.sim.hangup()
            record = await caller.record()
    answers = [r for r in llm.requests if r["path"] == "/v1/chat/completions"]
    assert len(answers) == 2 and all(r["json"]["stream"] for r in answers)
    heard = caller.frames_between(asked)
    assert heard, "no reply to the question"
    assert heard[0] < answers[1]["answered"], "the reply started only after the model had finished"
    assert len(runs(heard, gap_s=0.6)) == 1, "the answer was not one utterance (said twice, or cut)"
    turn = record["turns"][-1]
    assert turn["bot_text"] == ANSWER
    assert {(c["name"], c["allowed"]) for c in turn["tool_calls"]} == {("search_knowledge_base", True)}
    assert turn["timings"]["model_total_ms"] > turn["timings"]["model_ms"] > 0
