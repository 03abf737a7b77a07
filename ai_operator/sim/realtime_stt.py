"""The local OpenAI-compatible server's Realtime transcription endpoint (`GET /v1/realtime?intent=transcription`,
a websocket), in the real event format (`speech/realtime_protocol.py`), paced by the server's latency profile.

A session says `transcription_session.created`, answers `transcription_session.update` with `...updated`
(input format `g711_ulaw` only), buffers `input_audio_buffer.append`ed audio and, while audio arrives, sends a
`conversation.item.input_audio_transcription.delta` of the item being spoken every `stream_partial_gap_s()`
(100-200 ms); on `input_audio_buffer.commit` it says `input_audio_buffer.committed` and, `stream_final_s()`
later (150-250 ms in `cloud`), `...completed`. The text comes from the server's `transcripts`, the same script
the batch endpoint uses: `transcripts(wav, fields)` of ALL the session's audio so far (a scripted recogniser
hears the whole utterance, however it was committed), an item's text being what is new since the last
completed one; or the next of a list (a partial peeks at it). `realtime_partial` makes the partials say
something else than the final (a recogniser that revises its guess when the audio is committed). `input_audio_buffer.clear` drops what was not
committed and says `input_audio_buffer.cleared`; the double also takes it as a new utterance on the same socket
(a client sends it at each utterance's start): its script hears the audio from there on. `realtime_fault` makes
the session fail at its next commit: `error` (an `error` event) or `close` (the socket closed, code 1011). Events
are recorded in the request's record (`events`: (type, monotonic time); `closed`: when the socket closed).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import time
from typing import TYPE_CHECKING, Any

import numpy as np
from aiohttp import WSMsgType, web

import ai_operator.sim.latency_profiles as lp
import ai_operator.speech.realtime_protocol as rp
from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.speech.wav import encode_wav

if TYPE_CHECKING:
    from ai_operator.sim.openai_server import FakeOpenAI

FAULTS = ("error", "close")
CLOSE_INTERNAL_ERROR = 1011


class _Session:
    """One websocket's transcription session."""

    def __init__(self, server: FakeOpenAI, ws: web.WebSocketResponse, record: dict[str, Any]) -> None:
        self.server, self.ws, self.record = server, ws, record
        self.fields: dict[str, Any] = {}
        self.audio: list[np.ndarray] = []
        self.completed = ""  # the text of every completed item, joined
        self.spoken = ""  # partial text sent for the item being spoken
        self.items = 0
        self.next_partial_at = 0.0
        self.finals: list[asyncio.Task[None]] = []

    async def send(self, event: dict[str, Any]) -> None:
        if not self.ws.closed:
            await self.ws.send_str(json.dumps(event, ensure_ascii=False))

    def item_id(self) -> str:
        return f"item_{id(self) % 100000:05d}_{self.items}"

    def heard(self, *, final: bool) -> str:
        """What the script says of all the audio so far, less what completed items already said."""
        script = self.server.transcripts
        if callable(script):
            pcm = np.concatenate(self.audio) if self.audio else np.zeros(0, dtype=np.int16)
            text = script(encode_wav(pcm, SAMPLE_RATE), self.fields)
        elif script:
            text = script.pop(0) if final else script[0]
        else:
            return ""
        if callable(script) and self.completed and text.startswith(self.completed):
            text = text[len(self.completed):].strip()
        revise = self.server.realtime_partial
        return revise(text) if revise is not None and not final else text

    async def appended(self, event: dict[str, Any]) -> None:
        self.audio.append(rp.decode_append(event))
        latency = self.server.latency
        now = time.monotonic()
        if now < self.next_partial_at:
            return
        self.next_partial_at = now + (latency.stream_partial_gap_s() if latency else lp.STREAM_PARTIAL_S[0])
        text = self.heard(final=False)
        if text.startswith(self.spoken) and len(text) > len(self.spoken):
            delta, self.spoken = text[len(self.spoken):], text
            await self.send({"type": "conversation.item.input_audio_transcription.delta",
                             "item_id": self.item_id(), "content_index": 0, "delta": delta})

    async def committed(self) -> None:
        fault = self.server.realtime_fault
        if fault == "error":
            await self.send({"type": "error", "error": {"type": "server_error", "code": "injected",
                                                        "message": "Injected failure (realtime_fault)."}})
            return
        if fault == "close":
            await self.ws.close(code=CLOSE_INTERNAL_ERROR, message=b"injected")
            return
        item = self.item_id()
        self.items += 1
        self.spoken = ""
        await self.send({"type": "input_audio_buffer.committed", "item_id": item, "previous_item_id": None})
        text = self.heard(final=True)
        self.completed = " ".join(t for t in (self.completed, text) if t)
        latency = self.server.latency
        ready = time.monotonic() + (latency.stream_final_s() if latency else 0.0)
        self.finals.append(asyncio.get_running_loop().create_task(self.complete(item, text, ready)))

    async def complete(self, item: str, text: str, ready: float) -> None:
        await lp.wait_until(ready, self.server._stopping)
        await self.send({"type": "conversation.item.input_audio_transcription.completed", "item_id": item,
                         "content_index": 0, "transcript": text})

    async def handle(self, message: str) -> None:
        try:
            event = json.loads(message)
            kind = event["type"]
        except (ValueError, KeyError, TypeError):
            await self.send({"type": "error", "error": {"type": "invalid_request_error",
                                                        "message": "event is not a JSON object with a type"}})
            return
        self.record.setdefault("events", []).append((kind, time.monotonic()))
        if kind == "transcription_session.update":
            session = event.get("session") or {}
            if session.get("input_audio_format") != rp.INPUT_FORMAT:
                await self.send({"type": "error", "error": {"type": "invalid_request_error", "message":
                                 f"FakeOpenAI: input_audio_format must be {rp.INPUT_FORMAT}"}})
                return
            self.fields = dict(session.get("input_audio_transcription") or {})
            await self.send({"type": "transcription_session.updated", "session": session})
        elif kind == "input_audio_buffer.append":
            try:
                await self.appended(event)
            except ValueError as exc:
                await self.send({"type": "error", "error": {"type": "invalid_request_error", "message": str(exc)}})
        elif kind == "input_audio_buffer.commit":
            await self.committed()
        elif kind == "input_audio_buffer.clear":
            self.audio, self.completed, self.spoken = [], "", ""
            await self.send({"type": "input_audio_buffer.cleared"})


async def realtime(server: FakeOpenAI, request: web.Request, record: dict[str, Any]) -> web.StreamResponse:
    """The websocket handler (authenticated by the server's middleware like every endpoint)."""
    if request.query.get("intent") != "transcription":
        return web.json_response({"error": {"message": "FakeOpenAI: only intent=transcription"}}, status=400)
    ws = web.WebSocketResponse(max_msg_size=16 * 1024 * 1024)
    await ws.prepare(request)
    session = _Session(server, ws, record)
    await session.send({"type": "transcription_session.created",
                        "session": {"object": "realtime.transcription_session"}})
    try:
        async for msg in ws:
            if msg.type == WSMsgType.TEXT:
                await session.handle(msg.data)
    finally:
        for task in session.finals:
            task.cancel()
        with contextlib.suppress(Exception):
            await ws.close()
        record["closed"] = time.monotonic()
    return ws
