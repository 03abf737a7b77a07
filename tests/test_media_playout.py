"""PlayoutStream + Pacer: RTP continuity, markers, events, flush, and a real-time no-drift check."""

from __future__ import annotations

import itertools

import numpy as np
import pytest

from ai_operator.media.codecs import FRAME_SAMPLES, get_codec
from ai_operator.media.pacer import Pacer
from ai_operator.media.playout import PlayoutEvent, PlayoutStream
from ai_operator.media.rtp import RtpPacket

FRAME_S = 0.02


class FakeClock:
    def __init__(self) -> None:
        self.t = 100.0

    def __call__(self) -> float:
        return self.t


def tone(n: int, value: int = 1000) -> np.ndarray:
    return np.full(n, value, dtype=np.int16)


def make(codec: str = "slin"):
    clock = FakeClock()
    sent: list[RtpPacket] = []
    events: list[PlayoutEvent] = []
    stream = PlayoutStream(
        get_codec(codec), lambda b: sent.append(RtpPacket.parse(b)), on_event=events.append, ssrc=1234, clock=clock
    )
    pacer = Pacer(clock=clock)
    pacer.add(stream)
    return clock, pacer, stream, sent, events


def run_ticks(clock: FakeClock, pacer: Pacer, n: int) -> None:
    for _ in range(n):
        pacer.tick(clock.t)
        clock.t += FRAME_S


def test_sequence_timestamp_and_marker_continuity_across_utterances_and_gaps() -> None:
    clock, pacer, stream, sent, events = make()
    stream.enqueue(tone(400, 1), "a")  # 2.5 frames -> 3 packets, last padded
    run_ticks(clock, pacer, 5)  # 3 sent + 2 silent ticks
    stream.enqueue(tone(320, 2), "b")
    stream.enqueue(tone(160, 3), "c")  # back to back after b
    run_ticks(clock, pacer, 4)
    assert len(sent) == 6
    seqs = [p.sequence_number for p in sent]
    assert all((b - a) % 65536 == 1 for a, b in itertools.pairwise(seqs))
    ts = [p.timestamp for p in sent]
    assert [(t - ts[0]) % 2**32 for t in ts] == [0, 160, 320, 800, 960, 1120]  # gap of 2 ticks = 320 samples
    assert [p.marker for p in sent] == [True, False, False, True, False, True]
    assert {p.ssrc for p in sent} == {1234}
    assert {p.payload_type for p in sent} == {10}
    last_a = np.frombuffer(sent[2].payload, dtype=">i2")
    assert last_a[:80].tolist() == [1] * 80 and last_a[80:].tolist() == [0] * 80  # padded with silence
    kinds = [(e.kind, e.utterance_id, e.interrupted) for e in events]
    assert kinds == [
        ("started", "a", False), ("stopped", "a", False),
        ("started", "b", False), ("stopped", "b", False),
        ("started", "c", False), ("stopped", "c", False),
    ]
    assert events[0].at == pytest.approx(100.0) and events[1].at == pytest.approx(100.04)
    assert stream.stats.frames_sent == 6 and not stream.speaking


def test_streamed_utterance_underrun_and_empty_final() -> None:
    clock, pacer, stream, sent, events = make("ulaw")
    stream.enqueue(tone(200), "s", final=False)
    run_ticks(clock, pacer, 1)
    assert stream.speaking and stream.current_utterance == "s"
    run_ticks(clock, pacer, 2)  # 40 samples left, not final: no partial frame, underruns
    assert len(sent) == 1 and stream.stats.underruns == 2 and pacer.underruns == 2
    stream.enqueue(tone(120), "s", final=False)  # 40 + 120 = one full frame
    run_ticks(clock, pacer, 1)
    assert len(sent) == 2 and sent[1].marker  # resumes after a gap: new talkspurt
    assert stream.speaking
    stream.enqueue(np.zeros(0, dtype=np.int16), "s", final=True)
    run_ticks(clock, pacer, 1)
    assert [e.kind for e in events] == ["started", "stopped"] and not stream.speaking


def test_enqueue_after_final_while_queued_is_an_error() -> None:
    _clock, _pacer, stream, _sent, _events = make()
    stream.enqueue(tone(320), "x", final=True)
    with pytest.raises(ValueError, match="'x' already ended"):
        stream.enqueue(tone(160), "x")
    with pytest.raises(TypeError, match="int16"):
        stream.enqueue(np.zeros(160, dtype=np.float32), "y")


