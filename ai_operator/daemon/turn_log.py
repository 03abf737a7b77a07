"""Turn records and per-turn latency of one call.

A turn's record is written when its reply's first RTP frame has gone out (that is when the last stage,
`first_rtp_ms`, is known), or at once when the reply has no audio. Latency stages, in ms: `eou_ms` (caller
speech end -> VAD end of utterance), `stt_ms`, `hold_ms` (turn boundary), `policy_ms`, `kb_ms`, `model_ms`,
`tts_first_chunk_ms` (the reply handed to the speaker -> its first audible chunk), `playout_ms` (that chunk ->
its first RTP frame out: the pacer's next tick), `other_ms` (what no stage holds: queueing between them),
`first_rtp_ms` (caller speech end -> first RTP frame out) and `bridge_ms`, our own share: first_rtp minus the
end-of-utterance wait that applied (the configured silence, or the pause of a turn the policy ended early), STT,
model, TTS and a deliberate hold - or, for a reply held until the caller had been silent `release_ms` (an early
or speculative turn, `early_turn.py`), that less a frame (the clock's slack of a hold counted in the caller's frames),
when it was longer. The stages of `TURN_STAGES` add up to `first_rtp_ms`, so a slow turn says where
it was slow (the record and `/metrics` `turn_stage_seconds`).
"""

from __future__ import annotations

import asyncio
from typing import TYPE_CHECKING, Any

from ai_operator.clock import Clock, SystemClock
from ai_operator.conversation import TurnOutcome
from ai_operator.media.frames import FRAME_MS
from ai_operator.stats import percentile
from ai_operator.storage.record_types import TurnRecord

if TYPE_CHECKING:
    from ai_operator.ops.metrics import Metrics
    from ai_operator.storage.records import RecordStore

_STAGE_FOR_METRIC = {
    "eou_ms": "vad",
    "stt_ms": "stt",
    "hold_ms": "hold",
    "policy_ms": "policy",
    "kb_ms": "kb",
    "model_ms": "model",
    "tts_first_chunk_ms": "tts_first_frame",
    "playout_ms": "playout",
    "other_ms": "other",
    "first_rtp_ms": "first_rtp",
    "bridge_ms": "bridge",
}
_ONLY_WHEN_TAKEN = frozenset({"hold_ms", "kb_ms", "model_ms"})  # 0 = the turn had no such stage: not observed
# caller speech end -> first RTP frame out, in order; they add up to first_rtp_ms
TURN_STAGES = ("eou_ms", "stt_ms", "hold_ms", "policy_ms", "kb_ms", "model_ms", "tts_first_chunk_ms", "playout_ms",
               "other_ms")


def _p(values: list[float], q: float) -> float | None:
    value = percentile(values, q)
    return None if value is None else round(value, 1)


