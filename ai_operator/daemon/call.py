"""One call, from `StasisStart` to teardown: the dialogue loop around the media leg, CallEnd and the records.

Audio in (RTP) -> `CallerListener` (VAD, barge-in, echo decisions) -> mailbox -> STT -> `TurnDriver` (turn
boundary, policy, effects) -> `Speaker` (TTS into playout). The audio callback is synchronous and cheap;
everything slow runs in the call's loop, the only reader of its mailbox, which also owns the timers (idle
re-prompt, turn-boundary hold, CallEnd grace and watchdog, the maximum call length), read on the daemon's
clock (`Services.clock`, ai_operator/clock.py). Teardown runs on every path and releases the media leg and the
policy session exactly once.
"""

from __future__ import annotations

import asyncio
from typing import Any

import numpy as np

from ai_operator.callend import CallEnd, expected_line_s
from ai_operator.config import Route
from ai_operator.conversation import Conversation
from ai_operator.daemon.call_record import write_call_record
from ai_operator.daemon.early_stt import EarlyTranscript
from ai_operator.daemon.early_turn import EarlyTurn
from ai_operator.daemon.handoff import transfer
from ai_operator.daemon.hearing import STT_UNAVAILABLE, Hearing
from ai_operator.daemon.live_stt import LiveTranscript
from ai_operator.daemon.mailbox import (
    CallerGone,
    DtmfPressed,
    EndNow,
    Mailbox,
    ShutdownRequested,
    TransferDue,
    UtteranceHeard,
    Wake,
)
from ai_operator.daemon.media_leg import MediaLeg
from ai_operator.daemon.model_prefetch import ModelPrefetch
from ai_operator.daemon.services import Services
from ai_operator.daemon.speaker import Speaker
from ai_operator.daemon.streamed_reply import StreamedReply
from ai_operator.daemon.turn_log import TurnLog
from ai_operator.dialogue import knowledge_profile
from ai_operator.logs import get_logger
from ai_operator.media.bargein import BargeInDetector
from ai_operator.media.frames import SAMPLE_RATE
from ai_operator.media.listener import BargedIn, CallerListener, Dropped, Heard, ListenEvent, SpeechBegan
from ai_operator.media.playout import PlayoutEvent
from ai_operator.media.vad import UtteranceEnded, UtteranceSegmenter
from ai_operator.providers.health import CallNotes, watch_call
from ai_operator.turn_driver import Turn, TurnDriver
from ai_operator.wiring import new_session
from policies import load_policy

log = get_logger("call")

IDLE_POLL_S = 1.0
CHANNEL_LOST = "channel_lost"


