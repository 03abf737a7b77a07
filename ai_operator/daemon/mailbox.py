"""What reaches a call's dialogue loop, as frozen event types (handled with `match` in `call.py`). Pure.

ARI events (hang-up, DTMF), the audio path (a heard utterance, a barge-in), playout (an utterance started or
stopped, a transfer due after the handoff line) and the daemon (shutdown) all post here; the loop is the only
reader, so everything that changes the dialogue happens in one task.
"""

from __future__ import annotations

import asyncio
from dataclasses import dataclass

from ai_operator.media.vad import UtteranceEnded


@dataclass(frozen=True)
class CallerGone:
    """The channel went away: `who` is "caller" (hang-up) or "system" (Asterisk restarted or shut down)."""

    who: str


@dataclass(frozen=True)
class DtmfPressed:
    digit: str


@dataclass(frozen=True)
class UtteranceHeard:
    utterance: UtteranceEnded


@dataclass(frozen=True)
class TransferDue:
    """The handoff line has played (or there was none): continue the caller to the handoff target."""


@dataclass(frozen=True)
class EndNow:
    """The goodbye cannot be spoken (TTS failed): end the call now rather than at the watchdog."""


@dataclass(frozen=True)
class ShutdownRequested:
    """The daemon is stopping and the drain time is over: the policy's closing line, then CallEnd."""


@dataclass(frozen=True)
class Wake:
    """Something changed that timers depend on (playout started or stopped, a barge-in)."""


CallEvent = CallerGone | DtmfPressed | UtteranceHeard | TransferDue | EndNow | ShutdownRequested | Wake


class Mailbox:
    """A call's queue of `CallEvent`s."""

    def __init__(self) -> None:
        self._queue: asyncio.Queue[CallEvent] = asyncio.Queue()

    def post(self, event: CallEvent) -> None:
        self._queue.put_nowait(event)

    @property
    def waiting(self) -> int:
        """Events posted and not yet taken."""
        return self._queue.qsize()

    async def next(self, timeout: float) -> CallEvent | None:
        """The next event, or None after `timeout` seconds."""
        try:
            async with asyncio.timeout(timeout):  # not wait_for: on 3.11 it can swallow the call's cancellation
                return await self._queue.get()
        except TimeoutError:
            return None
