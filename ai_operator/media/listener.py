"""Listening to the caller: VAD segmentation, barge-in, and whether speech under the bot's voice is a turn. Pure.

A 20 ms caller frame goes through the webrtcvad segmenter. While the bot's voice is in the echo window (bot
*energy* actually sent in the last `ECHO_WINDOW_MS`, not a queue holding trailing silence), each speech frame is
checked against the echo reference: is it the caller, or the bot coming back? An utterance that began under the
bot's voice is a turn when at least `min_caller_ms` of its speech passed that test (the caller talked on after
the bot stopped, or over it); otherwise it is dropped as echo, with the reason and its length, so nothing is
lost silently. Speech that starts when the bot is quiet is always a turn.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ai_operator.media.bargein import BargeInDetector
from ai_operator.media.frames import FRAME_MS, SAMPLE_RATE
from ai_operator.media.levels import ECHO_MARGIN_DB, EchoReference, frame_power
from ai_operator.media.vad import SpeechStarted, UtteranceEnded, UtteranceSegmenter

MIN_CALLER_MS = 100  # caller (not echo) speech an utterance under the bot needs to be a turn
DROPPED_ECHO = "echo"


@dataclass(frozen=True)
class Heard:
    """An utterance to transcribe."""

    utterance: UtteranceEnded
    under_bot: bool  # it began while the bot's voice was going out


@dataclass(frozen=True)
class Dropped:
    """An utterance that is not a turn, and why (logged and counted, never silent)."""

    reason: str
    seconds: float
    caller_ms: int  # how much of it passed the echo test


@dataclass(frozen=True)
class BargedIn:
    at: float


@dataclass(frozen=True)
class SpeechBegan:
    at: float


ListenEvent = Heard | Dropped | BargedIn | SpeechBegan


class CallerListener:
    """One call's ear. `note_bot_power` (or its `echo.note_bot_power` directly, as the daemon's `Call` wires it: one
    call less per frame sent) gets every frame the bot sends; `feed` every frame the caller sends."""

    def __init__(
        self,
        segmenter: UtteranceSegmenter,
        bargein: BargeInDetector,
        *,
        min_caller_ms: int = MIN_CALLER_MS,
        echo_margin_db: float = ECHO_MARGIN_DB,
    ) -> None:
        self.segmenter = segmenter
        self.bargein = bargein
        self.echo = EchoReference(margin_db=echo_margin_db)
        self._min_caller_frames = max(1, -(-min_caller_ms // FRAME_MS))
        self._under_bot = False
        self._caller_frames = 0

    def note_bot_power(self, power: float, at: float) -> None:
        self.echo.note_bot_power(power, at)

    def feed(self, frame: np.ndarray, now: float, bot_speaking: bool) -> list[ListenEvent]:
        """One caller frame at `now`; `bot_speaking`: an utterance of the bot is playing (for barge-in)."""
        bot_active = self.echo.bot_active(now)
        events = self.segmenter.feed(frame, now)
        return self._listen(events, frame_power(frame) if bot_active else 0.0, now, bot_active, bot_speaking)

    def feed_silent(self, now: float, bot_speaking: bool) -> list[ListenEvent]:
        """Exactly `feed` of a frame of digital silence (power 0), without decoding or measuring it."""
        bot_active = self.echo.bot_active(now)
        return self._listen(self.segmenter.feed_silent(now), 0.0, now, bot_active, bot_speaking)

    def skip_silent(self, bot_speaking: bool) -> bool:
        """`feed_silent` of a frame when nothing can happen: the VAD settled on a quiet line, and either the bot
        quiet too, or the caller's smoothed level already all silence (the usual case while the caller listens
        to the bot: one more zero in a silent ring changes nothing, and the bot's reference decays by its slots
        at its next reading). Its counters only, no clock read; returns False, doing nothing, when that is not so."""
        echo = self.echo
        if not echo.caller_silent and (bot_speaking or not echo.bot_silent):
            return False
        if not self.segmenter.skip_if_settled():
            return False
        self.bargein.feed(False, bot_speaking)
        return True

    def _listen(self, events: list[SpeechStarted | UtteranceEnded], power: float, now: float, bot_active: bool,
                bot_speaking: bool) -> list[ListenEvent]:
        out: list[ListenEvent] = []
        seg = self.segmenter
        for ev in events:
            if isinstance(ev, SpeechStarted):
                self._under_bot = bot_active
                self._caller_frames = 0
                out.append(SpeechBegan(ev.at))
            else:
                out.append(self._ended(ev))
        counts = False
        if bot_active:
            self.echo.note_caller_power(power, now)
            counts = seg.last_frame_speech and self.echo.caller_dominant()
        elif seg.last_frame_speech:
            counts = True
        if counts and (seg.in_speech or seg.last_frame_speech):
            self._caller_frames += 1
        if bot_speaking and self.bargein.feed(counts, True):
            out.append(BargedIn(now))
        elif not bot_speaking:
            self.bargein.feed(False, False)
        return out

    def _ended(self, ev: UtteranceEnded) -> Heard | Dropped:
        under_bot, caller_frames = self._under_bot, self._caller_frames
        self._under_bot = False
        self._caller_frames = 0
        if not under_bot or caller_frames >= self._min_caller_frames:
            return Heard(ev, under_bot)
        return Dropped(DROPPED_ECHO, round(len(ev.audio) / SAMPLE_RATE, 3), caller_frames * FRAME_MS)

    def end_now(self, now: float) -> Heard | Dropped | None:
        """End the caller's utterance in progress now (`UtteranceSegmenter.end_now`), judged as any other."""
        ev = self.segmenter.end_now(now)
        return None if ev is None else self._ended(ev)

    def reset_bargein(self) -> None:
        """The bot stopped (or was cut): the next barge-in needs a new run."""
        self.bargein.reset()
