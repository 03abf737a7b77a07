"""One call, from `StasisStart` to teardown: ARI set-up, the media path, the turn loop, CallEnd, records.

Audio in (RTP) -> VAD segmenter -> (barge-in check) -> STT -> turn holder -> policy (`Conversation`) -> TTS ->
playout. The audio callback is synchronous and cheap; everything slow runs in the call's turn loop, which also
owns the timers (idle re-prompt, turn-boundary hold, CallEnd grace and watchdog). Teardown runs on every path
and releases the bridge, the externalMedia channel, the RTP port and the policy session exactly once.
"""

from __future__ import annotations

import asyncio
import time
from datetime import UTC, datetime
from typing import Any

import numpy as np

from ai_operator.callend import CallEnd
from ai_operator.config import Route
from ai_operator.conversation import Conversation, TurnOutcome
from ai_operator.daemon.services import CallTuning, Services
from ai_operator.daemon.speaker import Speaker
from ai_operator.daemon.turn_log import TurnLog
from ai_operator.logs import get_logger
from ai_operator.media.bargein import BargeInDetector
from ai_operator.media.playout import PlayoutEvent, PlayoutStream
from ai_operator.media.transport import RtpEndpoint
from ai_operator.media.vad import SpeechStarted, UtteranceEnded, UtteranceSegmenter
from ai_operator.turns import TurnHolder
from ai_operator.wiring import new_session

log = get_logger("call")

EXTERNAL_MEDIA_STASIS_TIMEOUT_S = 5.0
IDLE_POLL_S = 1.0
SHUTDOWN_LINES = {
    "ru": "Извините, сервис временно недоступен. Пожалуйста, перезвоните позже. До свидания.",
    "kk": "Кешіріңіз, қызмет уақытша қолжетімсіз. Кейінірек қайта қоңырау шалыңыз. Сау болыңыз.",
    "hi": "माफ़ कीजिए, अभी लाइन बंद करनी पड़ रही है। हम बाद में फिर से कॉल करेंगे। धन्यवाद।",
}


