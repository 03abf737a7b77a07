"""Streaming speech-to-text over the OpenAI Realtime transcription API (one websocket per stream): the thin I/O
around `realtime_protocol.py`.

`OpenAIRealtimeSTT.open(language)` connects (bearer key, `OpenAI-Beta: realtime=v1`), configures the session
(G.711 mu-law in, our own VAD: no server turn detection) and returns a `RealtimeStream`: `feed` appends audio,
`commit` settles the audio so far as one item (more may follow on the same stream), `finish` commits what is
left and says no more audio comes; `results` yields each item's partials and its final transcript and ends
once every committed item is final after `finish`. Waiting for a committed item's transcript is bounded by
`timeout_s`. A refused connection, a closed socket, an `error` or `...failed` event, a malformed event or the
timeout raise `SpeechError` naming the provider and endpoint (never the key).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator

import numpy as np
from websockets.asyncio.client import ClientConnection, connect
from websockets.exceptions import ConnectionClosed, InvalidHandshake, InvalidStatus

import ai_operator.speech.realtime_protocol as rp
from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.speech.errors import SpeechError
from ai_operator.speech.streaming_stt import Transcript

CONNECT_TIMEOUT_S = 5.0
MIN_COMMIT_SAMPLES = SAMPLE_RATE * rp.MIN_COMMIT_MS // 1000


class RealtimeStream:
    """One transcription session: audio in, `Transcript`s out (see the module's docstring)."""

    def __init__(self, ws: ClientConnection, timeout_s: float, where: str) -> None:
        self._ws, self._timeout_s, self._where = ws, timeout_s, where
        self._uncommitted = 0  # samples appended since the last commit
        self._pending = 0  # commits whose transcript has not come yet
        self._finished = False
        self._partial: dict[str, str] = {}  # item id -> its text so far

    def _error(self, what: str) -> SpeechError:
        return SpeechError(f"stt provider openai_realtime ({self._where}): {what}")

    async def _send(self, message: str) -> None:
        try:
            await self._ws.send(message)
        except ConnectionClosed as exc:
            raise self._error(f"connection closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})") from None

    async def feed(self, frame: np.ndarray) -> None:
        if self._finished:
            raise self._error("audio fed after finish")
        if len(frame):
            await self._send(rp.append(frame))
            self._uncommitted += len(frame)

    async def commit(self) -> None:
        """The audio so far is one item (too little audio to commit stays for the next commit)."""
        if self._uncommitted >= MIN_COMMIT_SAMPLES:
            self._uncommitted = 0
            self._pending += 1
            await self._send(rp.commit())

    async def finish(self) -> None:
        await self.commit()
        self._finished = True
        if self._pending == 0:  # nothing to wait for: a reader waiting for more events ends now
            with contextlib.suppress(Exception):
                await self._ws.close()

    async def results(self) -> AsyncIterator[Transcript]:
        while not (self._finished and self._pending == 0):
            timeout = self._timeout_s if self._pending else None
            try:
                message = await asyncio.wait_for(self._ws.recv(), timeout)
            except TimeoutError:
                raise self._error(f"no transcript within {self._timeout_s:g} s of the commit") from None
            except ConnectionClosed as exc:
                if self._finished and self._pending == 0:
                    return
                raise self._error(f"connection closed ({exc.rcvd.code if exc.rcvd else 'no close frame'})") from None
            try:
                event = rp.parse_event(message)
            except ValueError as exc:
                raise self._error(str(exc)) from None
            if event.kind == rp.FAILED:
                raise self._error(event.text)
            if event.kind == rp.PARTIAL and event.text:
                text = self._partial[event.item_id] = self._partial.get(event.item_id, "") + event.text
                yield Transcript(text, final=False)
            elif event.kind == rp.FINAL:
                self._partial.pop(event.item_id, None)
                self._pending = max(0, self._pending - 1)
                yield Transcript(event.text, final=True)

    async def aclose(self) -> None:
        with contextlib.suppress(Exception):
            await self._ws.close()


class OpenAIRealtimeSTT:
    """Opens Realtime transcription streams against `base_url` (OpenAI's, or a compatible server's)."""

    name = "openai_realtime"

    def __init__(self, *, api_key: str, base_url: str | None, model: str, timeout_s: float) -> None:
        self.url = rp.realtime_url(base_url)
        self.where = base_url or "api.openai.com"
        self._key, self.model, self.timeout_s = api_key, model, timeout_s

    async def open(self, language: str | None) -> RealtimeStream:
        headers = {"Authorization": f"Bearer {self._key}", "OpenAI-Beta": "realtime=v1"}
        try:
            ws = await asyncio.wait_for(connect(self.url, additional_headers=headers, max_size=None,
                                                open_timeout=CONNECT_TIMEOUT_S), CONNECT_TIMEOUT_S)
        except InvalidStatus as exc:
            raise SpeechError(f"stt provider openai_realtime ({self.where}): HTTP {exc.response.status_code}") from None
        except (OSError, TimeoutError, InvalidHandshake) as exc:
            raise SpeechError(f"stt provider openai_realtime ({self.where}): cannot connect "
                              f"({type(exc).__name__})") from None
        stream = RealtimeStream(ws, self.timeout_s, self.where)
        await stream._send(rp.session_update(self.model, language))
        return stream


__all__ = ["OpenAIRealtimeSTT", "RealtimeStream"]