def test_flush_stops_current_and_drops_queue() -> None:
    clock, pacer, stream, sent, events = make()
    stream.enqueue(tone(1600), "long")
    stream.enqueue(tone(1600), "next")
    run_ticks(clock, pacer, 3)
    clock.t = 200.0
    assert stream.flush() == "long"
    assert events[-1] == PlayoutEvent("stopped", "long", 200.0, interrupted=True)
    assert not stream.speaking and stream.queued_utterances == 0
    assert stream.flush() is None
    clock.t = 100.06
    run_ticks(clock, pacer, 2)
    assert len(sent) == 3  # nothing more after the flush
    stream.enqueue(tone(160), "after")
    run_ticks(clock, pacer, 1)
    assert sent[-1].marker and sent[-1].sequence_number == (sent[2].sequence_number + 1) % 65536
    assert [e.kind for e in events].count("started") == 2  # "next" never started


def test_frames_are_encoded_with_the_codec() -> None:
    clock, pacer, stream, sent, _ = make("alaw")
    pcm = (np.sin(np.arange(FRAME_SAMPLES) / 3) * 10000).astype(np.int16)
    stream.enqueue(pcm, "u")
    run_ticks(clock, pacer, 1)
    assert sent[0].payload_type == 8 and sent[0].payload == get_codec("alaw").encode(pcm)


def test_partial_last_frame_is_padded_with_codec_silence() -> None:
    clock, pacer, stream, sent, _ = make("ulaw")
    stream.enqueue(tone(100, 5000), "u", final=False)
    stream.enqueue(tone(0), "u", final=True)
    run_ticks(clock, pacer, 1)
    payload = sent[0].payload
    assert len(payload) == 160
    assert payload[:100] == get_codec("ulaw").encode(tone(100, 5000))
    assert payload[100:] == b"\xff" * 60  # mu-law silence


def test_pacer_skips_ahead_when_late_and_counts_it() -> None:
    clock, pacer, stream, sent, _ = make()
    stream.enqueue(tone(160 * 10), "u")
    run_ticks(clock, pacer, 2)
    clock.t += 0.5  # the loop stalled for 25 frames
    run_ticks(clock, pacer, 1)
    assert pacer.late_ticks == 1 and pacer.skipped_frames == 25
    assert (sent[2].timestamp - sent[1].timestamp) % 2**32 == 160 * 26  # timestamps follow wall time
    assert pacer.send_error_ms.max_ms < 1.0  # after skipping, the send is on schedule again


def test_two_streams_one_pacer_and_remove() -> None:
    clock = FakeClock()
    pacer = Pacer(clock=clock)
    a_sent: list[bytes] = []
    b_sent: list[bytes] = []
    a = PlayoutStream(get_codec("ulaw"), a_sent.append, clock=clock)
    b = PlayoutStream(get_codec("ulaw"), b_sent.append, clock=clock)
    assert a.ssrc != b.ssrc
    pacer.add(a)
    pacer.add(b)
    pacer.add(a)
    assert pacer.streams == 2
    a.enqueue(tone(800), "a")
    b.enqueue(tone(800), "b")
    run_ticks(clock, pacer, 2)
    pacer.remove(a)
    run_ticks(clock, pacer, 2)
    assert len(a_sent) == 2 and len(b_sent) == 4
    assert pacer.frames_sent == 6  # totals survive remove() (metrics)


def test_broken_stream_does_not_stop_others() -> None:
    clock = FakeClock()
    pacer = Pacer(clock=clock)

    def boom(_: bytes) -> None:
        raise OSError("socket closed")

    bad = PlayoutStream(get_codec("ulaw"), boom, clock=clock)
    good_sent: list[bytes] = []
    good = PlayoutStream(get_codec("ulaw"), good_sent.append, clock=clock)
    for s in (bad, good):
        pacer.add(s)
        s.enqueue(tone(320), "u")
    run_ticks(clock, pacer, 2)
    assert bad.stats.send_failures == 2 and len(good_sent) == 2


