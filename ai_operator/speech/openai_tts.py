"""Streamed text-to-speech through the OpenAI speech API (transport: HTTP via the `openai` package).

The request asks for `response_format="pcm"` (24 kHz 16-bit little-endian mono) with a streaming response; the
bytes are resampled to 8 kHz as they arrive, so the first chunk is yielded before the whole line is synthesised.
Opening the response and every later read are each bounded by `timeout_s`; any failure raises `SpeechError`
naming the provider, model and voice (never the key).
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import numpy as np

from ai_operator.logs import get_logger
from ai_operator.openai_client import describe_failure, make_client, warm
from ai_operator.speech.errors import SpeechError
from ai_operator.speech.resample import StreamResampler

log = get_logger("speech")

OPENAI_PCM_RATE = 24000
DEFAULT_TTS_TIMEOUT_S = 10.0
READ_CHUNK_BYTES = 4800  # 100 ms of 24 kHz int16


class OpenAITTS:
    """OpenAI (or compatible) speech, streamed and resampled to 8 kHz."""

    name = "openai"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None,
        model: str,
        voice: str,
        timeout_s: float = DEFAULT_TTS_TIMEOUT_S,
        instructions: str | None = None,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"OpenAITTS: timeout_s must be positive, got {timeout_s}")
        self.model = model
        self.voice = voice
        self.timeout_s = timeout_s
        self.instructions = instructions
        self._api_key = api_key
        self._client = make_client(api_key=api_key, base_url=base_url, timeout_s=timeout_s)

    def voice_id(self, language: str) -> str:
        return f"{self.model}-{self.voice}-{language}"

    def _fail(self, what: str) -> SpeechError:
        return SpeechError(f"tts provider openai (model {self.model}, voice {self.voice}): {what}")

    async def stream(self, text: str, language: str) -> AsyncIterator[np.ndarray]:
        if not text.strip():
            return
        kwargs: dict[str, object] = {
            "model": self.model,
            "voice": self.voice,
            "input": text,
            "response_format": "pcm",
        }
        if self.instructions:
            kwargs["instructions"] = self.instructions
        resampler = StreamResampler(OPENAI_PCM_RATE)
        produced = 0
        odd = b""
        try:
            manager = self._client.audio.speech.with_streaming_response.create(**kwargs)  # type: ignore[arg-type]
            response = await asyncio.wait_for(manager.__aenter__(), self.timeout_s)
        except Exception as exc:
            raise self._fail(describe_failure(exc, self._api_key)) from None
        try:
            chunks = response.iter_bytes(READ_CHUNK_BYTES).__aiter__()
            while True:
                try:
                    async with asyncio.timeout(self.timeout_s):  # not wait_for: it can swallow a cancel
                        block = await chunks.__anext__()
                except StopAsyncIteration:
                    break
                except Exception as exc:
                    raise self._fail(describe_failure(exc, self._api_key)) from None
                data = odd + block
                cut = len(data) - (len(data) & 1)
                data, odd = data[:cut], data[cut:]
                out = resampler.process(np.frombuffer(data, dtype="<i2"))
                if out.size:
                    produced += out.size
                    yield out
            tail = resampler.flush()
            if tail.size:
                produced += tail.size
                yield tail
            if produced == 0:
                raise self._fail("empty audio response")
        finally:
            await manager.__aexit__(None, None, None)

    def warm(self) -> None:
        """A connection made ahead when none is kept (`openai_client.warm`): the caller started speaking."""
        warm(self._client)

    async def aclose(self) -> None:
        await self._client.close()
