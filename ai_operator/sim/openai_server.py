"""A local OpenAI-compatible HTTP server for tests and benchmarks (aiohttp, binds 127.0.0.1 by default).

It speaks the parts of the OpenAI API the daemon uses, in the real wire format, so adapters are tested through
the real `openai` client over real HTTP:

- `POST /v1/audio/transcriptions` (multipart): the next of `transcripts`, or `transcripts(wav_bytes, fields)`.
- `POST /v1/chat/completions`: the next of `chat_script` (`{"content": ...}` or
  `{"tool_calls": [{"name": ..., "arguments": {...}}]}`), or `chat_script(body)`; streamed (SSE) when asked; with
  `goodbye` set, a request whose last message asks to "say goodbye" gets that text instead (a long model goodbye
  for ending tests).
- `POST /v1/audio/speech`: 24 kHz 16-bit PCM (espeak-ng speech, or a tone), sent with chunked transfer in
  `speech_chunk_bytes` pieces `speech_chunk_interval_s` apart, so streaming clients can be tested.
- `POST /v1/embeddings`: deterministic unit vectors (`dimensions` or `embedding_dim`), float or base64.
- `GET /v1/models`.
- `GET /v1/realtime?intent=transcription` (a websocket): streaming STT, the Realtime transcription protocol, with
  partials while audio arrives and the final after the commit, from the same `transcripts` (`realtime_stt.py`;
  `realtime_fault`: `error` or `close` at the first commit).

Knobs: `latency` (a provider-shaped profile, `latency_profiles.py`: `instant`, `cloud`, `slow`; seeded by
`seed`; the first request on each new TCP connection waits the profile's `connect_s()` first, the handshakes a
real endpoint costs), `delay_s` (latency before answering), `fail_next` (the next N requests answer HTTP 500), `api_key`
(`Authorization: Bearer <key>` required, 401 otherwise; `also_accepted`: more valid keys, as while a key is
rotated). Every request is recorded in `requests` (path, method, JSON or form fields, headers without
Authorization/Cookie, `key_tail`: the last 4 characters of the key it presented, `connection`: which TCP
connection it came on, numbered from 1, `new_connection`: it was that connection's first; `connections` counts
them). `faults`
(`openai_faults.Faults`): a revoked key, 429, 500, a hang or a dropped connection, per endpoint. Run standalone:
`python -m ai_operator.sim.openai_server --port 8099`.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import contextlib
import time
import weakref
from collections.abc import Awaitable, Callable
from typing import Any

import numpy as np
from aiohttp import BodyPartReader, web

import ai_operator.sim.fake_content as fake_content
import ai_operator.sim.latency_profiles as lp
import ai_operator.sim.realtime_stt as realtime_stt
from ai_operator.sim.fake_content import SPEECH_RATE, error_body
from ai_operator.sim.openai_faults import Faults
from ai_operator.speech.wav import WavError, encode_wav, parse_wav_header

DEFAULT_EMBEDDING_DIM = 1536
DEFAULT_SPEECH_CHUNK_BYTES = 4800  # 100 ms of 24 kHz int16
SHUTDOWN_TIMEOUT_S = 1.0
GOODBYE_ASK = "say goodbye"  # in the last message of a model turn that writes the call's goodbye
HIDDEN_HEADERS = frozenset({"authorization", "cookie"})
RECORD: web.RequestKey[dict[str, Any]] = web.RequestKey("record", dict)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


class FakeOpenAI:
    """The test server; configure the public attributes, `await start()`, point a client at the returned URL."""

    def __init__(self, *, host: str = "127.0.0.1", port: int = 0, api_key: str = "test-key",
                 latency: lp.ProviderLatency | str | None = None, seed: int = 0) -> None:
        self.latency = lp.ProviderLatency(latency, seed) if isinstance(latency, str) else latency
        self.host = host
        self.port = port
        self.api_key = api_key
        self.also_accepted: set[str] = set()  # keys still valid beside api_key (a key rotation's overlap)
        self.transcripts: list[str] | Callable[[bytes, dict], str] = []
        self.chat_script: list[dict] | Callable[[dict], dict] = []
        self.goodbye: str | None = None  # the answer to any request for a goodbye (`--goodbye`)
        # text -> 24 kHz int16 audio for /audio/speech; None = espeak-ng speech (a tone without espeak-ng)
        self.speech_audio: Callable[[str], np.ndarray] | None = None
        self.speech_chunk_bytes = DEFAULT_SPEECH_CHUNK_BYTES
        self.speech_chunk_interval_s = 0.0
        self.speech_log: list[dict[str, float]] = []  # per speech request: monotonic "started"/"finished"
        self.embedding_dim = DEFAULT_EMBEDDING_DIM
        self.delay_s = 0.0
        self.fail_next = 0
        self.faults = Faults()
        self.realtime_fault: str | None = None  # realtime_stt.FAULTS: the next sessions fail at their commit
        self.realtime_partial: Callable[[str], str] | None = None  # what a partial says of a text (the final revises)
        self.requests: list[dict[str, Any]] = []
        self.connections = 0  # TCP connections that brought a request (each paid `latency.connect_s()` once)
        self._connection_ids: weakref.WeakKeyDictionary[object, int] = weakref.WeakKeyDictionary()
        self.base_url = ""
        self._runner: web.AppRunner | None = None
        self._stopping = asyncio.Event()
        self._seq = 0

    async def __aenter__(self) -> FakeOpenAI:
        await self.start()
        return self

    async def __aexit__(self, *_exc: object) -> None:
        await self.stop()

    async def start(self) -> str:
        """Bind and serve; returns the base URL, e.g. "http://127.0.0.1:PORT/v1"."""
        app = web.Application(middlewares=[self._middleware], client_max_size=64 * 1024 * 1024)
        app.router.add_post("/v1/audio/transcriptions", self._transcriptions)
        app.router.add_post("/v1/chat/completions", self._chat)
        app.router.add_post("/v1/audio/speech", self._speech)
        app.router.add_post("/v1/embeddings", self._embeddings)
        app.router.add_get("/v1/models", self._models)
        app.router.add_get("/v1/realtime", self._realtime)
        self._stopping = asyncio.Event()
        self._runner = web.AppRunner(app, shutdown_timeout=SHUTDOWN_TIMEOUT_S, handler_cancellation=True)
        await self._runner.setup()
        site = web.TCPSite(self._runner, self.host, self.port)
        await site.start()
        sockets = getattr(site._server, "sockets", None) or []
        self.port = sockets[0].getsockname()[1] if sockets else self.port
        self.base_url = f"http://{self.host}:{self.port}/v1"
        return self.base_url

    async def stop(self) -> None:
        self._stopping.set()
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    # --- plumbing -------------------------------------------------------------------------------------------

    @web.middleware
    async def _middleware(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        record: dict[str, Any] = {
            "path": request.path,
            "method": request.method,
            "headers": {k: v for k, v in request.headers.items() if k.lower() not in HIDDEN_HEADERS},
            "time": time.monotonic(),
        }
        self.requests.append(record)
        request[RECORD] = record
        await self._connected(request, record)
        try:
            return await self._answer(request, handler)
        finally:
            record["answered"] = time.monotonic()

    async def _connected(self, request: web.Request, record: dict[str, Any]) -> None:
        """Number the request's TCP connection; its first request waits the profile's handshakes first (and is
        timed from after them, as a real request is sent only once they are done)."""
        conn = request.transport  # one per TCP connection
        if conn is None:  # the client is already gone
            record["new_connection"], record["connection"] = False, 0
            return
        record["new_connection"] = conn not in self._connection_ids
        if record["new_connection"]:
            self.connections += 1
            self._connection_ids[conn] = self.connections
            if self.latency is not None:
                record["connect_s"] = self.latency.connect_s()
                await lp.wait_until(record["time"] + record["connect_s"], self._stopping)
                record["time"] = time.monotonic()
        record["connection"] = self._connection_ids[conn]

    @property
    def in_flight(self) -> int:
        """Requests received and not answered yet (e.g. still inside `delay_s`)."""
        return sum(1 for r in self.requests if "answered" not in r)

    async def _answer(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        presented = request.headers.get("Authorization", "").removeprefix("Bearer ")
        request[RECORD]["key_tail"] = presented[-4:]  # which key a client used (a rotation test), never all of it
        if presented not in (self.api_key, *self.also_accepted):
            return web.json_response(
                error_body("Incorrect API key provided.", "invalid_request_error", "invalid_api_key"),
                status=401,
            )
        injected = await self.faults.apply(request, self._stopping)
        if injected is not None:
            return injected
        if self.delay_s > 0:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._stopping.wait(), self.delay_s)
        if self.fail_next > 0:
            self.fail_next -= 1
            return web.json_response(error_body("Injected failure (fail_next).", "server_error"), status=500)
        try:
            return await handler(request)
        except web.HTTPException as exc:
            if exc.status < 400:
                raise
            return web.json_response(error_body(exc.reason, "invalid_request_error"), status=exc.status)

    @staticmethod
    def _bad(message: str, status: int = 400) -> web.Response:
        return web.json_response(error_body(message, "invalid_request_error"), status=status)

    async def _json(self, request: web.Request) -> dict[str, Any] | web.Response:
        try:
            body = await request.json()
        except ValueError:
            return self._bad("We could not parse the JSON body of your request.")
        if not isinstance(body, dict):
            return self._bad("The JSON body must be an object.")
        request[RECORD]["json"] = body
        return body

    # --- endpoints ------------------------------------------------------------------------------------------

    async def _transcriptions(self, request: web.Request) -> web.StreamResponse:
        fields: dict[str, Any] = {}
        audio = b""
        reader = await request.multipart()
        while (part := await reader.next()) is not None:
            if not isinstance(part, BodyPartReader):
                continue  # a nested multipart: not something a transcription request carries
            if part.name == "file":
                audio = await part.read()
                fields["file_name"] = part.filename
                fields["file_content_type"] = part.headers.get("Content-Type", "")
            elif part.name:
                fields[part.name] = await part.text()
        request[RECORD]["form"] = fields
        request[RECORD]["file"] = audio
        if not audio:
            return self._bad("No audio file in the 'file' field.")
        if "model" not in fields:
            return self._bad("you must provide a model parameter")
        if self.latency is not None:
            await lp.wait_until(request[RECORD]["time"] + self.latency.stt_s(_audio_seconds(audio)), self._stopping)
        if callable(self.transcripts):
            text = self.transcripts(audio, fields)
        elif self.transcripts:
            text = self.transcripts.pop(0)
        else:
            return self._bad("FakeOpenAI: no scripted transcript left", status=500)
        fmt = fields.get("response_format", "json")
        if fmt == "text":
            return web.Response(text=text, content_type="text/plain")
        if fmt == "verbose_json":
            return web.json_response(
                {
                    "task": "transcribe",
                    "language": fields.get("language", ""),
                    "duration": 0.0,
                    "text": text,
                    "segments": [],
                }
            )
        return web.json_response({"text": text})

    async def _chat(self, request: web.Request) -> web.StreamResponse:
        body = await self._json(request)
        if isinstance(body, web.Response):
            return body
        if not body.get("model") or not isinstance(body.get("messages"), list):
            return self._bad("chat/completions needs 'model' and a 'messages' list")
        if self.goodbye is not None and GOODBYE_ASK in str(body["messages"][-1].get("content") or "").lower():
            item = {"content": self.goodbye}
        elif callable(self.chat_script):
            item = self.chat_script(body)
        elif self.chat_script:
            item = self.chat_script.pop(0)
        else:
            return self._bad("FakeOpenAI: chat_script is exhausted", status=500)
        self._seq += 1
        completion = fake_content.chat_response(body, item, self._seq)
        if body.get("stream"):
            return await lp.stream_chat(request, completion, self.latency, request[RECORD]["time"], self._stopping)
        if self.latency is not None:
            await lp.wait_until(lp.chat_ready_at(completion, self.latency, request[RECORD]["time"]), self._stopping)
        return web.json_response(completion)

    async def _speech(self, request: web.Request) -> web.StreamResponse:
        body = await self._json(request)
        if isinstance(body, web.Response):
            return body
        text = body.get("input")
        if not isinstance(text, str) or not text or not body.get("model") or not body.get("voice"):
            return self._bad("audio/speech needs 'model', 'voice' and a non-empty 'input'")
        fmt = body.get("response_format", "mp3")
        if fmt not in ("pcm", "wav"):
            return self._bad(f"FakeOpenAI: response_format {fmt!r} not supported (use pcm or wav)")
        log_entry = {"started": time.monotonic()}
        self.speech_log.append(log_entry)
        make = self.speech_audio or fake_content.speech_audio
        pcm = np.asarray(await asyncio.to_thread(make, text), dtype=np.int16)
        data = encode_wav(pcm, SPEECH_RATE) if fmt == "wav" else pcm.astype("<i2").tobytes()
        response = web.StreamResponse(headers={"Content-Type": "audio/pcm" if fmt == "pcm" else "audio/wav"})
        response.enable_chunked_encoding()
        first_byte = request[RECORD]["time"] + (self.latency.tts_first_byte_s() if self.latency else 0.0)
        await lp.wait_until(first_byte, self._stopping)
        await response.prepare(request)
        step = max(2, self.speech_chunk_bytes)
        for start in range(0, len(data), step):
            if start and self.speech_chunk_interval_s > 0:
                await asyncio.sleep(self.speech_chunk_interval_s)
            elif start and self.latency is not None:  # audio at the profile's multiple of real time
                await lp.wait_until(first_byte + self.latency.tts_audio_s(start / (2 * SPEECH_RATE)), self._stopping)
            await response.write(data[start : start + step])
        await response.write_eof()
        log_entry["finished"] = time.monotonic()
        return response

    async def _embeddings(self, request: web.Request) -> web.StreamResponse:
        body = await self._json(request)
        if isinstance(body, web.Response):
            return body
        raw = body.get("input")
        inputs = [raw] if isinstance(raw, str) else raw
        if not isinstance(inputs, list) or not inputs or not all(isinstance(x, str) for x in inputs):
            return self._bad("embeddings 'input' must be a string or a non-empty list of strings")
        dim = body.get("dimensions") or self.embedding_dim
        if not isinstance(dim, int) or dim < 1:
            return self._bad(f"embeddings 'dimensions' must be a positive integer, got {dim!r}")
        b64 = body.get("encoding_format") == "base64"
        data = []
        for i, text in enumerate(inputs):
            vec = fake_content.embedding(text, dim)
            value: Any = base64.b64encode(np.asarray(vec, dtype="<f4").tobytes()).decode() if b64 else vec
            data.append({"object": "embedding", "index": i, "embedding": value})
        tokens = sum(fake_content.count_tokens(t) for t in inputs)
        return web.json_response(
            {
                "object": "list",
                "data": data,
                "model": body.get("model", "unknown"),
                "usage": {"prompt_tokens": tokens, "total_tokens": tokens},
            }
        )

    async def _realtime(self, request: web.Request) -> web.StreamResponse:
        return await realtime_stt.realtime(self, request, request[RECORD])

    async def _models(self, _request: web.Request) -> web.StreamResponse:
        names = ("whisper-1", "gpt-4o-mini", "gpt-4o-mini-tts", "text-embedding-3-small")
        return web.json_response(
            {
                "object": "list",
                "data": [{"id": n, "object": "model", "created": 0, "owned_by": "fake"} for n in names],
            }
        )


def _audio_seconds(audio: bytes) -> float:
    """Seconds of audio in an uploaded WAV file (0 when it is not one)."""
    try:
        header = parse_wav_header(audio)
    except WavError:
        return 0.0
    if header is None or not header.rate:
        return 0.0
    size = header.data_len if header.data_len is not None else len(audio) - header.data_offset
    return size / (header.rate * header.channels * max(1, header.bits // 8))


async def _serve(host: str, port: int, api_key: str, profile: str = "instant", seed: int = 0,
                 goodbye: str | None = None) -> None:
    server = FakeOpenAI(host=host, port=port, api_key=api_key, latency=profile, seed=seed)
    server.goodbye = goodbye
    print(await server.start(), flush=True)
    try:
        await asyncio.Event().wait()
    finally:
        await server.stop()


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description="Local OpenAI-compatible test server")
    parser.add_argument("--host", default="127.0.0.1")
    parser.add_argument("--port", type=int, default=0)
    parser.add_argument("--api-key", default="test-key")
    parser.add_argument("--goodbye", help="the model's answer to every request for a goodbye")
    parser.add_argument("--profile", default="instant", choices=tuple(lp.PROFILES), help="provider latency")
    parser.add_argument("--seed", type=int, default=0, help="seed of the latency jitter")
    args = parser.parse_args(argv)
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(_serve(args.host, args.port, args.api_key, args.profile, args.seed, args.goodbye))


if __name__ == "__main__":
    main()