def test_a_short_stall_is_caught_up_on_the_absolute_schedule_without_drift() -> None:
    """A 30 ms stall of the loop (under the skip threshold): the late frame goes out late, the next one right
    behind it, and every later frame is back on t0 + k * 20 ms; RTP timestamps never drift."""
    clock, pacer, stream, sent, _ = make("ulaw")
    stream.enqueue(tone(160 * 200), "long")
    sends: list[float] = []
    t0 = clock.t
    for k in range(150):
        due = t0 + k * FRAME_S
        if k == 50:
            clock.t = due + 0.03  # the stall
        clock.t = max(clock.t, due)
        while pacer.next_due() is None or pacer.next_due() <= clock.t:  # what the pacer's task and poll do
            pacer.tick(clock.t)
            sends.append(clock.t)
            if len(sends) == 150:
                break
        if len(sends) == 150:
            break
    assert pacer.late_ticks == 0 and pacer.skipped_frames == 0
    assert pacer.send_error_ms.max_ms >= 29.0  # the stall was seen ...
    late = [round((t - (t0 + i * FRAME_S)) * 1000, 3) for i, t in enumerate(sends)]
    assert all(x == 0 for x in late[:50]) and late[50] == 30.0 and late[51] == 10.0  # ... caught up at once
    assert all(x == 0 for x in late[53:])  # and back on the absolute schedule
    ts = [p.timestamp for p in sent]
    assert [(t - ts[0]) % 2**32 for t in ts] == [160 * i for i in range(len(ts))]


def test_failing_callbacks_are_counted_and_playout_goes_on() -> None:
    clock = FakeClock()
    sent: list[bytes] = []

    def bad_event(_: PlayoutEvent) -> None:
        raise RuntimeError("event consumer bug")

    def bad_frame(_power: float, _sent_at: float) -> None:
        raise RuntimeError("echo reference bug")

    stream = PlayoutStream(get_codec("ulaw"), sent.append, on_event=bad_event, on_frame=bad_frame, clock=clock)
    pacer = Pacer(clock=clock)
    pacer.add(stream)
    stream.enqueue(tone(320), "u")
    run_ticks(clock, pacer, 3)
    # 2 frames (2 on_frame failures) + started + stopped (2 on_event failures); the stream still finished
    assert len(sent) == 2 and stream.stats.callback_errors == 4
    assert not stream.speaking and pacer.stream_errors == 0


def test_streamed_chunks_give_the_same_frames_and_powers_as_one_enqueue() -> None:
    """A line streamed in uneven chunks while it plays: the same packets and the same per-frame powers for the
    echo reference as the whole line enqueued at once (powers are measured once per frame, not per chunk)."""
    rng = np.random.default_rng(3)
    pcm = (rng.standard_normal(160 * 40 + 77) * 3000).astype(np.int16)

    def play(chunked: bool) -> tuple[list[bytes], list[float]]:
        clock = FakeClock()
        sent: list[bytes] = []
        powers: list[float] = []
        stream = PlayoutStream(get_codec("ulaw"), sent.append, ssrc=1, clock=clock,
                               on_frame=lambda power, at: powers.append(power))
        stream._seq, stream._ts_base = 0, 0
        pacer = Pacer(clock=clock)
        pacer.add(stream)
        if not chunked:
            stream.enqueue(pcm, "u")
        else:
            cuts = sorted(rng.choice(np.arange(1, pcm.size), 12, replace=False))
            for a, b in itertools.pairwise([0, *cuts, pcm.size]):
                stream.enqueue(pcm[a:b], "u", final=False)
                run_ticks(clock, pacer, int(rng.integers(0, 3)))
            stream.enqueue(pcm[:0], "u", final=True)
        run_ticks(clock, pacer, 60)
        return sent, powers

    whole, chunked = play(False), play(True)
    assert [RtpPacket.parse(p).payload for p in whole[0]] == [RtpPacket.parse(p).payload for p in chunked[0]]
    assert len(whole[1]) == 41 and np.allclose(whole[1], chunked[1], rtol=1e-12, atol=0)


