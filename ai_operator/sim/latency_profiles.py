"""Provider-shaped latency for the local OpenAI-compatible server (`openai_server.py`): named profiles, a seeded
sampler, and the timed delivery of a streamed chat completion (server-sent events, as OpenAI sends them).

Profiles (`PROFILES`, selectable per run: `FakeOpenAI(latency=...)`, `--profile`):

- `instant`: no added delay (the server answers as fast as it can work).
- `cloud`: what a caller of a hosted speech and chat API sees from a well-connected server. Batch STT answers
  `STT_BASE_S` + `STT_PER_AUDIO_S` per second of audio after the upload; a chat completion's first token comes
  `CHAT_TTFT_S` after the request, then `CHAT_TOKENS_PER_S` (streamed when the request asks, else the whole
  answer at the end); TTS sends its first byte `TTS_TTFB_S` after the request, then audio at
  `TTS_REALTIME_FACTOR` times real time (streamed). Streaming STT (the Realtime transcription websocket,
  `realtime_stt.py`) sends partials `STREAM_PARTIAL_S` apart while audio arrives and the final one
  `STREAM_FINAL_S` after the commit (`instant`: at once). The first request on a new TCP connection (an HTTP
  request or a websocket upgrade) waits `CONNECT_S` more first: the TCP and TLS handshakes a real provider's
  endpoint costs before the request can be sent (loopback costs nothing: a client that reconnects on every turn
  looked free here; `instant`: 0).
- `slow`: every `cloud` figure doubled (delays x2, rates /2), with a heavy tail: `SLOW_TAIL_P` of the waits are
  multiplied by a Pareto draw (shape `SLOW_TAIL_SHAPE`, capped at `SLOW_TAIL_CAP`).

Every wait is the profile's figure times a seeded log-normal jitter (median 1, `JITTER_SIGMA`), so a run is
reproducible from its seed. A wait counts from the request's arrival, so the server's own work (espeak-ng for
TTS, say) is inside it, not added to it.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import re
import time
from dataclasses import dataclass, replace
from typing import Any

from aiohttp import web

# Sources: the figures issue 26 gives as "typical cloud figures" for a hosted API reached over the internet
# (whisper-1 batch transcription, a gpt-4o-mini class chat model, gpt-4o-mini-tts class streamed TTS). They
# agree with what providers publish for their streaming endpoints (first audio in about 0.2-0.5 s) and with
# public time-to-first-token boards (0.3-0.6 s, 40-100 tokens/s for small models); we take the slow end.
STT_BASE_S = 0.300  # batch STT: fixed cost of one transcription request (upload, queue, decoder start)
STT_PER_AUDIO_S = 0.060  # batch STT: added per second of audio transcribed
CHAT_TTFT_S = 0.450  # chat completion: request to first token
CHAT_TOKENS_PER_S = 40.0  # chat completion: tokens per second after the first
TTS_TTFB_S = 0.300  # TTS: request to first audio byte
TTS_REALTIME_FACTOR = 3.0  # TTS: seconds of audio delivered per second after the first byte
# streaming STT (issue 26's profile, from vendors' streaming recognisers: interim results every 100-200 ms,
# the final one 150-250 ms after the end of speech); each gap drawn uniformly from the range, seeded
STREAM_PARTIAL_S = (0.100, 0.200)  # streaming STT: gap between partial transcripts while audio arrives
STREAM_FINAL_S = (0.150, 0.250)  # streaming STT: commit (end of speech) to the final transcript
# a new connection (TCP + TLS): TCP's handshake is 1 round trip (SYN, SYN-ACK) and TLS 1.3's another (RFC 8446
# section 2; TLS 1.2 takes 2, RFC 5246 section 7.3) before the request itself can be sent. 2-3 round trips of
# 30-50 ms to a provider's nearby region: 50-150 ms (issue 26's brief); we take the middle. Paid by every request
# that does not reuse a kept-alive connection
CONNECT_S = 0.100  # a new TCP + TLS connection's handshakes, before its first request (or websocket upgrade)
SLOW_FACTOR = 2.0  # `slow`: every delay times this, every rate divided by it
SLOW_TAIL_P = 0.05  # `slow`: share of waits hit by the heavy tail
SLOW_TAIL_SHAPE = 1.5  # `slow`: Pareto shape of the tail's multiplier (>= 1)
SLOW_TAIL_CAP = 6.0  # `slow`: the tail never multiplies a wait by more than this
JITTER_SIGMA = 0.15  # log-normal sigma of every wait (median 1: about +-15 % for one in three waits)
CHARS_PER_TOKEN = 4  # how the streamed answer is cut into tokens (OpenAI's rule of thumb for English)
TOKEN_RE = re.compile(r"\S+\s*|\s+")


@dataclass(frozen=True)
class LatencyProfile:
    """One provider shape. Zero delays and infinite rates (0 = unlimited) make `instant`."""

    name: str
    stt_base_s: float = 0.0
    stt_per_audio_s: float = 0.0
    chat_ttft_s: float = 0.0
    chat_tokens_per_s: float = 0.0
    tts_ttfb_s: float = 0.0
    tts_realtime_factor: float = 0.0
    jitter_sigma: float = 0.0
    tail_p: float = 0.0
    stream_partial_s: tuple[float, float] = STREAM_PARTIAL_S  # the cadence of partials, in every profile
    stream_final_s: tuple[float, float] = (0.0, 0.0)
    connect_s: float = 0.0  # the handshakes of a new TCP connection, before its first request


CLOUD = LatencyProfile("cloud", STT_BASE_S, STT_PER_AUDIO_S, CHAT_TTFT_S, CHAT_TOKENS_PER_S, TTS_TTFB_S,
                       TTS_REALTIME_FACTOR, JITTER_SIGMA, stream_final_s=STREAM_FINAL_S, connect_s=CONNECT_S)
SLOW = replace(CLOUD, name="slow", stt_base_s=STT_BASE_S * SLOW_FACTOR, stt_per_audio_s=STT_PER_AUDIO_S * SLOW_FACTOR,
               stream_partial_s=(STREAM_PARTIAL_S[0] * SLOW_FACTOR, STREAM_PARTIAL_S[1] * SLOW_FACTOR),
               stream_final_s=(STREAM_FINAL_S[0] * SLOW_FACTOR, STREAM_FINAL_S[1] * SLOW_FACTOR),
               chat_ttft_s=CHAT_TTFT_S * SLOW_FACTOR, chat_tokens_per_s=CHAT_TOKENS_PER_S / SLOW_FACTOR,
               tts_ttfb_s=TTS_TTFB_S * SLOW_FACTOR, tts_realtime_factor=TTS_REALTIME_FACTOR / SLOW_FACTOR,
               connect_s=CONNECT_S * SLOW_FACTOR, tail_p=SLOW_TAIL_P)
PROFILES: dict[str, LatencyProfile] = {p.name: p for p in (LatencyProfile("instant"), CLOUD, SLOW)}


def profile(name: str) -> LatencyProfile:
    """The profile called `name`; a ValueError naming the choices otherwise."""
    try:
        return PROFILES[name]
    except KeyError:
        raise ValueError(f"latency profile {name!r}: choose one of {', '.join(PROFILES)}") from None


class ProviderLatency:
    """Draws the waits of one profile from a seeded generator (one per server, so a run is reproducible)."""

    def __init__(self, shape: LatencyProfile | str, seed: int = 0) -> None:
        self.profile = profile(shape) if isinstance(shape, str) else shape
        self._rng = random.Random(seed)
        self._connect_rng = random.Random(seed + 1)  # its own draws: the other waits' sequence is unchanged

    def _jitter(self, seconds: float, rng: random.Random | None = None) -> float:
        if seconds <= 0:
            return 0.0
        p, rng = self.profile, rng or self._rng
        factor = rng.lognormvariate(0.0, p.jitter_sigma) if p.jitter_sigma > 0 else 1.0
        if p.tail_p > 0 and rng.random() < p.tail_p:
            factor *= min(SLOW_TAIL_CAP, rng.paretovariate(SLOW_TAIL_SHAPE))
        return seconds * factor

    def connect_s(self) -> float:
        """A new TCP connection's handshakes, before its first request is answered."""
        return self._jitter(self.profile.connect_s, self._connect_rng)

    def stt_s(self, audio_s: float) -> float:
        """Request to transcript, for `audio_s` seconds of audio."""
        return self._jitter(self.profile.stt_base_s + self.profile.stt_per_audio_s * max(0.0, audio_s))

    def stream_partial_gap_s(self) -> float:
        """Streaming STT: the wait before the next partial transcript."""
        return self._rng.uniform(*self.profile.stream_partial_s)

    def stream_final_s(self) -> float:
        """Streaming STT: commit to final transcript (the slow profile's heavy tail included)."""
        low, high = self.profile.stream_final_s
        return self._jitter(self._rng.uniform(low, high)) if high > 0 else 0.0

    def chat_first_token_s(self) -> float:
        return self._jitter(self.profile.chat_ttft_s)

    def chat_tokens_s(self, tokens: int) -> float:
        """Time to generate `tokens` more tokens after the first (not jittered per token: one draw)."""
        rate = self.profile.chat_tokens_per_s
        return self._jitter(tokens / rate) if rate > 0 and tokens > 0 else 0.0

    def tts_first_byte_s(self) -> float:
        return self._jitter(self.profile.tts_ttfb_s)

    def tts_audio_s(self, audio_s: float) -> float:
        """Delivery time of `audio_s` seconds of audio after the first byte."""
        factor = self.profile.tts_realtime_factor
        return audio_s / factor if factor > 0 else 0.0


