"""Streaming STT over the OpenAI Realtime transcription protocol: the event codec over handwritten JSON bytes, and
the adapter against the local server's websocket endpoint (real websockets, the same scripted transcripts as
the batch endpoint, and its failures: an error event, a closed socket, a refused key)."""

from __future__ import annotations

import base64
import json

import numpy as np
import pytest

import ai_operator.speech.realtime_protocol as rp
from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.speech.errors import SpeechError
from ai_operator.speech.openai_realtime_stt import OpenAIRealtimeSTT
from ai_operator.speech.streaming_stt import SegmentedOverStreaming, Transcript
from ai_operator.speech.wav import decode_wav
from tests.support.wait import eventually

KEY = "test-key"


def tone(seconds: float) -> np.ndarray:
    t = np.arange(int(8000 * seconds)) / 8000
    return (np.sin(2 * np.pi * 440 * t) * 8000).astype(np.int16)


# ---- the codec, over bytes a server sends -------------------------------------------------------------------
def test_server_events_parse_from_their_wire_bytes() -> None:
    delta = b'{"type":"conversation.item.input_audio_transcription.delta","item_id":"item_1","content_index":0,' \
            b'"delta":"\xd0\xb4\xd0\xb0"}'
    done = b'{"type":"conversation.item.input_audio_transcription.completed","item_id":"item_1",' \
           b'"content_index":0,"transcript":"\xd0\xb4\xd0\xb0 \xd1\x80\xd1\x83\xd1\x81\xd1\x81\xd0\xba\xd0\xb8\xd0\xb9"}'
    assert rp.parse_event(delta) == rp.ServerEvent(rp.PARTIAL, "item_1", "да")
    assert rp.parse_event(done) == rp.ServerEvent(rp.FINAL, "item_1", "да русский")
    assert rp.parse_event(b'{"type":"input_audio_buffer.committed","item_id":"item_2","previous_item_id":null}') \
        == rp.ServerEvent(rp.COMMITTED, "item_2")
    error = rp.parse_event(b'{"type":"error","event_id":"e1","error":{"type":"invalid_request_error",'
                           b'"code":"input_audio_buffer_commit_empty","message":"buffer too small"}}')
    assert error.kind == rp.FAILED and "buffer too small" in error.text
    failed = rp.parse_event(b'{"type":"conversation.item.input_audio_transcription.failed","item_id":"item_3",'
                            b'"error":{"code":"audio_unintelligible"}}')
    assert failed == rp.ServerEvent(rp.FAILED, "item_3",
                                    "conversation.item.input_audio_transcription.failed: audio_unintelligible")
    assert rp.parse_event(b'{"type":"transcription_session.updated","session":{}}').kind == rp.IGNORED


@pytest.mark.parametrize("bad", [b"not json", b"[1,2]", b'{"no_type":1}'])
def test_a_malformed_server_event_is_a_clear_error(bad: bytes) -> None:
    with pytest.raises(ValueError, match="realtime event"):
        rp.parse_event(bad)


def test_client_events_are_the_documented_shapes() -> None:
    update = json.loads(rp.session_update("gpt-4o-transcribe", "kk"))
    assert update == {"type": "transcription_session.update", "session": {
        "input_audio_format": "g711_ulaw", "input_audio_transcription": {"model": "gpt-4o-transcribe",
                                                                         "language": "kk"},
        "turn_detection": None}}
    frame = tone(0.02)
    event = json.loads(rp.append(frame))
    assert event["type"] == "input_audio_buffer.append"
    assert len(base64.b64decode(event["audio"])) == FRAME_SAMPLES  # one mu-law byte a sample
    decoded = rp.decode_append(event)
    assert np.max(np.abs(decoded.astype(np.int32) - frame)) < 300  # mu-law is lossy, not wrong
    assert json.loads(rp.commit()) == {"type": "input_audio_buffer.commit"}
    assert rp.realtime_url("http://127.0.0.1:9/v1") == "ws://127.0.0.1:9/v1/realtime?intent=transcription"
    assert rp.realtime_url(None) == "wss://api.openai.com/v1/realtime?intent=transcription"


# ---- the adapter against the local server --------------------------------------------------------------------
async def test_partials_while_audio_arrives_then_the_final_after_the_commit() -> None:
    heard: list[float] = []

    def script(wav: bytes, fields: dict) -> str:
        seconds = len(decode_wav(wav)[0]) / 8000
        heard.append(seconds)
        return "алло да" if seconds < 0.5 else "алло да русский"

    async with FakeOpenAI(api_key=KEY) as fake:
        fake.transcripts = script
        stt = OpenAIRealtimeSTT(api_key=KEY, base_url=fake.base_url, model="whisper-1", timeout_s=5)
        stream = await stt.open("ru")
        audio = tone(1.0)
        for start in range(0, audio.size, FRAME_SAMPLES):
            await stream.feed(audio[start : start + FRAME_SAMPLES])
        await stream.finish()
        results = [r async for r in stream.results()]
        await stream.aclose()
    assert results[-1].final and results[-1].text == "алло да русский"
    assert [r.final for r in results[:-1]] == [False] * (len(results) - 1)
    assert results[0].text == "алло да"  # a partial of the audio so far, while it still arrived
    session = next(r for r in fake.requests if r["path"] == "/v1/realtime")
    kinds = [kind for kind, _ in session["events"]]
    assert kinds[0] == "transcription_session.update" and kinds[-1] == "input_audio_buffer.commit"
    assert kinds.count("input_audio_buffer.append") == 50
    assert not any(r["path"] == "/v1/audio/transcriptions" for r in fake.requests)
    # the audio goes as it is: no permessage-deflate offered (base64 mu-law barely shrinks; the loop would pay)
    assert "sec-websocket-extensions" not in {name.lower() for name in session["headers"]}


