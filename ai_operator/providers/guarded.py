"""The one wrapping point: every adapter the registry builds is called through its provider's breaker.

`GuardedSTT`, `GuardedTTS` and `GuardedModel` ask `ProviderHealth.allow()` first (breaker open: fail at once with
`ProviderUnavailable`, no request, no timeout), report each verdict, note the failure for the current call's
record, and map the policy's language code to the provider's (the registry's hook). `FallbackLineTTS` is what a
call speaks with when the voice is remote: the remote voice behind its line cache (a cached line still plays
while the provider is down) and, when a line cannot be had from it, the same line in the local espeak-ng voice.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from typing import Any

import numpy as np

from ai_operator.dialogue import ToolSpec
from ai_operator.logs import get_logger
from ai_operator.providers.health import ProviderHealth, ProviderUnavailable, note_failure
from ai_operator.speech.cache import CachedTTS
from ai_operator.speech.errors import SpeechError
from ai_operator.speech.stt import SpeechToText
from ai_operator.speech.tts import TextToSpeech

log = get_logger("providers")
Language = Callable[[str], str]


def _refused(health: ProviderHealth, kind: str) -> ProviderUnavailable:
    reason = f"{kind} provider {health.provider}: not called, breaker {health.state} ({health.reason})"
    note_failure(kind, reason)
    return ProviderUnavailable(reason)


async def _guard(health: ProviderHealth, kind: str, call: Callable[[], Awaitable[Any]]) -> Any:
    if not health.allow():
        raise _refused(health, kind)
    try:
        result = await call()
    except asyncio.CancelledError:
        health.release()
        raise
    except Exception as exc:
        health.failure(str(exc) or type(exc).__name__)
        note_failure(kind, str(exc) or type(exc).__name__)
        raise
    health.success()
    return result


class GuardedSTT:
    """A segmented STT behind its breaker, with the language hook; one that can also stream (`streaming`) opens
    streams behind the same breaker (`GuardedStream`)."""

    def __init__(self, inner: SpeechToText, health: ProviderHealth, language: Language) -> None:
        self.inner, self.health, self._language = inner, health, language
        self.name = inner.name
        self.streaming = bool(getattr(inner, "streaming", False))

    async def open(self, language: str | None) -> GuardedStream:
        return await _open_stream(self.health, self.inner, self._language(language) if language else None)

    def connection(self) -> GuardedConnection | None:
        """A connection for one call's streams in turn (`speech/openai_realtime_stt.py`), or None when the
        provider has no such thing (each `open` is then its own)."""
        make = getattr(self.inner, "connection", None)
        inner = make() if make is not None else None
        return None if inner is None else GuardedConnection(inner, self.health, self._language)

    async def transcribe(self, pcm: np.ndarray, language: str | None) -> str:
        code = self._language(language) if language else None
        text: str = await _guard(self.health, "stt", lambda: self.inner.transcribe(pcm, code))
        return text

    async def aclose(self) -> None:
        close = getattr(self.inner, "aclose", None)
        if close is not None:
            await close()


async def _open_stream(health: ProviderHealth, opener: Any, code: str | None) -> GuardedStream:
    if not health.allow():
        raise _refused(health, "stt")
    guarded = GuardedStream(None, health)  # one verdict per stream: opening it is not a success yet
    try:
        guarded.inner = await opener.open(code)
    except asyncio.CancelledError:
        health.release()
        raise
    except Exception as exc:
        guarded._failed(exc)
        raise
    return guarded


class GuardedConnection:
    """A call's streaming connection behind its provider's breaker: each stream opened on it is one verdict, as
    a stream of its own would be; `connect` (ahead of the first stream) gives none and is skipped while the
    breaker is open (the first stream then tries, and counts)."""

    def __init__(self, inner: Any, health: ProviderHealth, language: Language) -> None:
        self.inner, self.health, self._language = inner, health, language

    async def connect(self, language: str | None) -> None:
        if self.health.state not in ("open", "half_open"):
            await self.inner.connect(self._language(language) if language else None)

    async def open(self, language: str | None) -> GuardedStream:
        return await _open_stream(self.health, self.inner, self._language(language) if language else None)

    async def aclose(self) -> None:
        await self.inner.aclose()


class GuardedStream:
    """An open `SttStream` whose failure (feeding, finishing, or its results) is its provider's failure and whose
    results, once complete, are a success; closed before a verdict: none."""

    def __init__(self, inner: Any, health: ProviderHealth) -> None:
        self.inner, self.health = inner, health
        self._verdict = False

    def _failed(self, exc: Exception) -> None:
        if not self._verdict:
            self._verdict = True
            self.health.failure(str(exc) or type(exc).__name__)
            note_failure("stt", str(exc) or type(exc).__name__)

    async def _call(self, call: Callable[[], Awaitable[Any]]) -> None:
        try:
            await call()
        except Exception as exc:
            self._failed(exc)
            raise

    async def feed(self, frame: np.ndarray) -> None:
        await self._call(lambda: self.inner.feed(frame))

    async def commit(self) -> None:
        commit = getattr(self.inner, "commit", None)
        if commit is not None:
            await self._call(commit)

    async def finish(self) -> None:
        await self._call(self.inner.finish)

    async def results(self) -> AsyncIterator[Any]:
        try:
            async for result in self.inner.results():
                yield result
        except Exception as exc:
            self._failed(exc)
            raise
        if not self._verdict:
            self._verdict = True
            self.health.success()

    async def aclose(self) -> None:
        if not self._verdict:
            self._verdict = True
            self.health.release()
        await self.inner.aclose()


class GuardedModel:
    """A chat model behind its breaker."""

    def __init__(self, inner: Any, health: ProviderHealth) -> None:
        self.inner, self.health = inner, health
        self.name = getattr(inner, "name", health.provider)

    async def complete(self, system: str, messages: Sequence[Mapping[str, Any]], *, tools: Sequence[ToolSpec] = (),
                       run_tool: Callable[[str, dict[str, Any]], Awaitable[str]] | None = None,
                       response_schema: Mapping[str, Any] | None = None,
                       on_text: Callable[[str], bool] | None = None, opened: Any = None) -> str:
        streamed = {} if on_text is None else {"on_text": on_text}  # a model that cannot stream is never asked to
        if opened is not None:
            streamed["opened"] = opened
        text: str = await _guard(self.health, "model", lambda: self.inner.complete(
            system, messages, tools=tools, run_tool=run_tool, response_schema=response_schema, **streamed))
        return text

    @property
    def opens(self) -> bool:
        """The model can send a request ahead (`open`, `daemon/model_prefetch.py`)."""
        return hasattr(self.inner, "open")

    def open(self, system: str, messages: Sequence[Mapping[str, Any]], *, tools: Sequence[ToolSpec] = ()) -> Any:
        """The inner model's first request sent ahead (`ChatModel.open`); None while its breaker is not closed
        (nothing is sent ahead to a failing provider: the turn's own request finds the breaker)."""
        if self.health.state in ("open", "half_open"):
            return None
        return self.inner.open(system, messages, tools=tools)


class GuardedTTS:
    """A `TextToSpeech` behind its breaker. A stream that gave audio and was then closed early (barge-in) counts
    as working; one closed before any audio gives no verdict."""

    def __init__(self, inner: TextToSpeech, health: ProviderHealth, language: Language) -> None:
        self.inner, self.health, self._language = inner, health, language
        self.name = inner.name

    def voice_id(self, language: str) -> str:
        return self.inner.voice_id(self._language(language))

    async def stream(self, text: str, language: str) -> AsyncIterator[np.ndarray]:
        if not self.health.allow():
            raise _refused(self.health, "tts")
        produced = False
        verdict = False
        try:
            async for chunk in self.inner.stream(text, self._language(language)):
                produced = True
                yield chunk
            verdict = True
            self.health.success()
        except Exception as exc:
            verdict = True
            self.health.failure(str(exc) or type(exc).__name__)
            raise
        finally:
            if not verdict:  # cancelled or closed early by the consumer
                self.health.success() if produced else self.health.release()


class FallbackLineTTS:
    """A call's voice: `primary` (a remote voice behind its cache); a line it cannot give is spoken by `fallback`
    (espeak-ng behind its own cache). A line cut mid-way by a failure is not repeated: the speaker reports it."""

    def __init__(self, primary: CachedTTS, fallback: CachedTTS) -> None:
        self.primary, self.fallback = primary, fallback
        self.name = primary.name

    async def stream(self, text: str, language: str, *, cache: bool = True) -> AsyncIterator[np.ndarray]:
        produced = False
        try:
            async for chunk in self.primary.stream(text, language, cache=cache):
                produced = True
                yield chunk
            return
        except SpeechError as exc:
            if produced:
                raise
            reason = str(exc)
        note_failure("tts", reason, fallback=self.fallback.name)
        log.debug("tts_fallback", provider=self.primary.name, fallback=self.fallback.name, reason=reason)
        async for chunk in self.fallback.stream(text, language, cache=cache):
            yield chunk

    async def prewarm(self, lines: list[tuple[str, str]]) -> int:
        """The primary's lines; when it cannot make them, the fallback's (a dead provider still greets at once)."""
        made = await self.primary.prewarm(lines)
        if self.primary.prewarm_errors:
            made += await self.fallback.prewarm(lines)
        return made

    @property
    def prewarm_counts(self) -> dict[str, int]:
        """The primary's outcomes of the last `prewarm` (its failures were then made by the fallback)."""
        return self.primary.prewarm_counts
