"""Speech-to-text: the `SpeechToText` interface and the OpenAI transcription adapter.

`OpenAITranscriber` uploads the utterance as an 8 kHz 16-bit WAV to `/audio/transcriptions` (any
OpenAI-compatible server via `base_url`) with the policy's language hint. Each attempt is bounded by `timeout_s`
and at most `retries` more attempts follow a retryable failure, so a call takes at most about
`timeout_s * (retries + 1)`; a final failure raises `SpeechError` (the daemon then tells the policy "not heard").
"""

from __future__ import annotations

import asyncio
import time
from typing import Protocol, runtime_checkable

import numpy as np

from ai_operator.logs import get_logger
from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.openai_client import describe_failure, is_retryable, make_client, warm
from ai_operator.speech.errors import SpeechError
from ai_operator.speech.wav import encode_wav

log = get_logger("speech")

DEFAULT_STT_RETRIES = 1
RETRY_PAUSE_S = 0.05
UPLOAD_NAME = "utterance.wav"

__all__ = ["OpenAITranscriber", "SpeechError", "SpeechToText"]


@runtime_checkable
class SpeechToText(Protocol):
    """Turns one utterance (int16, 8 kHz mono) into text; raises `SpeechError` on failure."""

    name: str

    async def transcribe(self, pcm: np.ndarray, language: str | None) -> str: ...


class OpenAITranscriber:
    """OpenAI (or compatible) audio transcription with bounded timeout and retries."""

    name = "openai"

    def __init__(
        self,
        *,
        api_key: str,
        base_url: str | None,
        model: str,
        timeout_s: float,
        retries: int = DEFAULT_STT_RETRIES,
    ) -> None:
        if timeout_s <= 0:
            raise ValueError(f"OpenAITranscriber: timeout_s must be positive, got {timeout_s}")
        if retries < 0:
            raise ValueError(f"OpenAITranscriber: retries must be >= 0, got {retries}")
        self.model = model
        self.timeout_s = timeout_s
        self.retries = retries
        self._api_key = api_key
        self._client = make_client(api_key=api_key, base_url=base_url, timeout_s=timeout_s)

    async def transcribe(self, pcm: np.ndarray, language: str | None) -> str:
        """Text of `pcm` (int16, 8 kHz); "" for empty audio. Raises SpeechError after the last failed attempt."""
        audio = np.asarray(pcm, dtype=np.int16)
        if audio.size == 0:
            return ""
        wav = encode_wav(audio, SAMPLE_RATE)
        started = time.monotonic()
        last = "no attempt"
        for attempt in range(self.retries + 1):
            if attempt:
                await asyncio.sleep(RETRY_PAUSE_S)
            try:
                text = await asyncio.wait_for(self._request(wav, language), self.timeout_s)
            except SpeechError:
                raise
            except Exception as exc:
                last = describe_failure(exc, self._api_key)
                log.warning(
                    "stt_attempt_failed",
                    provider=self.name,
                    model=self.model,
                    attempt=attempt + 1,
                    reason=last,
                )
                if not is_retryable(exc):
                    break
                continue
            log.debug(
                "stt_done",
                provider=self.name,
                model=self.model,
                ms=round((time.monotonic() - started) * 1000),
            )
            return text
        raise SpeechError(f"stt provider {self.name} (model {self.model}): {last} ({attempt + 1} attempt(s))")

    async def _request(self, wav: bytes, language: str | None) -> str:
        kwargs: dict[str, object] = {
            "file": (UPLOAD_NAME, wav, "audio/wav"),
            "model": self.model,
            "response_format": "json",
        }
        if language:
            kwargs["language"] = language
        result = await self._client.audio.transcriptions.create(**kwargs)  # type: ignore[call-overload]
        if isinstance(result, str):
            return result.strip()
        text = getattr(result, "text", None)
        if not isinstance(text, str):
            raise SpeechError(f"stt provider {self.name} (model {self.model}): bad response (no text field)")
        return text.strip()

    def warm(self) -> None:
        """A connection made ahead when none is kept (`openai_client.warm`): the caller started speaking."""
        warm(self._client)

    async def aclose(self) -> None:
        await self._client.close()