class TurnLog:
    """Builds and writes one call's turn records; keeps the latency figures for the call summary."""

    def __init__(
        self, call_id: str, *, records: RecordStore, metrics: Metrics, end_silence_ms: int, state_field: str,
        clock: Clock | None = None,
    ) -> None:
        self.clock: Clock = clock or SystemClock()  # the call's (the playout events' times are on it)
        self.call_id = call_id
        self.records = records
        self.metrics = metrics
        self.end_silence_ms = end_silence_ms
        self.state_field = state_field
        self.seq = 0
        self._pending: dict[str, tuple[TurnRecord, dict[str, float], float | None, float]] = {}
        self._speech_end: float | None = None
        self._writes: set[asyncio.Task[None]] = set()
        self._early: dict[str, tuple[float, float | None]] = {}  # first frames out before their turn was added
        self.first_rtp: list[float] = []
        self.bridge: list[float] = []

    def speech_ended(self, at: float) -> None:
        """The caller's last speech frame of the utterance being handled (monotonic)."""
        self._speech_end = at

    async def add(self, caller: str | None, outcome: TurnOutcome, timings: dict[str, float], utterance_id: str | None,
                  *, said_at: float | None = None) -> None:
        """`said_at`: when the reply went to the speaker (monotonic), if before now (a streamed model answer)."""
        reply = outcome.reply
        t = {**timings, **{k: round(v, 3) for k, v in outcome.timings.items()}}
        speech_end = self._speech_end if "stt_ms" in timings else None
        if speech_end is not None:
            self._speech_end = None
        self.seq += 1
        fields = dict(reply.fields)
        record = TurnRecord(
            call_id=self.call_id,
            seq=self.seq,
            at=self.clock.now(),
            caller_text=caller,
            bot_text=reply.text,
            state=str(fields.get(self.state_field) or "") or None,
            fields={**fields, "hang_up": reply.hang_up, "transfer": reply.transfer, "language": fields.get("language", reply.language)},
            tool_calls=[c.as_dict() for c in outcome.tool_calls],
            timings=t,
        )
        if utterance_id is None:
            await self._write(record)
        else:
            self._pending[utterance_id] = (record, t, speech_end, said_at or self.clock.monotonic())  # just after say
            early = self._early.pop(utterance_id, None)
            if early is not None:
                self.first_frame_sent(utterance_id, *early)

    def withdraw(self, seq: int) -> int:
        """Forget the turns added after turn `seq` whose reply was not heard yet (an early decision withdrawn:
        `early_turn.py`); returns how many. Their numbers are given again unless one of them was written already."""
        dropped = [uid for uid, entry in self._pending.items() if entry[0].seq > seq]
        for uid in dropped:
            del self._pending[uid]
        if self.seq - seq == len(dropped):
            self.seq = seq
        return len(dropped)

    def first_frame_sent(self, utterance_id: str, at: float | None, tts_first_chunk_ms: float | None = None) -> None:
        """Playout sent the first frame of `utterance_id` at `at` (None: it never will, e.g. TTS failed);
        `tts_first_chunk_ms`: how long the TTS took to its first audible chunk."""
        entry = self._pending.pop(utterance_id, None)
        if entry is None:
            if at is not None:  # a streamed answer can start playing before its turn is complete
                self._early[utterance_id] = (at, tts_first_chunk_ms)
            return
        record, t, speech_end, said_at = entry
        if tts_first_chunk_ms is not None:
            t["tts_first_chunk_ms"] = round(tts_first_chunk_ms, 3)
        if at is not None and speech_end is not None:
            first = (at - speech_end) * 1000
            t["playout_ms"] = round(max(0.0, (at - said_at) * 1000 - t.get("tts_first_chunk_ms", 0.0)), 3)
            t["other_ms"] = round(first - sum(t.get(k, 0.0) for k in TURN_STAGES if k != "other_ms"), 3)
            # the end-of-turn wait this turn had: the full silence, or the shorter pause of a turn ended early
            silence = min(self.end_silence_ms, t.get("eou_ms", self.end_silence_ms))
            work = silence + sum(t.get(k, 0.0) for k in ("stt_ms", "model_ms", "tts_first_chunk_ms", "hold_ms"))
            # a reply held for the caller's silence waited that, counted in the caller's frames: the frame that ends
            # it may be read (before a tick's sends) up to a frame sooner by the clock than the last speech frame was
            held = t.get("release_ms", 0.0)
            own = first - max(work, held - FRAME_MS if held else 0.0)
            t["first_rtp_ms"] = round(first, 3)
            t["bridge_ms"] = round(own, 3)
            self.first_rtp.append(first)
            self.bridge.append(own)
        task = asyncio.get_running_loop().create_task(self._write(record))
        self._writes.add(task)
        task.add_done_callback(self._writes.discard)

    async def _write(self, record: TurnRecord) -> None:
        for key, stage in _STAGE_FOR_METRIC.items():
            if key in record.timings and (record.timings[key] or key not in _ONLY_WHEN_TAKEN):
                self.metrics.observe_stage(stage, max(0.0, record.timings[key]) / 1000)
        await self.records.turn(record)

    async def close(self) -> None:
        """Write what is still waiting for a first frame (the call ended first)."""
        for utterance_id in list(self._pending):
            self.first_frame_sent(utterance_id, None)
        if self._writes:
            await asyncio.gather(*self._writes, return_exceptions=True)

    def summary(self) -> dict[str, Any]:
        return {
            "turns": self.seq,
            "first_rtp_p50_ms": _p(self.first_rtp, 50),
            "first_rtp_p95_ms": _p(self.first_rtp, 95),
            "bridge_p95_ms": _p(self.bridge, 95),
        }
