"""The policy ends the turn: a caller's utterance ended at a short pause when the policy says it is complete, and
the decision withdrawn if the caller goes on before its reply is heard.

The end of an utterance is `VAD_END_SILENCE_MS` of silence (600 ms), too long after a one-word answer. At
`VAD_EARLY_STT_MS` (240 ms) the utterance so far is transcribed (`early_stt.py`); when that transcript is made while
the caller is still silent, the bot is quiet and the policy's `utterance_complete` says True for it (with a held
fragment and a withdrawn text before it), `EarlyTurn` ends the utterance there (the segmenter's end, forced) and
the call decides and answers it as any other, on that same transcript (no second STT request). Its reply is
prepared at once; with `VAD_EARLY_REPLY_MS` its first frame waits until that much silence has passed, so a caller
who paused shorter than that and goes on is withdrawn from, never half-answered.

Before deciding, the session, the turn holder, the call's end and transfer state and the turn log's position are
saved. If the caller starts speaking again (`SpeechBegan`) before the reply's first frame went out - and before
the normal end silence would have ended the utterance anyway - the decision is WITHDRAWN: the speaker is cut
(a model answer still streaming stops), everything saved is restored, the turn's record (still waiting for its
first frame) is dropped and any hang-up or transfer it armed with it, and the withdrawn text is put before the
next utterance's transcript, which is then decided whole: no double answer, no lost words. Once the reply's
first frame is out, the normal barge-in rules apply. Counted: `ai_operator_early_turns_total{outcome="decided"|
"withdrawn"}` and the call summary's `early_turns`; their extra STT requests are `early_stt`'s "wasted" ones.

Speculative turns (`VAD_SPECULATE`): when the policy says neither complete nor dangling (None: a question, a
handoff, a goodbye), the turn is decided at the pause all the same - its knowledge-base search, model request and
TTS run inside the end silence - but its first frame is held until `VAD_END_SILENCE_MS` has passed since the
caller's last speech, the moment the normal rule would have ended the utterance, so what the caller hears is what
it would have been, only sooner. Every hold counts the caller's line in its own frames (`_holding`): the reply
waits until that much silence has been heard, and while new speech is starting there (the segmenter's
`starting`), so a frame of new speech is never still on its way when the reply starts. Counted apart: `ai_operator_speculative_turns_total{outcome}` and the summary's
`speculative_turns`; what withdrawn decisions of either kind had asked for, `ai_operator_early_turn_requests_
wasted_total{request="kb"|"model"}` and the summary's `early_turns_wasted`.

With a streaming STT (`VAD_EARLY_PARTIAL`) the text the turn was ended on is the stream's partial; its final
transcript comes 150-250 ms after the pause's commit. The turn is decided on the partial at once (`decide`), the
final awaited meanwhile, and the reply held until the final says the same words (case, punctuation aside): then
it goes as decided, recorded with the final's words. When the final says otherwise (or recognition failed), the
decision is withdrawn as above - speaker cut, model stream stopped, everything restored, its requests counted as
wasted, nothing heard - and the final is decided instead, with the hold the policy's verdict on it asks for
(counted: `ai_operator_early_stt_total{outcome="partial_redone"}`).
"""

from __future__ import annotations

import asyncio
import copy
import dataclasses
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from math import ceil
from typing import Any

from ai_operator.config.schema import VadSettings
from ai_operator.daemon.early_stt import call_counter
from ai_operator.dialogue import utterance_complete
from ai_operator.media.frames import FRAME_MS
from ai_operator.media.listener import Heard
from ai_operator.media.vad import UtteranceEnded
from ai_operator.turn_driver import Turn


@dataclass
class _Decision:
    """An early decision whose reply the caller has not heard yet, and what to restore if it is withdrawn."""

    ended: UtteranceEnded
    text: str
    saved: dict[str, Any] = field(default_factory=dict)
    speculative: bool = False  # the policy did not say complete: held until the normal end silence
    requests: tuple[str, ...] = ()  # what deciding it asked for ("kb", "model"): wasted if it is withdrawn
    deciding: bool = True  # the policy (and its knowledge base or model) is still working on it
    withdrawn: bool = False
    unconfirmed: bool = False  # decided on a streaming partial: its reply waits for the final to say the same
    started: dict[str, int] = field(default_factory=dict)  # the conversation's requests begun before it
    restored: bool = False


