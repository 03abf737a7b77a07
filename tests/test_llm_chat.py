"""ChatModel's policy-checked tool loop against the local OpenAI-compatible server over real HTTP."""

from __future__ import annotations

import json
import time
from collections.abc import AsyncIterator
from typing import Any

import pytest

from ai_operator.llm.chat import ChatModel, LlmError
from ai_operator.sim.openai_server import FakeOpenAI
from policies.operator.tools import TOOL_SPECS, specs_for

KEY = "sk-model-test-key-123456"
USER = [{"role": "user", "content": "Сколько стоит интернет в Алматы?"}]


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAI]:
    async with FakeOpenAI(api_key=KEY) as srv:
        yield srv


def chat_bodies(server: FakeOpenAI) -> list[dict[str, Any]]:
    return [r["json"] for r in server.requests if r["path"] == "/v1/chat/completions"]


class Recorder:
    """A run_tool that allows only `allowed` and records every call, like a policy would."""

    def __init__(self, allowed: set[str]) -> None:
        self.allowed = allowed
        self.calls: list[tuple[str, dict]] = []

    async def __call__(self, name: str, arguments: dict) -> str:
        self.calls.append((name, arguments))
        if name not in self.allowed:
            return f"refused: {name} is not allowed now"
        return json.dumps(
            {"hits": [{"title": "Тариф Дом 100", "text": "100 Мбит/с за 6000 тенге"}]}, ensure_ascii=False
        )


def test_a_tool_spec_becomes_a_chat_completions_tool() -> None:
    spec = TOOL_SPECS["search_knowledge_base"]
    assert spec.as_openai() == {
        "type": "function",
        "function": {"name": spec.name, "description": spec.description, "parameters": dict(spec.parameters)},
    }
    assert spec.parameters["required"] == ["query"]


async def test_only_allowed_tools_are_offered_and_results_flow_back(server: FakeOpenAI) -> None:
    server.chat_script = [
        {"tool_calls": [{"name": "search_knowledge_base", "arguments": {"query": "интернет Алматы"}}]},
        {"content": "Тариф Дом 100 стоит 6000 тенге."},
    ]
    model = ChatModel(api_key=KEY, base_url=server.base_url, model="gpt-test", timeout_s=6)
    run = Recorder({"search_knowledge_base"})
    text = await model.complete(
        "Ты оператор.", USER, tools=specs_for(["search_knowledge_base", "end_call"]), run_tool=run
    )
    assert text == "Тариф Дом 100 стоит 6000 тенге."
    assert run.calls == [("search_knowledge_base", {"query": "интернет Алматы"})]
    first, second = chat_bodies(server)
    assert first["model"] == "gpt-test"
    assert [t["function"]["name"] for t in first["tools"]] == ["search_knowledge_base", "end_call"]
    assert first["messages"][0] == {"role": "system", "content": "Ты оператор."}
    assert first["messages"][1:] == USER
    assistant, tool_msg = second["messages"][-2:]
    assert (
        assistant["role"] == "assistant"
        and assistant["tool_calls"][0]["function"]["name"] == "search_knowledge_base"
    )
    assert tool_msg["role"] == "tool" and tool_msg["tool_call_id"] == assistant["tool_calls"][0]["id"]
    assert "6000 тенге" in tool_msg["content"]


