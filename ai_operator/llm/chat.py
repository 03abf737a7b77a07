"""The chat model with tools (transport: HTTP via the `openai` package's chat completions).

`ChatModel.complete` offers the model ONLY the tools the policy allows now (`ToolSpec`s, declared by the policy). Every tool call the
model makes - an allowed one or not - is handed to `run_tool(name, arguments)`, because the policy must check
(and record) each one itself; the result (or the refusal text) goes back to the model as a `tool` message and
the model is asked again, for at most `max_tool_rounds` rounds of tools. After the last round the model is asked
once more with `tool_choice="none"` so it must answer in words. Each request is bounded by `timeout_s` and the
whole exchange by `total_timeout_s`; timeouts, HTTP errors and malformed answers raise `LlmError`.

With `on_text`, every request is streamed and the answer's text is handed to `on_text` piece by piece as it
arrives (so it can be spoken before the model has finished); only while the round has shown no tool call: once a
tool call starts, nothing more of that round is handed on, and the call goes through `run_tool` (the policy) as
always. `on_text` returning False stops the answer there (the caller barged in): the text so far is the answer.

`open` sends a streamed answer's first request ahead, before the turn is decided (`daemon/model_prefetch.py`):
`complete(..., opened=...)` reads that response instead of asking again when its own first request is the same
request (every field equal: `OpenedRequest.adopted`); otherwise it asks as always and the opened one is left for its
owner to `discard`.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from ai_operator.dialogue import ToolSpec
from ai_operator.logs import get_logger
from ai_operator.openai_client import describe_failure, make_client, warm

log = get_logger("model")

DEFAULT_MAX_TOOL_ROUNDS = 3
MAX_TOOL_RESULT_CHARS = 4000

RunTool = Callable[[str, dict[str, Any]], Awaitable[str]]
TextSink = Callable[[str], bool]  # a piece of the answer as it streams; False: stop the answer here


@dataclass
class _Function:
    name: str = ""
    arguments: str = ""


@dataclass
class _ToolCall:
    id: str = ""
    function: _Function = field(default_factory=_Function)


@dataclass
class _Streamed:
    """A streamed answer put back together: what `_ask` returns (the fields `complete` reads)."""

    content: str | None = None
    tool_calls: list[_ToolCall] = field(default_factory=list)


@dataclass
class OpenedRequest:
    """A streamed first request sent ahead (`ChatModel.open`): the request and its response on the way."""

    kwargs: dict[str, Any]
    response: asyncio.Future[Any]
    adopted: bool = False  # `complete` read this response as its first request's

    def usable_for(self, kwargs: dict[str, Any]) -> bool:
        """Not adopted yet, not failed, and the very request `kwargs` says."""
        failed = self.response.done() and (self.response.cancelled() or self.response.exception() is not None)
        return not self.adopted and not failed and self.kwargs == kwargs

    async def discard(self) -> None:
        """Not wanted: the request is cancelled, or its response closed unread."""
        if not self.response.done():
            self.response.cancel()
            await asyncio.wait({self.response})
        elif not self.response.cancelled() and self.response.exception() is None:
            with contextlib.suppress(Exception):
                await self.response.result().close()


class LlmError(Exception):
    """The chat model failed (timeout, HTTP status, bad response); the message names the model."""


class ChatModel:
    """OpenAI (or compatible) chat completions with a bounded, policy-checked tool loop."""

    name = "openai"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None,
        model: str,
        timeout_s: float,
        max_tool_rounds: int = DEFAULT_MAX_TOOL_ROUNDS,
        total_timeout_s: float | None = None,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"ChatModel: timeout_s must be positive, got {timeout_s}")
        if max_tool_rounds < 0:
            raise ValueError(f"ChatModel: max_tool_rounds must be >= 0, got {max_tool_rounds}")
        self.model = model
        self.timeout_s = timeout_s
        self.max_tool_rounds = max_tool_rounds
        self.total_timeout_s = (
            total_timeout_s if total_timeout_s is not None else timeout_s * (max_tool_rounds + 1)
        )
        self._api_key = api_key
        self._client = make_client(api_key=api_key, base_url=base_url, timeout_s=timeout_s)

    def _fail(self, what: str) -> LlmError:
        return LlmError(f"model {self.model}: {what}")

    async def complete(
        self,
        system: str,
        messages: Sequence[Mapping[str, Any]],
        *,
        tools: Sequence[ToolSpec] = (),
        run_tool: RunTool | None = None,
        response_schema: Mapping[str, Any] | None = None,
        on_text: TextSink | None = None,
        opened: OpenedRequest | None = None,
    ) -> str:
        """The model's final text after at most `max_tool_rounds` rounds of tool calls; with `response_schema`
        the answer is asked for as one JSON object of that schema (structured output); with `on_text` (and no
        schema) streamed, see the module docstring; `opened`: a first request sent ahead (`open`)."""
        convo, schemas = _first_round(system, messages, tools)
        deadline = time.monotonic() + self.total_timeout_s
        for round_no in range(self.max_tool_rounds + 1):
            last_round = round_no == self.max_tool_rounds
            message = await self._ask(convo, schemas, deadline, force_text=last_round, response_schema=response_schema,
                                      on_text=on_text if response_schema is None else None,
                                      opened=opened if round_no == 0 else None)
            calls = message.tool_calls or []
            if not calls:
                text = (message.content or "").strip()
                if not text:
                    raise self._fail("empty answer")
                return text
            if last_round:
                break
            convo.append(
                {
                    "role": "assistant",
                    "content": message.content,
                    "tool_calls": [
                        {
                            "id": c.id,
                            "type": "function",
                            "function": {"name": c.function.name, "arguments": c.function.arguments},
                        }
                        for c in calls
                    ],
                }
            )
            for call in calls:
                result = await self._run_one(call.function.name, call.function.arguments, run_tool)
                convo.append({"role": "tool", "tool_call_id": call.id, "content": result})
        raise self._fail(f"still calling tools after {self.max_tool_rounds} tool rounds")

    async def _ask(
        self,
        convo: list[dict[str, Any]],
        schemas: list[dict[str, Any]],
        deadline: float,
        *,
        force_text: bool,
        response_schema: Mapping[str, Any] | None = None,
        on_text: TextSink | None = None,
        opened: OpenedRequest | None = None,
    ) -> Any:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            raise self._fail("timeout (total time for this turn used up)")
        kwargs = self._request(convo, schemas, force_text=force_text, response_schema=response_schema)
        try:
            if on_text is not None:
                return await asyncio.wait_for(self._streamed(kwargs, on_text, opened), min(self.timeout_s, remaining))
            response = await asyncio.wait_for(
                self._client.chat.completions.create(**kwargs), min(self.timeout_s, remaining)
            )
            return response.choices[0].message
        except Exception as exc:
            reason = describe_failure(exc, self._api_key)
            log.warning("model_request_failed", model=self.model, reason=reason)
            raise self._fail(reason) from None

    def _request(self, convo: list[dict[str, Any]], schemas: list[dict[str, Any]], *, force_text: bool,
                 response_schema: Mapping[str, Any] | None = None) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"model": self.model, "messages": convo}
        if response_schema is not None:
            kwargs["response_format"] = {
                "type": "json_schema",
                "json_schema": {"name": "answer", "schema": dict(response_schema), "strict": True},
            }
        if schemas:
            kwargs["tools"] = schemas
            if force_text:
                kwargs["tool_choice"] = "none"
        return kwargs

    def open(self, system: str, messages: Sequence[Mapping[str, Any]], *,
             tools: Sequence[ToolSpec] = ()) -> OpenedRequest:
        """The first request `complete(system, messages, tools=tools, on_text=...)` would send, sent now (streamed;
        bounded by the client's `timeout_s`); see the module docstring."""
        convo, schemas = _first_round(system, messages, tools)
        kwargs = self._request(convo, schemas, force_text=self.max_tool_rounds == 0)
        return OpenedRequest(kwargs, asyncio.ensure_future(self._client.chat.completions.create(**kwargs, stream=True)))

    async def _streamed(self, kwargs: dict[str, Any], on_text: TextSink, opened: OpenedRequest | None = None
                        ) -> _Streamed:
        if opened is not None and opened.usable_for(kwargs):
            opened.adopted = True
            stream = await opened.response  # sent ahead: its first tokens may be here already
        else:
            stream = await self._client.chat.completions.create(**kwargs, stream=True)
        text: list[str] = []
        calls: dict[int, _ToolCall] = {}
        try:
            async for chunk in stream:
                delta = chunk.choices[0].delta if chunk.choices else None
                if delta is None:
                    continue
                for part in delta.tool_calls or []:
                    call = calls.setdefault(part.index, _ToolCall())
                    call.id = part.id or call.id
                    if part.function is not None:
                        call.function.name += part.function.name or ""
                        call.function.arguments += part.function.arguments or ""
                if delta.content:
                    text.append(delta.content)
                    if not calls and not on_text(delta.content):
                        break  # stopped (a barge-in): the text so far is the answer
        finally:
            await stream.close()
        return _Streamed("".join(text) or None, [calls[i] for i in sorted(calls)])

    async def _run_one(self, name: str, raw_arguments: str | None, run_tool: RunTool | None) -> str:
        try:
            arguments = json.loads(raw_arguments or "{}")
        except json.JSONDecodeError as exc:
            return f"error: the arguments of {name} are not valid JSON ({exc.msg} at position {exc.pos}); not run"
        if not isinstance(arguments, dict):
            return f"error: the arguments of {name} must be a JSON object, got {type(arguments).__name__}; not run"
        if run_tool is None:
            return f"error: tool {name} is not available now"
        try:
            result = await run_tool(name, arguments)
        except Exception as exc:
            log.warning("model_tool_failed", tool=name, error=type(exc).__name__, reason=str(exc)[:200])
            return f"error: tool {name} failed ({type(exc).__name__})"
        text = result if isinstance(result, str) else json.dumps(result, ensure_ascii=False, default=str)
        return text[:MAX_TOOL_RESULT_CHARS]

    def warm(self) -> None:
        """A connection made ahead when none is kept (`openai_client.warm`): the caller started speaking."""
        warm(self._client)

    async def aclose(self) -> None:
        await self._client.close()


def _first_round(system: str, messages: Sequence[Mapping[str, Any]], tools: Sequence[ToolSpec]
                 ) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The conversation and the tool schemas of a completion's first request."""
    schemas = [spec.as_openai() for spec in {t.name: t for t in tools}.values()]
    return [{"role": "system", "content": system}, *(dict(m) for m in messages)], schemas


__all__ = ["ChatModel", "LlmError", "OpenedRequest", "RunTool", "TextSink"]