def tokens_in(text: str) -> int:
    return -(-len(text) // CHARS_PER_TOKEN) if text else 0


async def wait_until(deadline: float, stopping: asyncio.Event) -> None:
    """Sleep until monotonic `deadline`, or until the server stops."""
    left = deadline - time.monotonic()
    if left > 0:
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(stopping.wait(), left)


def _chunk(completion: dict[str, Any], delta: dict[str, Any], finish: str | None = None) -> bytes:
    chunk = {"id": completion["id"], "object": "chat.completion.chunk", "created": completion["created"],
             "model": completion["model"], "system_fingerprint": completion.get("system_fingerprint"),
             "choices": [{"index": 0, "delta": delta, "finish_reason": finish, "logprobs": None}]}
    return f"data: {json.dumps(chunk, ensure_ascii=False)}\n\n".encode()


async def stream_chat(request: web.Request, completion: dict[str, Any], latency: ProviderLatency | None,
                      arrived: float, stopping: asyncio.Event) -> web.StreamResponse:
    """`completion` (a chat.completion object) sent as OpenAI streams it: role, content token by token, tool
    calls, the finish reason, `[DONE]`; paced by `latency` from the request's arrival at `arrived`."""
    choice = completion["choices"][0]
    message = choice["message"]
    response = web.StreamResponse(headers={"Content-Type": "text/event-stream", "Cache-Control": "no-cache"})
    await response.prepare(request)
    at = arrived + (latency.chat_first_token_s() if latency else 0.0)
    await wait_until(at, stopping)
    await response.write(_chunk(completion, {"role": "assistant", "content": "", "refusal": None}))
    for piece in TOKEN_RE.findall(message.get("content") or ""):
        at += latency.chat_tokens_s(tokens_in(piece)) if latency else 0.0
        await wait_until(at, stopping)
        await response.write(_chunk(completion, {"content": piece}))
    for index, call in enumerate(message.get("tool_calls") or []):
        at += latency.chat_tokens_s(tokens_in(call["function"]["arguments"])) if latency else 0.0
        await wait_until(at, stopping)
        await response.write(_chunk(completion, {"tool_calls": [{"index": index, **call}]}))
    await response.write(_chunk(completion, {}, choice["finish_reason"]))
    await response.write(b"data: [DONE]\n\n")
    await response.write_eof()
    return response


def chat_ready_at(completion: dict[str, Any], latency: ProviderLatency, arrived: float) -> float:
    """When a non-streamed answer is complete: first token, then every other token of it."""
    message = completion["choices"][0]["message"]
    tokens = tokens_in(message.get("content") or "") + sum(
        tokens_in(c["function"]["arguments"]) for c in message.get("tool_calls") or [])
    return arrived + latency.chat_first_token_s() + latency.chat_tokens_s(max(0, tokens - 1))