def test_a_held_first_frame_goes_out_in_the_slot_whose_receive_pass_released_it() -> None:
    clock, pacer, stream, sent, events = make()
    silence_heard = {"frames": 0}  # what the receive pass has read of the caller's line
    stream.enqueue(tone(480, 7), "held", final=True, hold=lambda now: silence_heard["frames"] < 3)
    for heard in (0, 1, 2):  # a tick, then its receive pass reads a caller frame: not enough yet
        pacer.tick(clock.t)
        silence_heard["frames"] = heard
        pacer.release_held(clock.t + 0.001)
        clock.t += FRAME_S
    assert sent == [] and events == [] and stream.stats.underruns == 0 and stream.holding  # quiet, no underrun
    pacer.tick(clock.t)  # slot k: still held
    silence_heard["frames"] = 3  # the receive pass of slot k reads the frame that ends the hold
    pacer.release_held(clock.t + 0.002)
    assert len(sent) == 1 and sent[0].marker and pacer.released == 1 and not stream.holding
    assert events[0].kind == "started" and events[0].at == pytest.approx(clock.t + 0.002)
    pacer.release_held(clock.t + 0.003)  # once per slot: the next frame waits for its own tick
    assert len(sent) == 1
    clock.t += FRAME_S
    run_ticks(clock, pacer, 2)
    assert [(p.timestamp - sent[0].timestamp) % 2**32 for p in sent] == [0, 160, 320]  # slot k's, then on
    assert [p.marker for p in sent] == [True, False, False]


def test_a_hold_released_late_in_its_slot_waits_for_the_next_tick_and_a_flush_drops_a_held_line() -> None:
    clock, pacer, stream, sent, _events = make()
    go = {"now": False}
    stream.enqueue(tone(320, 7), "held", final=True, hold=lambda now: not go["now"])
    pacer.tick(clock.t)
    go["now"] = True
    pacer.release_held(clock.t + 0.015)  # the receive pass ran long: 15 ms into the slot
    assert sent == [] and pacer.released == 0
    clock.t += FRAME_S
    pacer.tick(clock.t)  # the next tick sends it, on schedule
    assert len(sent) == 1 and sent[0].marker
    stream.enqueue(tone(320, 7), "second", final=True, hold=lambda now: True)
    assert stream.holding
    assert stream.flush() == "held" and not stream.holding and stream.queued_utterances == 0


def test_a_held_replys_call_is_read_before_the_sends_so_the_frame_ending_the_hold_lets_it_go_on_time() -> None:
    clock, pacer, stream, sent, _events = make()
    inbox = {"queued": 0, "heard": 0}  # caller frames waiting on the socket / read by the call
    reads: list[float] = []

    def read_first() -> None:  # the call's socket read: whatever is queued is heard now
        reads.append(clock.t)
        inbox["heard"] += inbox["queued"]
        inbox["queued"] = 0

    stream.read_first = read_first
    run_ticks(clock, pacer, 2)
    assert reads == []  # nothing held: the call is read by the receive pass only
    stream.enqueue(tone(480, 7), "held", final=True, hold=lambda now: inbox["heard"] < 3)
    for _ in range(2):  # two caller frames arrive between ticks: read before each tick's sends, still held
        inbox["queued"] += 1
        pacer.tick(clock.t)
        clock.t += FRAME_S
    assert sent == [] and len(reads) == 2 and pacer.reads_first == 2
    inbox["queued"] += 1  # the frame that ends the hold arrived after the last receive pass
    slot_time = clock.t
    pacer.tick(clock.t)  # read first: the reply goes in this very slot, with this slot's timestamp
    assert len(sent) == 1 and sent[0].marker and pacer.released == 0
    assert not stream.holding and reads[-1] == slot_time
    clock.t += FRAME_S
    run_ticks(clock, pacer, 2)
    assert len(reads) == 3  # released: no more reads ahead of the receive pass
    assert [(p.timestamp - sent[0].timestamp) % 2**32 for p in sent] == [0, 160, 320]


def test_a_failing_read_first_is_counted_and_the_tick_still_sends() -> None:
    clock, pacer, stream, sent, _events = make()
    other = PlayoutStream(get_codec("slin"), lambda b: sent.append(RtpPacket.parse(b)), ssrc=99, clock=clock)
    pacer.add(other)

    def broken() -> None:
        raise OSError("socket gone")

    stream.read_first = broken
    stream.enqueue(tone(480, 3), "held", final=True, hold=lambda now: True)
    other.enqueue(tone(480, 3), "free", final=True)
    run_ticks(clock, pacer, 2)
    assert pacer.receive_errors == 2 and [p.ssrc for p in sent] == [99, 99]