async def test_no_tools_means_no_tools_field(server: FakeOpenAI) -> None:
    server.chat_script = [{"content": "Здравствуйте!"}]
    model = ChatModel(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini", timeout_s=6)
    assert await model.complete("sys", USER) == "Здравствуйте!"
    assert "tools" not in chat_bodies(server)[0]


async def test_denied_tool_still_goes_to_run_tool_and_refusal_flows_back(server: FakeOpenAI) -> None:
    server.chat_script = [
        {"tool_calls": [{"name": "end_call", "arguments": {"reason": "bored"}}]},
        {"content": "Чем ещё могу помочь?"},
    ]
    model = ChatModel(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini", timeout_s=6)
    run = Recorder(allowed={"search_knowledge_base"})
    text = await model.complete("sys", USER, tools=specs_for(["search_knowledge_base"]), run_tool=run)
    assert text == "Чем ещё могу помочь?"
    assert run.calls == [("end_call", {"reason": "bored"})]
    tool_msg = chat_bodies(server)[1]["messages"][-1]
    assert tool_msg["content"] == "refused: end_call is not allowed now"


async def test_bad_json_arguments_are_reported_not_run(server: FakeOpenAI) -> None:
    server.chat_script = [
        {"tool_calls": [{"name": "set_region", "arguments": "{region: Алматы"}]},
        {"content": "Уточните регион, пожалуйста."},
    ]
    model = ChatModel(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini", timeout_s=6)
    run = Recorder({"set_region"})
    assert (
        await model.complete("sys", USER, tools=specs_for(["set_region"]), run_tool=run)
        == "Уточните регион, пожалуйста."
    )
    assert run.calls == []
    assert "not valid JSON" in chat_bodies(server)[1]["messages"][-1]["content"]


async def test_tool_rounds_are_bounded(server: FakeOpenAI) -> None:
    def always_tools(body: dict) -> dict:
        if body.get("tool_choice") == "none":
            return {"content": "Не удалось найти ответ."}
        return {"tool_calls": [{"name": "search_knowledge_base", "arguments": {"query": "x"}}]}

    server.chat_script = always_tools
    model = ChatModel(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini", timeout_s=6, max_tool_rounds=2)
    run = Recorder({"search_knowledge_base"})
    assert (
        await model.complete("sys", USER, tools=specs_for(["search_knowledge_base"]), run_tool=run)
        == "Не удалось найти ответ."
    )
    bodies = chat_bodies(server)
    assert len(bodies) == 3 and len(run.calls) == 2
    assert bodies[-1]["tool_choice"] == "none"

    server.chat_script = lambda body: {"tool_calls": [{"name": "search_knowledge_base", "arguments": {}}]}
    with pytest.raises(LlmError, match="still calling tools after 2"):
        await model.complete("sys", USER, tools=specs_for(["search_knowledge_base"]), run_tool=run)


async def test_timeout_and_http_errors_are_model_errors(server: FakeOpenAI) -> None:
    server.chat_script = [{"content": "late"}] * 3
    server.delay_s = 3.0
    model = ChatModel(api_key=KEY, base_url=server.base_url, model="gpt-slow", timeout_s=0.3)
    started = time.monotonic()
    with pytest.raises(LlmError, match="gpt-slow: timeout"):
        await model.complete("sys", USER)
    assert time.monotonic() - started < 1.0
    server.delay_s = 0.0
    server.fail_next = 1
    with pytest.raises(LlmError, match="HTTP 500") as info:
        await model.complete("sys", USER)
    assert KEY not in str(info.value)


async def test_empty_answer(server: FakeOpenAI) -> None:
    server.chat_script = [{"content": "  "}]
    model = ChatModel(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini", timeout_s=6)
    with pytest.raises(LlmError, match="empty answer"):
        await model.complete("sys", USER)


async def test_tool_failure_is_told_to_the_model(server: FakeOpenAI) -> None:
    server.chat_script = [
        {"tool_calls": [{"name": "search_knowledge_base", "arguments": {"query": "q"}}]},
        {"content": "Извините, база знаний недоступна."},
    ]

    async def broken(name: str, arguments: dict) -> str:
        raise ConnectionError("database down")

    model = ChatModel(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini", timeout_s=6)
    text = await model.complete("sys", USER, tools=specs_for(["search_knowledge_base"]), run_tool=broken)
    assert text == "Извините, база знаний недоступна."
    assert "failed (ConnectionError)" in chat_bodies(server)[1]["messages"][-1]["content"]


async def test_a_response_schema_is_asked_for_as_structured_output(server: FakeOpenAI) -> None:
    schema = {"type": "object", "properties": {"label": {"type": "string", "enum": ["yes", "no"]}},
              "required": ["label"], "additionalProperties": False}
    server.chat_script = [{"content": '{"label": "yes"}'}]
    model = ChatModel(api_key=KEY, base_url=server.base_url, model="gpt-4o-mini", timeout_s=6)
    assert await model.complete("label it", USER, response_schema=schema) == '{"label": "yes"}'
    sent = chat_bodies(server)[0]["response_format"]
    assert sent == {"type": "json_schema", "json_schema": {"name": "answer", "schema": schema, "strict": True}}
    server.chat_script = [{"content": "plain"}]
    await model.complete("sys", USER)
    assert "response_format" not in chat_bodies(server)[1]
