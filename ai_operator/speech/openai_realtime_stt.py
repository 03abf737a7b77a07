"""Streaming speech-to-text over the OpenAI Realtime transcription API: the thin I/O around `realtime_protocol.py`.

A websocket to a real provider costs a TCP + TLS handshake and the HTTP upgrade (2-3 round trips, 50-150 ms to a
nearby region) and the session's configuration, so a call keeps ONE: `OpenAIRealtimeSTT.connection()` is a
`RealtimeConnection`, connected lazily (`connect(language)`, or the first `open`) and kept until `aclose()`.
Each utterance is one `RealtimeStream` on it (`open(language)`), one after the other: it starts with
`input_audio_buffer.clear` (nothing a stream before it left uncommitted is heard in it; the language is sent
again only when it changed), `feed` appends audio, `commit` settles the audio so far as one item (more may follow),
`finish` commits what is left and says no more audio comes; `results` yields its items' partials and final
transcripts and ends once every item it committed is final after `finish`. The server names each committed item
in order (`input_audio_buffer.committed`), so each transcript goes to the stream whose audio it is, whatever order
the transcripts come in. A refused connection, a closed socket, an `error` event, a malformed event or no
transcript within `timeout_s` of a commit fail every stream the connection was serving with `SpeechError` naming
the provider and endpoint (never the key) and drop the socket: the next `open` connects again.
`OpenAIRealtimeSTT.open(language)` is one stream on its own connection, closed with it.
The socket does not offer permessage-deflate: its payload is base64 mu-law, which deflate barely shrinks, and
deflating every append on the event loop that paces every call's audio cost more than the bytes it saved (at
100 calls it was the loop's costliest part of the websocket feed).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import AsyncIterator

import numpy as np
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

import ai_operator.speech.realtime_protocol as rp
from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.speech.errors import SpeechError
from ai_operator.speech.streaming_stt import Transcript

CONNECT_TIMEOUT_S = 5.0
CLOSE_TIMEOUT_S = 1.0  # closing waits this long at most for the server's close frame (a call's teardown waits)
MIN_COMMIT_SAMPLES = SAMPLE_RATE * rp.MIN_COMMIT_MS // 1000
_UNSET = object()


class RealtimeStream:
    """One utterance on a `RealtimeConnection`: audio in, `Transcript`s out (see the module's docstring)."""

    def __init__(self, connection: RealtimeConnection, *, owns_connection: bool = False) -> None:
        self._conn, self._owns = connection, owns_connection
        self._events: asyncio.Queue[rp.ServerEvent | SpeechError | None] = asyncio.Queue()
        self._uncommitted = 0  # samples appended since the last commit
        self._pending = 0  # commits whose transcript has not come yet
        self._finished = False
        self._partial: dict[str, str] = {}  # item id -> its text so far

    def deliver(self, event: rp.ServerEvent | SpeechError) -> None:
        self._events.put_nowait(event)

    async def feed(self, frame: np.ndarray) -> None:
        if self._finished:
            raise self._conn.error("audio fed after finish")
        if len(frame):
            await self._conn.send(rp.append(frame))
            self._uncommitted += len(frame)

    async def commit(self) -> None:
        """The audio so far is one item (too little audio to commit stays for the next commit)."""
        if self._uncommitted >= MIN_COMMIT_SAMPLES:
            self._uncommitted = 0
            self._pending += 1
            self._conn.committing(self)
            await self._conn.send(rp.commit())

    async def finish(self) -> None:
        await self.commit()
        self._finished = True
        self._events.put_nowait(None)  # a reader waiting for more events looks again: it may be over

    async def results(self) -> AsyncIterator[Transcript]:
        while not (self._finished and self._pending == 0):
            timeout = self._conn.timeout_s if self._pending else None
            try:
                event = await asyncio.wait_for(self._events.get(), timeout)
            except TimeoutError:
                error = self._conn.error(f"no transcript within {self._conn.timeout_s:g} s of the commit")
                await self._conn.drop(error)
                raise error from None
            if isinstance(event, SpeechError):
                raise event
            if event is None:
                continue
            if event.kind == rp.FAILED:
                raise self._conn.error(event.text)
            if event.kind == rp.PARTIAL and event.text:
                text = self._partial[event.item_id] = self._partial.get(event.item_id, "") + event.text
                yield Transcript(text, final=False)
            elif event.kind == rp.FINAL:
                self._partial.pop(event.item_id, None)
                self._pending = max(0, self._pending - 1)
                yield Transcript(event.text, final=True)

    async def aclose(self) -> None:
        self._conn.detach(self)
        if self._owns:
            await self._conn.aclose()


class RealtimeConnection:
    """One websocket serving many streams, one after the other (see the module's docstring)."""

    def __init__(self, stt: OpenAIRealtimeSTT) -> None:
        self._stt = stt
        self.timeout_s = stt.timeout_s
        self._ws: ClientConnection | None = None
        self._reader: asyncio.Task[None] | None = None
        self._language: object = _UNSET  # what the session was configured with
        self._lock = asyncio.Lock()
        self._active: RealtimeStream | None = None  # the stream whose audio is being appended
        self._awaiting: deque[RealtimeStream] = deque()  # streams of commits the server has not named yet
        self._items: dict[str, RealtimeStream] = {}  # committed item -> its stream, until its final
        self._closed = False
        self.sockets_opened = 0

    def error(self, what: str) -> SpeechError:
        return SpeechError(f"stt provider openai_realtime ({self._stt.where}): {what}")

    @property
    def connected(self) -> bool:
        return self._ws is not None

    async def connect(self, language: str | None) -> None:
        """Connected and configured for `language` (nothing to do when it already is)."""
        async with self._lock:
            await self._ready(language)

    async def open(self, language: str | None) -> RealtimeStream:
        """The next utterance's stream (the one before it must be finished: its audio is settled or dropped)."""
        async with self._lock:
            await self._ready(language)
            await self.send(rp.clear())
            stream = self._active = RealtimeStream(self)
        return stream

    async def _ready(self, language: str | None) -> None:
        if self._closed:
            raise self.error("connection closed by the call")
        if self._ws is None:
            ws = await self._stt.connect()
            if self._closed:  # closed while connecting: no socket outlives its call
                await ws.close()
                raise self.error("connection closed by the call")
            self._ws, self._language = ws, _UNSET
            self.sockets_opened += 1
            self._reader = asyncio.get_running_loop().create_task(self._read(ws))
        if language != self._language:
            await self.send(rp.session_update(self._stt.model, language))
            self._language = language

    async def send(self, message: str) -> None:
        ws = self._ws
        if ws is None:
            raise self.error("connection closed")
        try:
            await ws.send(message)
        except ConnectionClosed as exc:
            error = self.error(f"connection closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})")
            await self.drop(error)
            raise error from None

    def committing(self, stream: RealtimeStream) -> None:
        self._awaiting.append(stream)

    def detach(self, stream: RealtimeStream) -> None:
        """`stream` is closed: what still comes for it is dropped."""
        if self._active is stream:
            self._active = None

    async def _read(self, ws: ClientConnection) -> None:
        try:
            while True:
                message = await ws.recv()
                try:
                    event = rp.parse_event(message)
                except ValueError as exc:
                    await self.drop(self.error(str(exc)))
                    return
                if event.kind == rp.FAILED and not event.item_id:  # `error`: the session's, not one item's
                    await self.drop(self.error(event.text))
                    return
                self._dispatch(event)
        except ConnectionClosed as exc:
            if ws is self._ws:
                await self.drop(self.error(f"connection closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})"))

    def _dispatch(self, event: rp.ServerEvent) -> None:
        if event.kind == rp.COMMITTED:
            owner = self._awaiting.popleft() if self._awaiting else self._active
            if owner is not None and event.item_id:
                self._items[event.item_id] = owner
            return
        if event.kind == rp.IGNORED:
            return
        # an item not named yet is the oldest commit's, else the audio being appended (partials while it comes)
        stream = self._items.get(event.item_id) or (self._awaiting[0] if self._awaiting else self._active)
        if event.kind in (rp.FINAL, rp.FAILED):
            self._items.pop(event.item_id, None)
        if stream is not None:
            stream.deliver(event)

    async def drop(self, error: SpeechError) -> None:
        """Every stream this connection serves fails with `error`; the socket is closed (the next `open`
        connects again)."""
        ws, self._ws = self._ws, None
        for stream in {id(s): s for s in (self._active, *self._awaiting, *self._items.values()) if s}.values():
            stream.deliver(error)
        self._active, self._awaiting, self._items = None, deque(), {}
        if ws is not None:
            with contextlib.suppress(Exception):
                await ws.close()

    async def aclose(self) -> None:
        """Closed for good (the call ended): the socket, and any later `open` refuses."""
        self._closed = True
        await self.drop(self.error("connection closed by the call"))
        reader, self._reader = self._reader, None
        if reader is not None and reader is not asyncio.current_task():
            reader.cancel()
            with contextlib.suppress(BaseException):
                await reader


class OpenAIRealtimeSTT:
    """Opens Realtime transcription connections and streams against `base_url` (OpenAI's, or a compatible
    server's)."""

    name = "openai_realtime"

    def __init__(self, *, api_key: str, base_url: str | None, model: str, timeout_s: float) -> None:
        self.url = rp.realtime_url(base_url)
        self.where = base_url or "api.openai.com"
        self._key, self.model, self.timeout_s = api_key, model, timeout_s

    async def connect(self) -> ClientConnection:
        """A new websocket (no session configured yet)."""
        headers = {"Authorization": f"Bearer {self._key}", "OpenAI-Beta": "realtime=v1"}
        try:
            return await asyncio.wait_for(connect(self.url, additional_headers=headers, max_size=None,
                                                  compression=None, open_timeout=CONNECT_TIMEOUT_S,
                                                  close_timeout=CLOSE_TIMEOUT_S),
                                          CONNECT_TIMEOUT_S)
        except InvalidStatus as exc:
            raise SpeechError(f"stt provider openai_realtime ({self.where}): HTTP {exc.response.status_code}") from None
        except (OSError, TimeoutError, InvalidHandshake) as exc:
            raise SpeechError(f"stt provider openai_realtime ({self.where}): cannot connect "
                              f"({type(exc).__name__})") from None

    def connection(self) -> RealtimeConnection:
        """A connection for many streams in turn (a call's), not connected yet."""
        return RealtimeConnection(self)

    async def open(self, language: str | None) -> RealtimeStream:
        """One stream on a connection of its own (closed with the stream)."""
        conn = RealtimeConnection(self)
        await conn.connect(language)
        stream = conn._active = RealtimeStream(conn, owns_connection=True)
        return stream


__all__ = ["OpenAIRealtimeSTT", "RealtimeConnection", "RealtimeStream"]
