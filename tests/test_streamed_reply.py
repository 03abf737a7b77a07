"""A model's answer spoken while it streams: the chat model's streamed tool loop over real HTTP (the local
OpenAI server), the sentence cutter, and the streamed reply against a recording speaker (cut = barge-in)."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import pytest

from ai_operator.daemon.streamed_reply import SentenceBuffer, StreamedReply
from ai_operator.llm.chat import ChatModel
from ai_operator.sim.openai_server import FakeOpenAI
from policies.operator.tools import specs_for

KEY = "sk-stream-test"
USER = [{"role": "user", "content": "сколько стоит интернет"}]
ANSWER = "Тариф Дом 100 стоит 6990 тенге в месяц. Подключение бесплатное! Хотите подключить?"


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAI]:
    async with FakeOpenAI(api_key=KEY) as srv:
        yield srv


class Speaker:
    """Records what a streamed utterance is fed; `cut()` stops it as a barge-in does."""

    def __init__(self) -> None:
        self.opened: list[str] = []
        self.fed: list[str] = []
        self.finished: list[str] = []
        self.active: str | None = None

    def open(self, language: str) -> str:
        self.opened.append(language)
        self.active = f"u{len(self.opened)}"
        return self.active

    def feed(self, utterance_id: str, text: str) -> bool:
        if utterance_id != self.active:
            return False
        self.fed.append(text)
        return True

    def finish(self, utterance_id: str) -> None:
        self.finished.append(utterance_id)

    def is_active(self, utterance_id: str) -> bool:
        return utterance_id == self.active

    def cut(self) -> str | None:
        cut, self.active = self.active, None
        return cut


def test_the_first_piece_is_the_first_words_and_then_clauses_and_sentences() -> None:
    buffer = SentenceBuffer()  # whole words of 12 characters first: the TTS starts before the model has a clause
    assert buffer.push("Домашний ") == [] and buffer.push("интернет") == []  # 8 characters; "интернет" may go on
    assert buffer.push(" стоит ") == ["Домашний интернет "]
    assert buffer.push("от пяти тысяч тенге в месяц, скорость ") == []  # then the usual rule: 40 chars a clause
    assert buffer.push("до ста мегабит. Подключение") == ["стоит от пяти тысяч тенге в месяц, скорость до ста "
                                                           "мегабит. "]
    kazakh = SentenceBuffer()
    assert kazakh.push("Үй ") == [] and kazakh.push("интернеті айына") == ["Үй интернеті "]
    long_word = SentenceBuffer()
    assert long_word.push("Здравствуйте, чем ") == ["Здравствуйте, "]  # one word as long as that is enough
    short = SentenceBuffer()
    assert short.push("Да. Конечно, я помогу вам.") == ["Да. "]  # a sentence shorter than that goes as it is
    assert short.push(" ") == ["Конечно, я помогу вам. "]
    whole = SentenceBuffer(first_chars=0)
    assert whole.push("Домашний интернет стоит от пяти ") == []


def test_sentences_and_long_clauses_come_out_as_soon_as_they_are_complete() -> None:
    buffer = SentenceBuffer(min_clause_chars=20, first_chars=0)
    assert buffer.push("Тариф стоит") == []
    assert buffer.push(" 6990 тенге. Подключ") == ["Тариф стоит 6990 тенге. "]
    assert buffer.push("ение бесплатное, роутер в аренду, ") == ["Подключение бесплатное, "]  # 22 chars: a clause
    assert buffer.push("да? Ну") == ["роутер в аренду, да? "]  # 17 chars waited for the end of its sentence
    assert buffer.push(", ладно") == []  # a short clause waits for the rest of its sentence
    assert buffer.flush() == "Ну, ладно"
    assert buffer.push("3.5 Мбит") == []  # a decimal point is not the end of a sentence


async def test_a_streamed_answer_is_handed_on_piece_by_piece_after_the_tool_call(server: FakeOpenAI) -> None:
    server.chat_script = [
        {"tool_calls": [{"name": "search_knowledge_base", "arguments": {"query": "интернет"}}]},
        {"content": ANSWER},
    ]
    pieces: list[str] = []
    calls: list[str] = []

    async def run_tool(name: str, arguments: dict) -> str:
        calls.append(name)
        assert pieces == []  # nothing was said before the policy had the tool call
        return json.dumps({"hits": []})

    def hear(piece: str) -> bool:
        pieces.append(piece)
        return True  # the caller listens on

    model = ChatModel(api_key=KEY, base_url=server.base_url, model="m", timeout_s=6)
    text = await model.complete("sys", USER, tools=specs_for(["search_knowledge_base"]), run_tool=run_tool,
                                on_text=hear)
    assert text == ANSWER and calls == ["search_knowledge_base"]
    assert len(pieces) > 5 and "".join(pieces) == ANSWER
    bodies = [r["json"] for r in server.requests if r["path"] == "/v1/chat/completions"]
    assert all(b.get("stream") is True for b in bodies)
    assert bodies[1]["messages"][-2]["tool_calls"][0]["function"]["name"] == "search_knowledge_base"


async def test_false_from_the_sink_stops_the_answer_there(server: FakeOpenAI) -> None:
    server.chat_script = [{"content": ANSWER}]
    seen: list[str] = []

    def sink(piece: str) -> bool:
        seen.append(piece)
        return len(seen) < 3

    model = ChatModel(api_key=KEY, base_url=server.base_url, model="m", timeout_s=6)
    text = await model.complete("sys", USER, on_text=sink)
    assert text == "".join(seen).strip() and len(seen) == 3 and len(text) < len(ANSWER)


async def test_a_request_sent_ahead_is_read_when_the_answer_asks_the_same_and_closed_when_it_asks_otherwise(
        server: FakeOpenAI) -> None:
    server.chat_script = lambda body: {"content": f"Про {body['messages'][-1]['content']}: {ANSWER}"}
    model = ChatModel(api_key=KEY, base_url=server.base_url, model="m", timeout_s=6)
    tools = specs_for(["search_knowledge_base"])
    heard: list[str] = []

    def hear(piece: str) -> bool:
        heard.append(piece)
        return True

    def asked() -> list[str]:
        return [r["json"]["messages"][-1]["content"] for r in server.requests if r["path"] == "/v1/chat/completions"]

    ahead = model.open("sys", USER, tools=tools)
    text = await model.complete("sys", USER, tools=tools, on_text=hear, opened=ahead)
    assert ahead.adopted and text == f"Про {USER[0]['content']}: {ANSWER}" and "".join(heard) == text
    assert asked() == [USER[0]["content"]]  # one request: the one sent ahead
    other = [{"role": "user", "content": "как оплатить"}]
    ahead = model.open("sys", USER, tools=tools)
    text = await model.complete("sys", other, tools=tools, on_text=hear, opened=ahead)
    assert not ahead.adopted and text == f"Про как оплатить: {ANSWER}"  # the answer to what was asked
    await ahead.discard()
    assert sorted(asked()) == sorted([USER[0]["content"], USER[0]["content"], "как оплатить"])
    ahead = model.open("sys", USER)  # no tools offered: not the same request as one with tools
    assert not ahead.usable_for(model._request([{"role": "system", "content": "sys"}, *USER],
                                               [t.as_openai() for t in tools], force_text=False))
    await ahead.discard()
    await model.aclose()


def test_streamed_reply_speaks_sentences_into_one_utterance_and_finishes_with_the_rest() -> None:
    speaker = Speaker()
    reply = StreamedReply(speaker, "ru")
    for piece in ("Тариф Дом 100 ", "стоит 6990 тенге в месяц. Подклю", "чение бесплатное! Хотите", " подключить?"):
        assert reply(piece) is True
    assert speaker.opened == ["ru"] and speaker.fed == ["Тариф Дом 100 ", "стоит 6990 тенге в месяц. ",
                                                        "Подключение бесплатное! "]
    assert reply.first_text_at is not None and reply.started_at is not None
    assert reply.speaks(ANSWER, "ru") and not reply.speaks(ANSWER, "kk") and not reply.speaks("Другое.", "ru")
    assert reply.finish() == "u1"
    assert speaker.fed[-1] == "Хотите подключить?" and speaker.finished == ["u1"]


def test_a_barge_in_stops_the_model_and_an_answer_the_policy_replaced_is_cut() -> None:
    speaker = Speaker()
    reply = StreamedReply(speaker, "ru")
    assert reply("Тариф Дом 100 стоит 6990 тенге. ") is True
    speaker.cut()  # the caller barged in
    assert reply("Подключение бесплатное! ") is False
    assert speaker.fed == ["Тариф Дом 100 ", "стоит 6990 тенге. "]
    other = StreamedReply(speaker, "ru")
    other("Первое предложение. ")
    other.abandon()
    assert speaker.active is None
    quiet = StreamedReply(speaker, "ru")
    quiet("нет конца предложения")
    quiet.abandon()  # nothing had started: nothing to cut
    assert speaker.opened == ["ru", "ru"]


async def test_streamed_chat_is_not_slower_to_its_first_piece_than_to_the_whole(server: FakeOpenAI) -> None:
    from ai_operator.sim.latency_profiles import LatencyProfile, ProviderLatency

    server.latency = ProviderLatency(LatencyProfile("paced", chat_tokens_per_s=20))
    server.chat_script = [{"content": ANSWER}]
    first = asyncio.get_running_loop().create_future()

    def sink(piece: str) -> bool:
        if not first.done():
            first.set_result(asyncio.get_running_loop().time())
        return True

    model = ChatModel(api_key=KEY, base_url=server.base_url, model="m", timeout_s=30)
    await model.complete("sys", USER, on_text=sink)
    done = asyncio.get_running_loop().time()
    assert done - first.result() >= (len(ANSWER) / 4 - 2) / 20 * 0.9  # the rest streamed after the first piece
