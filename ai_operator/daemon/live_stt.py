"""Live transcripts: with a streaming STT, the caller's audio goes to the provider WHILE they speak.

The stand-in for `early_stt.EarlyTranscript` (same surface: `frame`, `take`, `close`, `on_ready`, `pause_frames`)
when the route's STT can stream (`STT_PROVIDER=openai_realtime`). One stream per utterance is opened when speech
starts and fed every frame the segmenter keeps. At `VAD_EARLY_STT_MS` of silence the audio so far is committed
(the provider settles it while the pause runs: no upload, no second request) and the text heard so far - the
latest partial - goes to `on_ready` (`early_turn.py` may end the turn on it); a provider that gives no partials
before a commit offers its final transcript instead, when it comes. When the utterance ends, what is left is
committed and its final transcript awaited; an utterance the early turn ended at its pause (on the partial)
gets its final text too. If the caller goes on after a pause, the same stream goes on (a commit is not an end).
A provider with a `connection()` (the Realtime websocket) serves the whole call on one connection: it is opened
when the call's media starts (its first frame), each utterance's stream is opened on it after the one before has
settled its audio (the next utterance starting settles it: a socket carries one utterance's audio at a time), a
connection that failed is made again for the next utterance, and `aclose` closes it when the call ends.
At a shorter pause (`on_pause`) the text heard so far goes to `model_prefetch.py` (a question's model request sent
ahead). Failures (the provider refused, closed or timed out) are what `take` raises, as a batch STT's would be.
Counted as `ai_operator_early_stt_total{outcome}`: used, partial (decided on the partial), wasted, failed.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable
from typing import Any, Protocol

import numpy as np
import structlog

from ai_operator.daemon.early_stt import Count, Segmenter, call_counter
from ai_operator.media.frames import FRAME_MS, FRAME_SAMPLES
from ai_operator.media.vad import UtteranceEnded
from ai_operator.providers.health import watch_call

COMMIT, FINISH = "commit", "finish"
FEED_MS = 100  # audio goes to the provider in pieces this long (5 frames: a fifth of the messages), or at a pause
KEPT_ENDED = 2  # streams of utterances that ended (or were dropped) and were not taken yet: the call may be busy
Key = tuple[float, int]  # (last speech frame's time, samples): which audio a transcript is of


class LiveSegmenter(Segmenter, Protocol):
    def frames_since(self, start: int) -> tuple[float, list[np.ndarray]]: ...


class _Utterance:
    """One utterance's stream: what was queued for it and what came back."""

    def __init__(self, started_at: float, after: _Utterance | None = None) -> None:
        self.started_at = started_at
        self.after = after  # on a shared connection: the stream before it, which must settle its audio first
        self.released = asyncio.Event()  # this stream sends no more audio (the next may start on the connection)
        self.frames = 0  # segmenter frames queued
        self.samples = 0
        self.queue: asyncio.Queue[np.ndarray | str] = asyncio.Queue()
        self.buffered: list[np.ndarray] = []  # frames not queued yet (less than FEED_MS of them)
        self.finals: list[str] = []
        self.partial = ""
        self.commits_done = 0
        self.pause_key: Key | None = None  # the audio committed at the last pause
        self.offered: tuple[Key, str] | None = None  # the text given to `on_ready` for it
        self.error: Exception | None = None
        self.done = asyncio.Event()
        self.task: asyncio.Task[None] | None = None

    @property
    def text(self) -> str:
        return " ".join(t for t in (*self.finals, self.partial) if t.strip()).strip()

    def queue_audio(self, frames: list[np.ndarray]) -> None:
        self.buffered.extend(frames)
        self.samples += sum(len(frame) for frame in frames)
        self.frames += len(frames)
        if len(self.buffered) * FRAME_MS >= FEED_MS:
            self.flush()

    def flush(self) -> None:
        if self.buffered:
            self.queue.put_nowait(np.concatenate(self.buffered))
            self.buffered = []

    def mark(self, what: str) -> None:
        """COMMIT or FINISH, after all the audio before it."""
        self.flush()
        self.queue.put_nowait(what)