class Call:
    """A live call on `route`. `run()` is the whole life of the call; the manager feeds it ARI events."""

    def __init__(
        self,
        svc: Services,
        channel: Any,
        route: Route,
        *,
        direction: str = "inbound",
        call_args: dict[str, str] | None = None,
    ) -> None:
        settings = svc.settings
        self.svc = svc
        self.clock = svc.clock  # the daemon's: monotonic for the timers, wall time for the records
        self.channel = channel
        self.call_id: str = channel.id
        self.route = route
        self.direction = direction
        self.policy = load_policy(route.policy)
        self.log = log.bind(call_id=self.call_id, route=route.name)
        self.mailbox = Mailbox()
        self.callend = CallEnd(settings.call.hangup_watchdog_s, settings.call.hangup_grace_ms / 1000.0)
        self.max_call_s = settings.call.max_call_s
        self.idle_timeout_s = settings.call.idle_timeout_s
        self.log_transcripts = settings.ops.log_transcripts
        model = svc.model_for(route)
        self.session = new_session(settings, route, self.call_id, call_args=call_args,
                                   model_available=model is not None)
        self.conversation = Conversation(self.session, knowledge=svc.knowledge, model=model,
                                         log_context={"route": route.name},
                                         kb_timeout_s=settings.storage.kb_search_timeout_s,
                                         knowledge_profile=knowledge_profile(self.policy))
        self.driver = TurnDriver(self.conversation)
        self.conversation.speech_stream = self._streamed_speech  # a model's answer spoken as it streams
        self._streamed: StreamedReply | None = None
        vad = settings.vad
        self.listener = CallerListener(
            UtteranceSegmenter(vad.aggressiveness, vad.start_ms, vad.end_silence_ms, vad.max_utterance_s),
            BargeInDetector(vad.barge_in_ms),
        )
        live = getattr(svc.stt_for(route), "streaming", False)  # STT streamed (live_stt.py), or at a pause (early_stt.py)
        self.early_stt: EarlyTranscript | LiveTranscript = (
            LiveTranscript.of_call(self, vad.early_stt_ms) if live else EarlyTranscript.of_call(self, vad.early_stt_ms))
        self.hearing = Hearing(self, self.early_stt)
        self.early_turn = EarlyTurn(self, vad)  # the policy ends the turn at that pause (early_turn.py)
        self.prefetch = ModelPrefetch(self, vad)  # a question's model request sent ahead (model_prefetch.py)
        self.turn_log = TurnLog(self.call_id, records=svc.records, metrics=svc.metrics,
                                end_silence_ms=vad.end_silence_ms, state_field=self.policy.state_field, clock=self.clock)
        self.media = MediaLeg(svc, self.call_id, on_audio=self._on_audio, on_silence=self._on_silence,
                              on_playout=self._on_playout,
                              on_bot_frame=self.listener.echo.note_bot_power)
        self.em_channel_id = self.media.em_channel_id
        self.speaker: Speaker | None = None
        self.ended = asyncio.Event()
        self.ended_by: str | None = None
        self.disposition: str | None = None
        self.summary: dict[str, Any] = {}
        self._started_mono = self.clock.monotonic()
        self._last_activity = self._started_mono
        self._pending_transfer: str | None = None
        self._torn_down = False
        self.provider_notes = CallNotes()  # provider failures during this call, for its record
        self.started_at = self.clock.now()

    # ---- events from the manager (ARI) and the daemon ---------------------------------------------------------
    def on_external_media_started(self) -> None:
        self.media.external_media_started()

    def on_caller_gone(self, who: str = "caller") -> None:
        self.mailbox.post(CallerGone(who))

    def on_dtmf(self, digit: str) -> None:
        self.mailbox.post(DtmfPressed(digit))

    def shutdown(self) -> None:
        """Daemon stopping after the drain timeout: the policy's closing line through CallEnd."""
        self.mailbox.post(ShutdownRequested())

    @property
    def busy(self) -> bool:
        """Thinking (events waiting), speaking, or listening to the caller."""
        speaking = self.speaker is not None and self.speaker.busy
        return self.mailbox.waiting > 0 or speaking or self.listener.segmenter.in_speech

    # ---- the audio path (synchronous, per 20 ms frame, read by the pacer's tick) -------------------------------
    def _on_audio(self, frame: np.ndarray) -> None:
        now = self.clock.monotonic()
        stream = self.media.stream
        events = self.listener.feed(frame, now, stream is not None and stream.speaking)
        self.early_stt.frame(self.listener.segmenter)
        if events:
            self._heard(events, now)

    def _on_silence(self) -> None:
        """A frame of digital silence (most of a call): the same decisions as `_on_audio`, without the work."""
        stream = self.media.stream
        speaking = stream is not None and stream.speaking
        if self.listener.skip_silent(speaking):
            return
        now = self.clock.monotonic()
        events = self.listener.feed_silent(now, speaking)
        self.early_stt.frame(self.listener.segmenter)
        if events:
            self._heard(events, now)

    def _heard(self, events: list[ListenEvent], now: float) -> None:
        for ev in events:
            match ev:
                case SpeechBegan(at=at):
                    self._last_activity = now
                    self.svc.warm(self.route)  # the turn's provider connections, if they went idle
                    self.early_turn.speech_began(at)  # the caller went on: an early decision is withdrawn
                    self.driver.caller_speaking_again()
                case Heard(utterance=utt):
                    self._last_activity = now
                    self.mailbox.post(UtteranceHeard(utt))
                case Dropped(reason=reason, seconds=seconds, caller_ms=caller_ms):
                    self._last_activity = now
                    self.summary["utterances_dropped"] = self.summary.get("utterances_dropped", 0) + 1
                    self.log.info("utterance_dropped", reason=reason, seconds=seconds, caller_ms=caller_ms)
                    self.svc.metrics.utterances_dropped_total.labels(reason=reason).inc()
                case BargedIn():
                    self._barge_in(now)

    def _barge_in(self, now: float) -> None:
        if self.callend.armed:  # an ending line is not a turn: the caller's voice does not cut it (ARCHITECTURE.md)
            self.log.info("barge_in_over_ending_line", reason=self.callend.reason)
            return
        cut = self.speaker.cut() if self.speaker else None
        self.log.info("barge_in", utterance=cut)
        self.mailbox.post(Wake())

    def _on_playout(self, ev: PlayoutEvent) -> None:
        if ev.kind == "started":
            self.early_turn.first_frame()
            self.callend.on_bot_started(ev.at, ev.at)
            chunk_ms = self.speaker.first_chunk_ms.pop(ev.utterance_id, None) if self.speaker else None
            self.turn_log.first_frame_sent(ev.utterance_id, ev.at, chunk_ms)
        else:
            self.callend.on_bot_stopped(ev.at, ev.interrupted)
            self._last_activity = ev.at
            self.listener.reset_bargein()
            if self._pending_transfer == ev.utterance_id:
                # As before a hang-up: the line's last frames still cross Asterisk's bridge to the caller when
                # the pacer has sent them; leaving the bridge at once cut the end of "please stay on the line".
                asyncio.get_running_loop().call_later(self.callend.grace_s, self.mailbox.post, TransferDue())
        self.mailbox.post(Wake())

    def _on_tts_error(self, utterance_id: str, exc: Exception) -> None:
        self.log.error("tts_failed", utterance=utterance_id, error=str(exc))
        self.svc.metrics.adapter_errors_total.labels(adapter="tts").inc()
        self.turn_log.first_frame_sent(utterance_id, None)
        stream = self.media.stream
        playing = stream is not None and (stream.speaking or stream.queued_utterances > 0)
        if self.callend.armed and not playing:  # the goodbye cannot be spoken: end now, not at a deadline
            self.mailbox.post(EndNow())

    # ---- the dialogue loop ---------------------------------------------------------------------------------------
    async def run(self) -> None:
        watch_call(self.provider_notes)
        try:
            await self._setup()
            await self._handle(await self.driver.start(self.clock.monotonic()), {})
            await self._loop()
        except asyncio.CancelledError:
            self.ended_by = self.ended_by or "system"
            raise
        except Exception as exc:
            self.log.error("call_failed", error=str(exc), error_type=type(exc).__name__)
            self.ended_by = self.ended_by or "system"
            self.summary["error"] = str(exc)
        finally:
            await asyncio.shield(self.teardown())

    async def _setup(self) -> None:
        if self.direction == "inbound" and getattr(self.channel, "state", "") != "Up":
            await self.svc.ari.answer(self.call_id)
        await self.svc.records.call_answered(self.call_id, self.clock.now())
        await self.media.open()
        assert self.media.stream is not None
        self.speaker = Speaker(self.media.stream, self.svc.tts_for(self.route), self.policy.voice_segments,
                               on_error=self._on_tts_error)

    def _next_deadline(self, now: float) -> float:
        candidates = [now + IDLE_POLL_S]
        if self.driver.closed is None:  # once closing, the maximum length is no deadline any more (no busy loop)
            candidates.append(self._started_mono + self.max_call_s)
        for d in (self.callend.next_deadline(), self.driver.deadline()):
            if d is not None:
                candidates.append(d)
        return min(candidates)

    async def _loop(self) -> None:
        while not self.ended.is_set():
            now = self.clock.monotonic()
            event = await self.mailbox.next(max(0.0, self._next_deadline(now) - now))
            now = self.clock.monotonic()
            match event:
                case CallerGone(who=who):  # hung up, or (system) the channel vanished with Asterisk
                    self._finish(who, "caller_hung_up" if who == "caller" else CHANNEL_LOST)
                    return
                case UtteranceHeard(utterance=utt):
                    await self._utterance(utt)
                case DtmfPressed(digit=digit) if not self.callend.armed:
                    self._last_activity = now
                    await self._handle(await self.driver.dtmf(digit, now), {})
                case TransferDue():
                    if await transfer(self):
                        return
                case EndNow():
                    self.callend.line_lost(now)
                case ShutdownRequested():
                    await self._forced_end("shutdown", now)
                case _:
                    pass  # a wake-up or a timeout: the timers below
            for turn in [] if self.callend.armed else await self.driver.due(self.clock.monotonic()):
                await self._handle(turn, {"hold_ms": turn.held_ms})
            if self.clock.monotonic() - self._started_mono >= self.max_call_s:
                await self._forced_end("max_call_length", self.clock.monotonic())
            verdict = self.callend.poll(self.clock.monotonic())
            if verdict is not None:
                self.summary["end_fired"] = self.callend.fired
                self.log.info("callend_fired", fired=self.callend.fired, reason=self.callend.reason,
                              after_arm_s=round(self.clock.monotonic() - (self.callend.armed_at or now), 2))
                await self._hang_up(verdict)
                return
            await self._maybe_idle(self.clock.monotonic())

    async def _utterance(self, ev: UtteranceEnded) -> None:
        stt = self.svc.stt_for(self.route)
        timings: dict[str, float] = {"eou_ms": (ev.detected_at - ev.speech_ended_at) * 1000}
        if self.driver.closed or self.callend.armed:  # said over (or after) an ending line: not a turn
            self.log.info("utterance_after_close", seconds=round(len(ev.audio) / SAMPLE_RATE, 2),
                          closing=self.driver.closed or self.callend.reason)
            self.summary["utterances_after_close"] = self.summary.get("utterances_after_close", 0) + 1
            return
        self.turn_log.speech_ended(ev.speech_ended_at)
        if stt is None:
            self.log.debug("utterance_ignored_no_stt", seconds=round(len(ev.audio) / SAMPLE_RATE, 2))
            return
        text, turns = await self.early_turn.decide(ev, self.hearing.transcribe(stt, ev, timings), timings)
        if text is None:
            if self.hearing.given_up:
                await self._forced_end(STT_UNAVAILABLE, self.clock.monotonic())
            else:
                await self._handle(await self.driver.not_heard(self.clock.monotonic()), timings)
            return
        for turn in turns:  # the driver's turns ([]: withdrawn while deciding)
            await self._handle(turn, timings)
        self.early_turn.answered(ev)

    async def _maybe_idle(self, now: float) -> None:
        busy = (self.speaker is not None and self.speaker.busy) or self.listener.segmenter.in_speech or self.driver.pending
        if busy or self.callend.armed or now - self._last_activity < self.idle_timeout_s:
            return
        self._last_activity = now
        await self._handle(await self.driver.silence(now), {})

    async def _forced_end(self, reason: str, now: float) -> None:
        """The runtime ends the call: the policy's closing line, no new turn (an ending line playing ends it)."""
        if self.callend.armed:
            self.driver.closed = self.driver.closed or reason
            return
        turn = await self.driver.forced_end(reason, now)
        if turn is None:
            return
        self.log.info("call_closing", reason=reason)
        if self.speaker is not None:
            self.speaker.cut()
        await self._handle(turn, {})

    async def _handle(self, turn: Turn | None, timings: dict[str, float]) -> None:
        if turn is None:
            return
        outcome, reply = turn.outcome, turn.reply
        if turn.caller is not None:
            level = "info" if self.log_transcripts else "debug"
            getattr(self.log, level)("caller_said", text=turn.caller)
        self.svc.metrics.turns_total.labels(route=self.route.name).inc()
        for call in outcome.tool_calls:
            if not call.allowed:
                state = str(reply.fields.get(self.policy.state_field) or "")
                self.svc.metrics.tool_calls_denied_total.labels(tool=call.name, state=state).inc()
        if reply.disposition:
            self.disposition = reply.disposition
        if reply.hang_up:
            self.callend.arm(reply.hang_up_reason or "policy", self.clock.monotonic(), expected_line_s(reply.text))
        utterance_id, said_at = None, None
        streamed, self._streamed = self._streamed, None
        if reply.text and self.speaker is not None:
            self.log.info("bot_says", text=reply.text, language=reply.language)
            if streamed is not None and streamed.speaks(reply.text, reply.language):
                utterance_id, said_at = streamed.finish(), streamed.started_at  # already being spoken
            else:
                utterance_id = self.speaker.say(reply.text, reply.language, cache=outcome.timings.get("model_ms", 0) == 0)
        else:
            if streamed is not None:
                streamed.abandon()
            if reply.hang_up:  # an ending with no line: nothing to wait for
                self.mailbox.post(EndNow())
        if reply.transfer:
            if utterance_id is None:
                self.mailbox.post(TransferDue())
            self._pending_transfer = utterance_id
        await self.turn_log.add(turn.caller, outcome, timings, utterance_id, said_at=said_at)
        if self.svc.observer is not None:
            self.svc.observer(self, turn)

    def _streamed_speech(self, language: str) -> StreamedReply | None:
        self._streamed = StreamedReply(self.speaker, language) if self.speaker is not None else None
        return self._streamed

    async def _hang_up(self, who: str) -> None:
        self._finish(who, None)
        try:
            await self.svc.ari.hangup(self.call_id)
        except Exception as exc:  # already gone is fine
            self.log.info("hangup_ignored", error=str(exc))

    def _finish(self, who: str, disposition: str | None) -> None:
        if self.callend.record_ended_by(who) or self.ended_by is None:
            self.ended_by = self.callend.ended_by or who
        if disposition and (self.disposition is None or disposition in ("handoff", CHANNEL_LOST)):
            self.disposition = disposition
        self.ended.set()

    # ---- teardown --------------------------------------------------------------------------------------------------
    async def teardown(self) -> None:
        if self._torn_down:
            return
        self._torn_down = True
        self.ended.set()
        ended_by = self.ended_by or "system"
        if self.speaker is not None:
            self.speaker.cut()
        self.prefetch.drop()  # a request sent ahead and not taken is closed now, not by its timer after the hang-up
        await self.early_stt.aclose()  # and a streaming STT's connection closed
        await self.media.close()
        await write_call_record(self, ended_by)