class EarlyTurn:
    """One call's early ends of turn (`call` is a `daemon.call.Call`); off unless `VAD_EARLY_TURN` and
    `VAD_EARLY_STT_MS` say otherwise."""

    def __init__(self, call: Any, vad: VadSettings) -> None:
        self.call = call
        enabled = self.enabled = vad.early_turn and vad.early_stt_ms > 0
        self.speculate = vad.speculate
        self.end_silence_s = vad.end_silence_ms / 1000
        self.reply_s = vad.early_reply_ms / 1000  # the reply starts no sooner than this after the last speech
        self.carried = ""  # the text of a withdrawn decision: said before the next utterance
        self._forced: UtteranceEnded | None = None  # ended here, its decision not started yet
        self._gone_on: UtteranceEnded | None = None  # that one, when the caller went on before it was decided
        self._speculative = False  # that one was ended on a None (held until the normal end silence)
        self._last_speech_frame = 0  # the segmenter's count of frames at that one's last speech frame
        self._open: _Decision | None = None
        self.counts = {"decided": 0, "withdrawn": 0}
        self.speculative = {"decided": 0, "withdrawn": 0}
        self.wasted = {"kb": 0, "model": 0}
        # with a streaming STT, decide on the transcript the turn was ended on, checked against the final one
        self.on_partial = enabled and vad.early_partial and getattr(call.early_stt, "offers_partials", False)
        self._partial: str | None = None  # that transcript, for `_forced`
        self._on_partial: _Decision | None = None  # the decision made on it, until its final transcript came
        if enabled:
            call.early_stt.on_ready = self.transcript_ready

    # ---- at the pause: end the utterance? ------------------------------------------------------------------------
    def transcript_ready(self, text: str) -> None:
        """The transcript of the utterance so far was made at its pause (no speech since, or it is not current)."""
        call = self.call
        seg = call.listener.segmenter
        if seg.in_speech and seg.silent_frames < call.early_stt.pause_frames:  # the caller went on: not its end
            return
        complete = self.decidable(text)
        if complete is False:
            return  # dangling (or a fragment the turn holder would hold): the normal end of the utterance
        now = time.monotonic()
        last_speech_frame = seg.frames_seen - seg.silent_frames
        heard = call.listener.end_now(now)
        if heard is None:
            return
        if isinstance(heard, Heard):
            self._forced, self._gone_on, self._speculative = heard.utterance, None, complete is None
            self._partial = text.strip() if self.on_partial else None
            self._last_speech_frame = last_speech_frame
            call.log.info("early_turn", silence_ms=round((now - heard.utterance.speech_ended_at) * 1000),
                          speculative=complete is None)
        call._heard([heard], now)

    def decidable(self, text: str) -> bool | None:
        """Whether the utterance, ended now on the transcript `text`, would be decided at its pause: True (the
        policy says complete), None (neither: decided speculatively), False (not: dangling, or not now)."""
        call = self.call
        if self._open is not None or not call.listener.segmenter.in_speech:
            return False
        if call.speaker is None or call.speaker.busy or call.callend.armed or call.driver.closed:
            return False
        if call.svc.stt_for(call.route) is None:
            return False
        candidate = " ".join(t for t in (self.carried, call.driver.pending, text.strip()) if t)
        complete = utterance_complete(call.session, candidate)
        if complete is True or (complete is None and self.speculate
                                and not call.session.utterance_may_continue(candidate)):
            return complete
        return False

    # ---- deciding it --------------------------------------------------------------------------------------------
    async def decide(self, ended: UtteranceEnded, transcript: Awaitable[str | None],
                     timings: dict[str, float]) -> tuple[str | None, list[Turn]]:
        """The transcript of `ended` (None: recognition failed, and no turns) and the driver's turns for it. An
        utterance ended at its pause on a streaming transcript (`on_partial`) is decided on that text at once,
        while its final transcript comes: its reply is held until the final says the same words; when it does not
        (or recognition failed), that decision is withdrawn - nothing of it heard, its requests counted as wasted
        - and the final is decided instead (`ai_operator_early_stt_total{outcome="partial_redone"}`)."""
        partial, self._partial = self._partial, None
        if partial is None or ended is not self._forced:
            text = await transcript
            return text, ([] if text is None else await self.heard(ended, text))
        prefix, final_task = self.carried, asyncio.ensure_future(transcript)  # the final's STT first (`forced`)
        self._on_partial = None
        deciding = asyncio.ensure_future(self.heard(ended, partial, unconfirmed=True))
        try:
            final = await final_task
        except BaseException:
            deciding.cancel()
            raise
        decision, self._on_partial = self._on_partial, None
        said, heard = _joined(prefix, partial), _joined(prefix, final or "")
        if final is not None and decision is not None and same_words(partial, final):
            decision.unconfirmed = False  # the reply may go: the caller said what it was decided on
            timings["stt_final_ms"], timings["stt_ms"] = timings.get("stt_ms", 0.0), 0.0  # the turn did not wait
            turns = await deciding
            if decision.withdrawn:  # the caller went on (maybe while the final came): nothing of it is said, and
                self.carried = heard  # what they said is carried, as the final has it
                return final, []
            return final, [_as_said(t, said, heard) for t in turns]
        if decision is None or decision.withdrawn:  # the caller went on: the final's text is carried, not redone
            await deciding
            self.carried = heard if final is not None else self.carried
            return final, []
        await self._redo(decision, deciding)
        self.carried = prefix
        if final is None:
            return None, []
        candidate = " ".join(t for t in (prefix, self.call.driver.pending, final.strip()) if t)
        self._forced, self._speculative = ended, utterance_complete(self.call.session, candidate) is not True
        return final, await self.heard(ended, final)

    async def _redo(self, decision: _Decision, deciding: asyncio.Future[list[Turn]]) -> None:
        """A decision made on a partial that the final transcript did not confirm: stopped and undone."""
        decision.withdrawn = True
        self._stop_speaking()
        deciding.cancel()
        await asyncio.wait({deciding})  # (its own cancellation, not the caller's: that one still propagates)
        if not deciding.cancelled() and deciding.exception() is not None:  # withdrawn all the same: undone below
            self.call.log.warning("partial_decision_failed", error=str(deciding.exception()))
        if not decision.restored:
            started = self.call.conversation.requests_started
            decision.requests = tuple(r for r in ("kb", "model") if started[r] > decision.started.get(r, 0))
            self._restore(decision)
        call_counter(self.call)("partial_redone")

    async def heard(self, ended: UtteranceEnded, text: str, *, unconfirmed: bool = False) -> list[Turn]:
        """The driver's turns for the transcript `text` of `ended` (a withdrawn text before it); for an utterance
        ended early, saved first, and none when withdrawn while the policy was deciding. `unconfirmed`: `text` is
        a streaming partial, its reply held until `decide` has the final."""
        call = self.call
        text = " ".join(t for t in (self.carried, text.strip()) if t)
        self.carried = ""
        if ended is not self._forced:
            return list(await call.driver.heard(text, time.monotonic()))
        self._forced, speculative = None, self._speculative
        if ended is self._gone_on:  # the caller went on before the call got to it: withdrawn before deciding
            self._gone_on, self.carried = None, text
            self._count("decided", speculative)
            self._count("withdrawn", speculative)
            call.log.info("early_turn_withdrawn", records_dropped=0, speculative=speculative)
            return []
        decision = self._open = _Decision(ended, text, self._save(), speculative, unconfirmed=unconfirmed,
                                          started=dict(call.conversation.requests_started))
        if unconfirmed:
            self._on_partial = decision
        self._count("decided", speculative)
        release_s = self.end_silence_s if speculative else self.reply_s
        if call.speaker is not None and (release_s or unconfirmed):
            # the clock is read when a frame is handled, anywhere in its tick (the receive pass, or before the
            # sends for a held reply): a frame's slack, the count of the caller's own frames being what holds it
            until = ended.speech_ended_at + release_s - FRAME_MS / 1000
            call.speaker.hold_next(until, self._holding(release_s),
                                   (lambda: not decision.unconfirmed) if unconfirmed else None)
        turns = await call.driver.heard(text, time.monotonic())
        decision.deciding = False
        decision.requests = requests_made(turns)
        for turn in turns:  # its record's own share is judged against the silence the reply waited for
            turn.outcome.timings["release_ms"] = release_s * 1000
        if decision.withdrawn:
            self._restore(decision)
            return []
        return list(turns)

    def _holding(self, release_s: float) -> Callable[[], bool]:
        """Past its time, a held reply waits until the caller's line has been heard that long after the last
        speech - counted in its own frames, so a frame of new speech is never still on its way when the reply
        starts - and while new speech may be starting there."""
        segmenter = self.call.listener.segmenter
        release_frame = self._last_speech_frame + ceil(release_s * 1000 / FRAME_MS)
        return lambda: segmenter.frames_seen < release_frame or segmenter.starting

    def forced(self, ended: UtteranceEnded) -> bool:
        """`ended` was ended here, at its pause, and is being decided on the transcript made there."""
        return ended is self._forced

    def answered(self, ended: UtteranceEnded) -> None:
        """The turns of `ended` were handled: with nothing to be heard, there is nothing to withdraw."""
        decision, speaker = self._open, self.call.speaker
        if decision is not None and decision.ended is ended and not (speaker and speaker.busy):
            self._open = None
            if speaker is not None:
                speaker.hold_next(None)

    def first_frame(self) -> None:
        """A reply's first frame went out: the caller hears the answer; barge-in rules from now on."""
        self._open = None
        if self.call.speaker is not None:
            self.call.speaker.hold_next(None)

    # ---- the caller goes on -------------------------------------------------------------------------------------
    def speech_began(self, at: float) -> None:
        """The caller started speaking at `at`: an early decision not heard yet is withdrawn (when the normal end
        silence would have ended the utterance before `at`, it is a new utterance, as it would have been)."""
        decision, self._open = self._open, None
        forced = self._forced
        if decision is None and forced is not None and at < forced.speech_ended_at + self.end_silence_s:
            self._gone_on = forced  # ended early, not decided yet (the call's loop was busy): it will not be
        if decision is None or at >= decision.ended.speech_ended_at + self.end_silence_s:
            return
        decision.withdrawn = True
        self._stop_speaking()
        if not decision.deciding:
            self._restore(decision)

    def _stop_speaking(self) -> None:
        call = self.call
        if call.speaker is not None:
            call.speaker.cut()
        if call._streamed is not None:
            call._streamed.stopped = True

    def _save(self) -> dict[str, Any]:
        call = self.call
        return {
            "session": copy.deepcopy(vars(call.session)),
            "holder": dict(vars(call.driver.holder)),
            "callend": copy.deepcopy(vars(call.callend)),
            "disposition": call.disposition,
            "pending_transfer": call._pending_transfer,
            "seq": call.turn_log.seq,
        }

    def _restore(self, decision: _Decision) -> None:
        call, saved = self.call, decision.saved
        decision.restored = True
        for target, key in ((call.session, "session"), (call.driver.holder, "holder"), (call.callend, "callend")):
            vars(target).clear()
            vars(target).update(saved[key])
        if call.listener.segmenter.in_speech:
            call.driver.caller_speaking_again()  # a held fragment waits for this speech, as before
        if call.speaker is not None:
            call.speaker.hold_next(None)  # a hold set for the withdrawn reply is not the next one's
        call.disposition = saved["disposition"]
        call._pending_transfer = saved["pending_transfer"]
        if call._streamed is not None:
            call._streamed.stopped = True
            call._streamed = None
        dropped = call.turn_log.withdraw(saved["seq"])
        self.carried = decision.text
        self._count("withdrawn", decision.speculative)
        metrics = call.svc.metrics
        for request in decision.requests:
            self.wasted[request] += 1
            metrics.early_turn_requests_wasted_total.labels(request=request).inc()
        if decision.requests:
            call.summary["early_turns_wasted"] = dict(self.wasted)
        call.log.info("early_turn_withdrawn", records_dropped=dropped, speculative=decision.speculative,
                      wasted=list(decision.requests))

    def _count(self, outcome: str, speculative: bool) -> None:
        metrics = self.call.svc.metrics
        if speculative:
            self.speculative[outcome] += 1
            self.call.summary["speculative_turns"] = dict(self.speculative)
            metrics.speculative_turns_total.labels(outcome=outcome).inc()
        else:
            self.counts[outcome] += 1
            self.call.summary["early_turns"] = dict(self.counts)
            metrics.early_turns_total.labels(outcome=outcome).inc()


def requests_made(turns: list[Turn]) -> tuple[str, ...]:
    """The knowledge-base searches and model requests deciding `turns` made (one entry per turn that made one)."""
    out: list[str] = []
    for turn in turns:
        timings = turn.outcome.timings
        out += ["kb"] * (timings.get("kb_ms", 0.0) > 0) + ["model"] * ("model_total_ms" in timings)
    return tuple(out)


def _as_said(turn: Turn, partial: str, final: str) -> Turn:
    """`turn` recorded with the final transcript's words where it has the partial's (a held fragment before)."""
    caller = turn.caller
    if caller is None or not caller.endswith(partial) or partial == final:
        return turn
    return dataclasses.replace(turn, caller=caller[: len(caller) - len(partial)] + final)


def _joined(*texts: str) -> str:
    return " ".join(t.strip() for t in texts if t.strip())


_NOT_WORD = re.compile(r"[^\w]+")


def same_words(a: str, b: str) -> bool:
    """Two transcripts say the same words: case, punctuation and spacing aside."""
    def words(text: str) -> list[str]:
        return _NOT_WORD.sub(" ", text.lower()).split()

    return words(a) == words(b)