class LiveTranscript:
    """One call's live transcription streams (at most one: the utterance in progress)."""

    offers_partials = True  # `on_ready` may get a streaming partial, not the final transcript `take` returns

    def __init__(self, pause_ms: int, open_stream: Callable[[], Any], count: Count, forced: Callable[[Any], bool],
                 frame_ms: int = FRAME_MS, *, connection: Any = None,
                 language: Callable[[], str | None] = lambda: None) -> None:
        self.pause_frames = -(-pause_ms // frame_ms) if pause_ms > 0 else 0
        self._open_stream = open_stream  # -> awaitable SttStream, in the call's context (on `connection`, if any)
        self._connection = connection  # the call's one connection (`connect`, `aclose`), or None: one per stream
        self._language = language
        self._connecting: asyncio.Task[None] | None = None
        self._last: _Utterance | None = None  # the latest stream, which the next waits for on a shared connection
        self._count = count
        self._forced = forced  # the early turn ended this utterance at its pause
        self._u: _Utterance | None = None  # the utterance in progress
        self._ended: list[_Utterance] = []  # earlier ones, not taken yet (oldest first)
        self.on_ready: Callable[[str], None] | None = None
        # (silent frames, told): told of the text heard so far at that shorter pause (`model_prefetch.py`)
        self.on_pause: tuple[int, Callable[[str], None]] | None = None

    @classmethod
    def of_call(cls, call: Any, pause_ms: int) -> LiveTranscript:
        """For a `daemon.call.Call` whose route's STT streams (`stt.open`)."""

        stt = call.svc.stt_for(call.route)
        make = getattr(stt, "connection", None)
        connection = make() if make is not None else None

        async def open_stream() -> Any:
            structlog.contextvars.bind_contextvars(call_id=call.call_id, route=call.route.name)
            watch_call(call.provider_notes)  # its provider failures are the call's (its record's summary)
            return await (connection or stt).open(call.session.spoken_language)

        return cls(pause_ms, open_stream, call_counter(call), lambda ended: call.early_turn.forced(ended),
                   connection=connection, language=lambda: call.session.spoken_language)

    # ---- while the caller speaks ------------------------------------------------------------------------------
    def frame(self, segmenter: LiveSegmenter) -> None:
        """After every caller frame (synchronous): open, feed, and at the pause commit the stream."""
        if self._connection is not None and self._connecting is None:  # the call's media started: connect now
            self._connecting = asyncio.get_running_loop().create_task(self._connect())
        if not segmenter.in_speech:
            return
        u = self._u
        started_at, new = segmenter.frames_since(0 if u is None else u.frames)
        if u is None or u.started_at != started_at:
            if u is not None:  # ended (its turn not taken yet: the call is busy) or dropped (too short, noise)
                self._ended.append(u)
                if self._connection is not None:
                    u.mark(FINISH)  # its audio is all there: settled now, so the next can use the connection
                while len(self._ended) > KEPT_ENDED:
                    self._stop(self._ended.pop(0), "wasted")
            shared = self._connection is not None
            u = self._u = self._last = _Utterance(started_at, self._last if shared else None)
            u.task = asyncio.get_running_loop().create_task(self._run(u))
            new = segmenter.frames_since(0)[1]
        u.queue_audio(new)
        if self.on_pause is not None and segmenter.silent_frames == self.on_pause[0] and u.text:
            u.flush()  # the audio so far goes now
            self.on_pause[1](u.text)
        if self.pause_frames and segmenter.silent_frames == self.pause_frames:
            _, last_speech_at = segmenter.audio_so_far()
            u.pause_key, u.offered = (last_speech_at, u.samples), None
            u.mark(COMMIT)
            self._offer(u)

    def _offer(self, u: _Utterance) -> None:
        if u is self._u and u.pause_key is not None and u.offered is None and u.pause_key[1] == u.samples:
            text = u.text
            if text:
                u.offered = (u.pause_key, text)
                if self.on_ready is not None:
                    self.on_ready(text)

    async def _run(self, u: _Utterance) -> None:
        stream = None
        reader: asyncio.Task[None] | None = None
        try:
            if u.after is not None:
                await u.after.released.wait()
                u.after = None  # no chain of a call's every utterance is kept
            stream = await self._open_stream()
            reader = asyncio.get_running_loop().create_task(self._read(stream, u))
            while True:
                item = await u.queue.get()
                if not isinstance(item, str):
                    await stream.feed(item)
                elif item == FINISH:
                    await stream.finish()
                    u.released.set()
                    break
                elif (commit := getattr(stream, "commit", None)) is not None:  # else it settles at the end
                    await commit()
            await reader
        except Exception as exc:
            u.error = u.error or exc
        finally:
            u.released.set()
            u.done.set()
            if reader is not None and not reader.done():
                reader.cancel()
            if stream is not None:
                with contextlib.suppress(Exception):
                    await stream.aclose()

    async def _read(self, stream: Any, u: _Utterance) -> None:
        try:
            async for result in stream.results():
                if result.final:
                    u.finals.append(result.text.strip())
                    u.partial = ""
                    u.commits_done += 1
                    self._offer(u)  # no partial before the commit: the final is offered
                else:
                    u.partial = result.text.strip()
        except Exception as exc:
            u.error = exc
            if u.task is not None:
                u.task.cancel()  # the pump may be waiting for audio: the stream is over

    # ---- the utterance ended -----------------------------------------------------------------------------------
    async def take(self, ended: UtteranceEnded) -> str | None:
        """The transcript of `ended` from its stream (None: it had none, transcribe it now); raises what the
        stream failed with."""
        u = next((c for c in (self._u, *self._ended) if c is not None and c.started_at == ended.speech_started_at),
                 None)
        for earlier in [c for c in self._ended if u is None or c.started_at <= u.started_at]:
            self._ended.remove(earlier)
            if earlier is not u:
                self._stop(earlier, "wasted")  # dropped utterances before this one
        if u is None:
            return None
        if u is self._u:
            self._u = None
        key = (ended.speech_ended_at, len(ended.audio))
        # ended at its pause on the partial: the turn still gets the final text (150-250 ms after that pause's
        # commit; a partial can lag the speech, and the record keeps what was said)
        decided_on_partial = u.offered is not None and u.offered[0] == key and self._forced(ended)
        rest = np.asarray(ended.audio[u.samples:], dtype=np.int16)
        u.queue_audio([rest[i : i + FRAME_SAMPLES] for i in range(0, len(rest), FRAME_SAMPLES)])
        u.mark(FINISH)
        await u.done.wait()
        if u.error is not None and not isinstance(u.error, asyncio.CancelledError):
            self._count("failed")
            if self._connection is not None:  # a failed connection is dropped: made again now, not at the next word
                self._connecting = asyncio.get_running_loop().create_task(self._connect())
            raise u.error
        self._count("partial" if decided_on_partial else "used")
        return " ".join(t for t in u.finals if t)

    def _stop(self, u: _Utterance, outcome: str) -> None:
        self._count(outcome)
        if u.task is not None and not u.task.done():
            u.task.cancel()

    def close(self) -> None:
        """The call ended: nothing more will be taken."""
        for u in (*self._ended, self._u):
            if u is not None:
                self._stop(u, "wasted")
        self._u, self._ended, self._last = None, [], None

    async def _connect(self) -> None:
        with contextlib.suppress(Exception):  # ahead of need: a failure is the first stream's to find and count
            await self._connection.connect(self._language())

    async def aclose(self) -> None:
        """`close`, and the call's connection closed (nothing outlives the call)."""
        self.close()
        if self._connecting is not None and not self._connecting.done():
            self._connecting.cancel()
        if self._connection is not None:
            await self._connection.aclose()