class Call:
    """A live call on `route`. `run()` is the whole life of the call; the manager feeds it ARI events."""

    def __init__(self, svc: Services, channel: Any, route: Route, *, direction: str = "inbound", load: str | None = None):
        self.svc = svc
        self.channel = channel
        self.call_id: str = channel.id
        self.route = route
        self.direction = direction
        self.tuning = CallTuning.from_settings(svc.settings)
        self.log = log.bind(call_id=self.call_id, route=route.name)
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()
        self.callend = CallEnd(self.tuning.watchdog_s, self.tuning.grace_s)
        model = svc.model_for(route)
        self.session = new_session(route, self.call_id, load=load, model_available=model is not None)
        self.conversation = Conversation(
            self.session, knowledge=svc.knowledge, model=model, log_context={"route": route.name}
        )
        self.holder = TurnHolder(self.session.utterance_may_continue, self.session.hold_s)
        self.segmenter = UtteranceSegmenter(
            self.tuning.vad_aggressiveness,
            self.tuning.vad_start_ms,
            self.tuning.vad_end_silence_ms,
            self.tuning.vad_max_utterance_s,
        )
        self.bargein = BargeInDetector(self.tuning.barge_in_ms)
        self.turns = TurnLog(self, svc)
        self.endpoint: RtpEndpoint | None = None
        self.stream: PlayoutStream | None = None
        self.speaker: Speaker | None = None
        self.bridge_id: str | None = None
        self.em_channel_id = f"{self.call_id}-media"
        self.em_started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.ended = asyncio.Event()
        self.ended_by: str | None = None
        self.disposition: str | None = None
        self.summary: dict[str, Any] = {}
        self.language = "ru"
        self._last_activity = time.monotonic()
        self._speech_during_bot = False
        self._barged = False
        self._pending_transfer: str | None = None
        self._torn_down = False
        self.started_at = datetime.now(UTC)

    # ---- events from the manager (ARI) -------------------------------------------------------------------
    def on_external_media_started(self) -> None:
        if not self.em_started.done():
            self.em_started.set_result(None)

    def on_caller_gone(self, who: str = "caller") -> None:
        self.queue.put_nowait(("gone", who))

    def on_dtmf(self, digit: str) -> None:
        self.queue.put_nowait(("dtmf", digit))

    def shutdown(self) -> None:
        """Daemon stopping after the drain timeout: a closing line through CallEnd."""
        self.queue.put_nowait(("shutdown", None))

    # ---- set-up --------------------------------------------------------------------------------------------
    async def _setup(self) -> None:
        svc, ari = self.svc, self.svc.ari
        if self.direction == "inbound" and getattr(self.channel, "state", "") != "Up":
            await ari.answer(self.call_id)
        await svc.records.call_answered(self.call_id, datetime.now(UTC))
        self.endpoint = await RtpEndpoint.open(svc.ports, svc.codec, self._on_audio)
        bridge = await ari.create_bridge("mixing", name=f"ai-operator-{self.call_id}")
        self.bridge_id = bridge.id
        host, port = self.endpoint.local_address
        em = await ari.external_media(
            svc.settings.ARI_APP, f"{host}:{port}", svc.codec.name, channel_id=self.em_channel_id
        )
        # The externalMedia channel enters Stasis asynchronously: wait for its own StasisStart before addChannel.
        await asyncio.wait_for(self.em_started, EXTERNAL_MEDIA_STASIS_TIMEOUT_S)
        await ari.add_channel(self.bridge_id, [self.call_id, self.em_channel_id])
        addr = em.var("UNICASTRTP_LOCAL_ADDRESS") or await ari.get_channel_var(self.em_channel_id, "UNICASTRTP_LOCAL_ADDRESS")
        rport = em.var("UNICASTRTP_LOCAL_PORT") or await ari.get_channel_var(self.em_channel_id, "UNICASTRTP_LOCAL_PORT")
        self.endpoint.set_remote(addr, int(rport))
        self.stream = PlayoutStream(
            svc.codec, self.endpoint.send_frame, on_event=self._on_playout, on_frame=self.bargein.note_bot_power
        )
        svc.pacer.add(self.stream)
        self.speaker = Speaker(self.stream, svc.tts_for(self.route), on_error=self._on_tts_error)
        self.log.info("call_media_ready", local_rtp=f"{host}:{port}", asterisk_rtp=f"{addr}:{rport}", codec=svc.codec.name)

    # ---- the audio path (synchronous, per 20 ms frame) ------------------------------------------------------
    def _on_audio(self, frame: np.ndarray) -> None:
        now = time.monotonic()
        bot_speaking = self.stream is not None and self.stream.speaking
        for ev in self.segmenter.feed(frame, now):
            if isinstance(ev, SpeechStarted):
                self._last_activity = now
                self.holder.continuation_started()
                self._speech_during_bot = bot_speaking
                self._barged = False
            elif isinstance(ev, UtteranceEnded):
                self._last_activity = now
                if self._speech_during_bot and not self._barged:
                    continue  # echo or noise under the bot's own voice: not a turn
                self.queue.put_nowait(("utterance", ev))
        if bot_speaking and self.bargein.feed(self.segmenter.last_frame_speech, frame, True):
            self._barge_in(now)
        self.svc.pacer.poll()  # a frame due during a burst of incoming RTP goes out now, not after the burst

    def _barge_in(self, now: float) -> None:
        self._barged = True
        cut = self.speaker.cut() if self.speaker else None
        self.callend.on_barge_in(now)
        self.log.info("barge_in", utterance=cut)
        self.queue.put_nowait(("wake", None))

    def _on_playout(self, ev: PlayoutEvent) -> None:
        if ev.kind == "started":
            self.callend.on_bot_started(ev.at, ev.at)
            self.turns.first_frame_sent(ev.utterance_id, ev.at)
        else:
            self.callend.on_bot_stopped(ev.at, ev.interrupted)
            self._last_activity = ev.at
            self.bargein.reset()
            if self._pending_transfer == ev.utterance_id:
                self.queue.put_nowait(("transfer", None))
        self.queue.put_nowait(("wake", None))

    def _on_tts_error(self, utterance_id: str, exc: Exception) -> None:
        self.log.error("tts_failed", utterance=utterance_id, error=str(exc))
        self.svc.metrics.adapter_errors_total.labels(adapter="tts").inc()
        self.turns.first_frame_sent(utterance_id, None)
        if self.callend.armed:  # the goodbye cannot be spoken: end now rather than at the watchdog
            self.queue.put_nowait(("end_now", None))

    # ---- the turn loop -----------------------------------------------------------------------------------------
    async def run(self) -> None:
        try:
            await self._setup()
            await self._handle(await self.conversation.start(), None, {})
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

    def _next_deadline(self) -> float:
        now = time.monotonic()
        candidates = [now + IDLE_POLL_S]
        for d in (self.callend.next_deadline(), self.holder.deadline()):
            if d is not None:
                candidates.append(d)
        return min(candidates)

    async def _loop(self) -> None:
        while not self.ended.is_set():
            timeout = max(0.0, self._next_deadline() - time.monotonic())
            try:
                kind, payload = await asyncio.wait_for(self.queue.get(), timeout)
            except TimeoutError:
                kind, payload = "tick", None
            now = time.monotonic()
            if kind == "gone":  # the caller hung up, or (system) the channel vanished with an Asterisk restart
                self._finish(payload, "caller_hung_up" if payload == "caller" else "channel_lost")
                return
            if kind == "utterance":
                await self._utterance(payload)
            elif kind == "dtmf":
                self._last_activity = now
                await self._handle(await self.conversation.dtmf(payload), f"[dtmf {payload}]", {})
            elif kind == "transfer":
                await self._transfer()
                return
            elif kind == "end_now" and self.callend.armed:
                await self._hang_up("bot")
                return
            elif kind == "shutdown":
                await self._say_shutdown()
            for text in self.holder.poll(now):
                await self._decide(text, {"hold_ms": self.holder.hold_s * 1000})
            verdict = self.callend.poll(time.monotonic())
            if verdict is not None:
                await self._hang_up(verdict)
                return
            await self._maybe_idle(now)

    async def _utterance(self, ev: UtteranceEnded) -> None:
        stt = self.svc.stt_for(self.route)
        timings: dict[str, float] = {"eou_ms": (ev.detected_at - ev.speech_ended_at) * 1000}
        self.turns.speech_ended(ev.speech_ended_at)
        if stt is None:
            self.log.debug("utterance_ignored_no_stt", seconds=round(len(ev.audio) / 8000, 2))
            return
        t0 = time.perf_counter()
        try:
            hint = self.session.snapshot().get("language") or self.language
            text = await stt.transcribe(ev.audio, hint)
        except Exception as exc:
            timings["stt_ms"] = (time.perf_counter() - t0) * 1000
            self.log.warning("stt_failed", error=str(exc))
            self.svc.metrics.adapter_errors_total.labels(adapter="stt").inc()
            await self._handle(await self.conversation.not_heard(), "[not heard]", timings)
            return
        timings["stt_ms"] = (time.perf_counter() - t0) * 1000
        self.svc.metrics.adapter_latency_seconds.labels(adapter="stt").observe(timings["stt_ms"] / 1000)
        for decided in self.holder.feed(text, time.monotonic()):
            await self._decide(decided, timings)

    async def _decide(self, text: str, timings: dict[str, float]) -> None:
        self.log.info("caller_said", text=text)
        await self._handle(await self.conversation.utterance(text), text, timings)

    async def _maybe_idle(self, now: float) -> None:
        busy = (self.speaker is not None and self.speaker.busy) or self.segmenter.in_speech or self.holder.pending
        if busy or self.callend.armed or now - self._last_activity < self.tuning.idle_timeout_s:
            return
        self._last_activity = now
        await self._handle(await self.conversation.silence(), "[silence]", {})

    async def _handle(self, outcome: TurnOutcome, caller: str | None, timings: dict[str, float]) -> None:
        reply = outcome.reply
        self.language = reply.language or self.language
        self.svc.metrics.turns_total.labels(route=self.route.name).inc()
        for call in outcome.tool_calls:
            if not call.allowed:
                state = str(reply.fields.get("state") or reply.fields.get("phase") or "")
                self.svc.metrics.tool_calls_denied_total.labels(tool=call.name, state=state).inc()
        if reply.disposition:
            self.disposition = reply.disposition
        if reply.hang_up:
            self.callend.arm(reply.hang_up_reason or "policy", time.monotonic())
        utterance_id = None
        if reply.text and self.speaker is not None:
            self.log.info("bot_says", text=reply.text, language=reply.language)
            utterance_id = self.speaker.say(reply.text, reply.language, cache=outcome.timings.get("model_ms", 0) == 0)
        if reply.transfer:
            if utterance_id is None:
                self.queue.put_nowait(("transfer", None))
            self._pending_transfer = utterance_id
        await self.turns.add(caller, outcome, timings, utterance_id)
        if self.svc.observer is not None:
            self.svc.observer(self, caller, outcome)

    async def _say_shutdown(self) -> None:
        if self.callend.armed:
            return
        self.callend.arm("shutdown", time.monotonic())
        self.disposition = self.disposition or "shutdown"
        if self.speaker is not None:
            self.speaker.say(SHUTDOWN_LINES.get(self.language, SHUTDOWN_LINES["ru"]), self.language, cache=True)

    async def _transfer(self) -> None:
        target = self.route.option("HANDOFF")
        if not target:
            self.log.warning("handoff_unavailable", reason=f"ROUTE_{self.route.name.upper()}_HANDOFF is not set")
            self.callend.arm("handoff_unavailable", time.monotonic())
            await self._hang_up("bot")
            return
        try:
            if "/" in target:
                await self.svc.ari.redirect(self.call_id, target)
            else:
                parts = [p.strip() for p in target.split(",")]
                ctx, exten = parts[0], parts[1] if len(parts) > 1 else None
                prio = int(parts[2]) if len(parts) > 2 and parts[2] else None
                await self.svc.ari.continue_in_dialplan(self.call_id, context=ctx, extension=exten, priority=prio)
            self.summary["handoff"] = target
            self.log.info("handoff", target=target)
            self._finish("bot", "handoff")
        except Exception as exc:
            self.log.error("handoff_failed", target=target, error=str(exc))
            await self._hang_up("bot")

    async def _hang_up(self, who: str) -> None:
        self._finish(who, None)
        try:
            await self.svc.ari.hangup(self.call_id)
        except Exception as exc:  # already gone is fine
            self.log.info("hangup_ignored", error=str(exc))

    def _finish(self, who: str, disposition: str | None) -> None:
        if self.callend.record_ended_by(who) or self.ended_by is None:
            self.ended_by = self.callend.ended_by or who
        if disposition and (self.disposition is None or disposition == "handoff"):
            self.disposition = disposition
        self.ended.set()

    # ---- teardown ------------------------------------------------------------------------------------------------
    async def teardown(self) -> None:
        if self._torn_down:
            return
        self._torn_down = True
        self.ended.set()
        ended_by = self.ended_by or "system"
        if self.speaker is not None:
            self.speaker.cut()
        if self.stream is not None:
            self.svc.pacer.remove(self.stream)
        if self.endpoint is not None:
            self.endpoint.close()
        ari = self.svc.ari
        for action in (
            lambda: ari.destroy_bridge(self.bridge_id) if self.bridge_id else None,
            lambda: ari.hangup(self.em_channel_id),
        ):
            try:
                coro = action()
                if coro is not None:
                    await coro
            except Exception as exc:  # 404s after an Asterisk restart are expected
                self.log.debug("teardown_step_ignored", error=str(exc))
        self.session.on_call_ended(ended_by)
        snap = self.session.snapshot()
        disposition = self.disposition or snap.get("disposition") or ("caller_hung_up" if ended_by == "caller" else None)
        await self.turns.close()
        turn_summary = self.turns.summary()
        self.summary.update(turn_summary)
        await self.svc.records.call_ended(self.call_id, datetime.now(UTC), ended_by, disposition, self.summary)
        self.svc.metrics.calls_total.labels(route=self.route.name, disposition=disposition or "none").inc()
        self.log.info("call_ended", ended_by=ended_by, disposition=disposition, **turn_summary)