async def test_two_commits_on_one_stream_each_say_only_what_is_new() -> None:
    async with FakeOpenAI(api_key=KEY) as fake:
        fake.transcripts = lambda wav, _f: "да" if len(decode_wav(wav)[0]) < 8000 else "да русский"
        stt = SegmentedOverStreaming(OpenAIRealtimeSTT(api_key=KEY, base_url=fake.base_url, model="m", timeout_s=5))
        stream = await stt.open(None)
        audio = tone(1.5)
        for start in range(0, 4000, FRAME_SAMPLES):
            await stream.feed(audio[start : start + FRAME_SAMPLES])
        await stream.commit()  # type: ignore[attr-defined]
        for start in range(4000, audio.size, FRAME_SAMPLES):
            await stream.feed(audio[start : start + FRAME_SAMPLES])
        await stream.finish()
        finals = [r.text async for r in stream.results() if r.final]
        await stream.aclose()
        assert finals == ["да", "русский"]
        assert await stt.transcribe(tone(1.2), "ru") == "да русский"  # the segmented shape, one utterance


@pytest.mark.parametrize("fault, said", [("error", "Injected failure"), ("close", "connection closed")])
async def test_a_provider_failing_mid_stream_raises_speech_error(fault: str, said: str) -> None:
    async with FakeOpenAI(api_key=KEY) as fake:
        fake.transcripts = lambda _wav, _f: "алло"
        fake.realtime_fault = fault
        stt = OpenAIRealtimeSTT(api_key=KEY, base_url=fake.base_url, model="m", timeout_s=5)
        stream = await stt.open("ru")
        for start in range(0, 8000, FRAME_SAMPLES):
            await stream.feed(tone(1.0)[start : start + FRAME_SAMPLES])
        await stream.finish()
        with pytest.raises(SpeechError, match=f"openai_realtime .*{said}"):
            [r async for r in stream.results()]
        await stream.aclose()


async def test_a_refused_key_or_no_server_is_a_speech_error_without_the_key() -> None:
    async with FakeOpenAI(api_key=KEY) as fake:
        stt = OpenAIRealtimeSTT(api_key="sk-wrong-secret", base_url=fake.base_url, model="m", timeout_s=5)
        with pytest.raises(SpeechError, match="HTTP 401") as refused:
            await stt.open("ru")
        url = fake.base_url
    assert "sk-wrong" not in str(refused.value)
    with pytest.raises(SpeechError, match="cannot connect"):
        await OpenAIRealtimeSTT(api_key=KEY, base_url=url, model="m", timeout_s=5).open("ru")


async def test_finish_after_everything_was_final_ends_the_results() -> None:
    async with FakeOpenAI(api_key=KEY) as fake:
        fake.transcripts = lambda _wav, _f: "да"
        stt = OpenAIRealtimeSTT(api_key=KEY, base_url=fake.base_url, model="m", timeout_s=5)
        stream = await stt.open("ru")
        for start in range(0, 4000, FRAME_SAMPLES):
            await stream.feed(tone(0.5)[start : start + FRAME_SAMPLES])
        await stream.commit()  # the caller's pause
        results = stream.results()
        assert await anext(results) == Transcript("да", final=False)  # heard while it arrived
        assert await anext(results) == Transcript("да", final=True)  # the pause's commit, settled
        await stream.feed(tone(0.05))  # post-roll: too little to commit
        await stream.finish()  # nothing left to wait for: the reader is not left waiting for an event
        assert [r async for r in results] == []
        await stream.aclose()


async def test_one_connection_serves_utterances_in_turn_and_is_made_again_after_it_broke() -> None:
    async with FakeOpenAI(api_key=KEY) as fake:
        fake.transcripts = lambda wav, _f: f"{len(decode_wav(wav)[0]) // 4000} halves"
        conn = OpenAIRealtimeSTT(api_key=KEY, base_url=fake.base_url, model="m", timeout_s=5).connection()

        async def utterance(seconds: float) -> list[str]:
            stream = await conn.open("kk")
            audio = tone(seconds)
            try:
                for start in range(0, audio.size, FRAME_SAMPLES):
                    await stream.feed(audio[start : start + FRAME_SAMPLES])
                await stream.finish()
                return [r.text async for r in stream.results() if r.final]
            finally:
                await stream.aclose()

        assert await utterance(1.0) == ["2 halves"]
        assert await utterance(1.5) == ["3 halves"]  # its own audio only, not the socket's earlier utterance
        fake.realtime_fault = "close"
        with pytest.raises(SpeechError, match=r"connection closed \(1011\)"):
            await utterance(0.5)
        fake.realtime_fault = None
        assert await utterance(0.5) == ["1 halves"]  # on a socket made again
        await conn.aclose()
        with pytest.raises(SpeechError, match="closed by the call"):
            await conn.open("kk")
        sockets = [r for r in fake.requests if r["path"] == "/v1/realtime"]
        await eventually(lambda: all("closed" in s for s in sockets), what="both sockets closed")
    assert len(sockets) == 2
    kinds = [[kind for kind, _ in s["events"]] for s in sockets]
    assert [k.count("transcription_session.update") for k in kinds] == [1, 1]  # configured once per socket
    assert [k.count("input_audio_buffer.clear") for k in kinds] == [3, 1]  # one per utterance
