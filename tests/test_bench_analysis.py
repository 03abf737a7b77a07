"""The media benchmark's caller-side analysis over synthetic captures: real RTP headers (the daemon's own
`build_header`), serialised to capture bytes and parsed back, so a stall, a gap or a late reply is judged
exactly as in a run. A capture with a 150 ms stall must FAIL, whichever form the stall takes."""

from __future__ import annotations

import pytest

from ai_operator.media.rtp import build_header
from ai_operator.media.rtpstats import ReceiveStats
from benchmarks.analysis import Rules, analyse, verdicts
from benchmarks.capture import CallLog, Capture, ClockMap, dumps, loads, parse_packets, record

MS = 1_000_000
S = 1_000_000_000
REAL_OFFSET = 1_700_000_000 * S  # the kernel stamps on the wall clock; everything else is monotonic
FRAME = 20 * MS
PAYLOAD = b"\xff" * 160
RULES = Rules(end_silence_ms=600)


class Reply:
    """One reply as the daemon would send it: `frames` 20 ms frames from slot time `start` (monotonic ns)."""

    def __init__(self, start: int, frames: int) -> None:
        self.start = start
        self.frames = frames
        self.skip_at: int | None = None  # frame index where the pacer skipped ahead
        self.skip_frames = 0
        self.burst_at: int | None = None  # frame index where sending stalled, then caught up in a burst
        self.burst_ms = 0
        self.drop: set[int] = set()  # frame indexes never sent (sequence gap)

    def skip(self, at: int, frames: int) -> Reply:
        self.skip_at, self.skip_frames = at, frames
        return self

    def stall_then_burst(self, at: int, ms: int) -> Reply:
        self.burst_at, self.burst_ms = at, ms
        return self


class SynthCall:
    """A caller's view of one call: when it was placed, its lines, and the packets the daemon sent."""

    def __init__(self, index: int, placed: int, ssrc: int = 0x1234, seq0: int = 65530, ts0: int = 4_000_000_000):
        self.log = CallLog(index=index, variant=0, channel_id=f"c{index}", placed_ns=placed)
        self.ssrc, self.seq, self.ts0 = ssrc, seq0, ts0
        self.slot0 = placed  # the pacer's slot grid: timestamps follow it across silent gaps
        self.out = bytearray()

    def line(self, start: int, end: int) -> None:
        self.log.lines.append((start, end))

    def send(self, reply: Reply, late_ns: int = 300_000) -> None:
        skipped = 0
        for i in range(reply.frames):
            if reply.skip_at is not None and i == reply.skip_at:
                skipped = reply.skip_frames
            slot = reply.start + (i + skipped) * FRAME
            ts = (self.ts0 + (slot - self.slot0) // FRAME * 160) % (1 << 32)
            at = slot + late_ns
            if reply.burst_at is not None and i >= reply.burst_at:
                at = max(at, reply.start + reply.burst_at * FRAME + reply.burst_ms * MS)
            header = build_header(0, i == 0, self.seq, ts, self.ssrc)
            self.seq = (self.seq + 1) % 65536
            if i in reply.drop:
                continue
            self.out += record(at + REAL_OFFSET, header + PAYLOAD)


def capture_of(calls: list[SynthCall], t0: int, t1: int, sent_rate: int = 50, read_lag_ns: int = 0) -> Capture:
    """A capture holding `calls`; the callers send `sent_rate` packets/s from 0, the daemon reads them
    `read_lag_ns` later (scraped every second)."""
    for c in calls:
        c.log.packets = bytes(c.out)
        c.log.ended_ns = t1 + 30 * S
    horizon = t1 + 40 * S
    sent = [(k * FRAME, k * sent_rate * 20 // 1000) for k in range(1, horizon // FRAME)]
    scrapes = [(s, s + MS, max(0, (s - read_lag_ns) // FRAME) * sent_rate * 20 // 1000)
               for s in range(t0, t1 + 1, S)]
    clock = [(m + REAL_OFFSET, m) for m in range(0, horizon, 10 * S)]
    cap = Capture(t0_ns=t0, t1_ns=t1, calls=[c.log for c in calls], clock=clock, sent=sent, scrapes=scrapes)
    meta, blob = dumps(cap)
    return loads(meta, blob)  # judged after a round trip through the on-disk format


EXPECTED = {0: [100, 150, 80]}  # greeting, reply to line 1, reply to line 2 (frames)


def dialogue(index: int = 0, placed: int = 1 * S, greeting: Reply | None = None, reply1: Reply | None = None,
             reply2: Reply | None = None, answer_after_ms: int = 650) -> SynthCall:
    """A call: greeting at placed + 0.5 s; caller line 1; reply; line 2; reply. Replies answer
    `answer_after_ms` after the caller's speech end (600 ms of it is the VAD's end silence)."""
    c = SynthCall(index, placed)
    g = greeting or Reply(placed + 500 * MS, 100)
    c.send(g)
    end_g = g.start + (g.frames + g.skip_frames) * FRAME
    line1 = (end_g + 700 * MS, end_g + 2_200 * MS)
    c.line(*line1)
    r1 = reply1 or Reply(line1[1] + answer_after_ms * MS, 150)
    c.send(r1)
    end1 = r1.start + (r1.frames + r1.skip_frames) * FRAME
    line2 = (end1 + 700 * MS, end1 + 1_900 * MS)
    c.line(*line2)
    c.send(reply2 or Reply(line2[1] + answer_after_ms * MS, 80))
    return c


def judge(calls: list[SynthCall], t0: int = 0, t1: int = 60 * S, **kw: int) -> tuple[dict, dict]:
    figures = analyse(capture_of(calls, t0, t1, **kw), EXPECTED, RULES)
    return figures, verdicts(figures)


def test_a_clean_capture_passes_every_budget() -> None:
    figures, v = judge([dialogue(0), dialogue(1, placed=3 * S, answer_after_ms=640)])
    assert {k: x["verdict"] for k, x in v.items()} == dict.fromkeys(v, "PASS")
    audio, turns = figures["audio"], figures["turns"]
    assert audio["replies_judged"] == 6 and audio["lost_frames"] == 0 and audio["mismatched_replies"] == 0
    assert audio["packets_judged"] == 2 * (100 + 150 + 80)
    assert turns["judged"] == 4 and turns["greetings"] == 2 and turns["unanswered"] == 0
    assert turns["bridge_ms"]["max"] == pytest.approx(50.3, abs=0.01)  # 650 ms - 600 ms of silence + 0.3 ms wire
    assert audio["lateness_ms"]["max"] == pytest.approx(0.0, abs=1e-6)
    assert figures["inbound"]["processed_pct"] == 100.0


def test_a_150ms_stall_with_skip_ahead_fails_as_a_timestamp_jump() -> None:
    # the pacer was blocked for 150 ms: it skipped 7 slots ahead; sequence numbers stay continuous
    c = SynthCall(0, 1 * S)
    c.send(Reply(1 * S + 500 * MS, 100))
    c.line(3_700 * MS, 5_200 * MS)
    c.send(Reply(5_850 * MS, 150).skip(at=40, frames=7))
    figures, v = judge([c])
    assert figures["audio"]["ts_jump_frames"] == 7 and figures["audio"]["seq_gap_frames"] == 0
    assert figures["audio"]["missing_frames"] == 0  # every frame arrived, 140 ms of the timeline did not
    assert v["lost_frames"]["verdict"] == "FAIL"


def test_a_150ms_stall_then_burst_fails_as_late_frames() -> None:
    c = SynthCall(0, 1 * S)
    c.send(Reply(1 * S + 500 * MS, 100).stall_then_burst(at=50, ms=150))
    figures, v = judge([c])
    audio = figures["audio"]
    assert audio["ts_jump_frames"] == 0 and audio["seq_gap_frames"] == 0 and audio["missing_frames"] == 0
    assert audio["lateness_ms"]["max"] == pytest.approx(150, abs=0.5)
    assert audio["late_frames"] == 5  # frames 50..54 arrive 150, 130, 110, 90, 70 ms behind their slot
    assert v["lost_frames"]["verdict"] == "FAIL" and v["lateness_p99_ms"]["verdict"] == "FAIL"


def test_sequence_gaps_and_short_replies_are_lost_and_a_long_reply_is_a_mismatch() -> None:
    c = SynthCall(0, 1 * S)
    c.send(Reply(1 * S + 500 * MS, 90))  # greeting 10 frames short
    c.line(4 * S, 5 * S)
    r1 = Reply(5_650 * MS, 150)
    r1.drop = {10, 11, 12}
    c.send(r1)
    c.line(10 * S, 11 * S)
    c.send(Reply(11_650 * MS, 85))  # 5 frames more than expected: the dialogue went elsewhere
    figures, v = judge([c])
    audio = figures["audio"]
    assert (audio["seq_gap_frames"], audio["missing_frames"], audio["extra_frames"]) == (3, 10, 5)
    assert audio["lost_frames"] == 13 and audio["mismatched_replies"] == 2
    assert v["lost_frames"]["verdict"] == "FAIL"


def test_a_reply_later_than_2s_is_unanswered_and_not_a_latency_sample() -> None:
    figures, v = judge([dialogue(0, answer_after_ms=2_300)])
    turns = figures["turns"]
    assert turns["judged"] == 2 and turns["unanswered"] == 2 and turns["bridge_ms"]["p95"] is None
    assert v["unanswered_turns"]["verdict"] == "FAIL" and v["turn_bridge_p95_ms"]["verdict"] == "FAIL"


def test_a_call_that_never_hears_its_greeting_is_unanswered() -> None:
    silent = SynthCall(1, 2 * S)
    figures, v = judge([dialogue(0), silent])
    assert figures["turns"]["unanswered_greetings"] == 1 and v["unanswered_turns"]["value"] == 1


def test_only_the_window_is_judged_but_a_stall_inside_it_counts_whatever_reply_it_hits() -> None:
    before = SynthCall(0, 1 * S)
    before.send(Reply(1 * S + 500 * MS, 100).skip(at=20, frames=7))  # stall at ~1.9 s: before the window
    figures, _ = judge([before], t0=5 * S, t1=30 * S)
    assert figures["audio"]["lost_frames"] == 0 and figures["audio"]["replies_judged"] == 0
    during = SynthCall(0, 1 * S)
    during.send(Reply(1 * S + 500 * MS, 200).skip(at=150, frames=7))  # the greeting began before, stall at ~4.5 s
    figures, v = judge([during], t0=4 * S, t1=30 * S)
    assert figures["audio"]["ts_jump_frames"] == 7 and v["lost_frames"]["verdict"] == "FAIL"


def test_inbound_audio_read_later_than_60ms_fails() -> None:
    _, v = judge([dialogue(0)], read_lag_ns=40 * MS)
    assert v["inbound_processed_pct"]["verdict"] == "PASS"
    figures, v = judge([dialogue(0)], read_lag_ns=200 * MS)
    assert figures["inbound"]["unread_max_packets"] == 7  # 140 ms of 50 packets/s beyond the 60 ms allowed
    assert v["inbound_processed_pct"]["verdict"] == "FAIL" and v["inbound_processed_pct"]["value"] < 100


def test_rfc3550_jitter_follows_the_q4_estimator_and_sequence_cycles() -> None:
    stats = ReceiveStats(8000)
    arrivals = [0, 20, 48, 60, 80]  # ms; the third packet 8 ms late
    for i, at in enumerate(arrivals):
        stats.add((65534 + i) % 65536, 1000 + 160 * i, at * MS)
    # |D| = 0, 64, 64, 0 timestamp units: Q4 estimate 0 -> 0 -> 64 -> 124 -> 116 (>> 4: 7 units, 0.875 ms)
    assert stats.jitter == 7 and stats.jitter_ms == pytest.approx(0.875)
    assert stats.cycles == 65536 and stats.packets_expected == 5 and stats.packets_lost == 0
    stats.add(4, 1000 + 160 * 6, 120 * MS)  # seq 3 never came
    assert stats.packets_lost == 1


def test_capture_records_round_trip_and_the_clock_map_follows_a_wall_clock_step() -> None:
    header = build_header(0, True, 65535, 4_294_967_200, 0xDEADBEEF)
    rec = parse_packets(record(123_456_789, header + PAYLOAD) + record(5, b"\x80"))
    assert rec["t"].tolist() == [123_456_789, 5] and rec["length"].tolist() == [172, 1]
    assert (int(rec["seq"][0]), int(rec["ts"][0]), int(rec["ssrc"][0]), int(rec["b1"][0]) >> 7) == (
        65535, 4_294_967_200, 0xDEADBEEF, 1)
    with pytest.raises(ValueError, match="22-byte"):
        parse_packets(b"x" * 23)
    clock = ClockMap([(1000 * S, 10 * S), (1010 * S, 20 * S), (1025 * S, 30 * S)])  # wall clock stepped +5 s
    assert clock.to_mono([1005 * S]).tolist() == [15 * S]
    assert clock.drift_ns == -5 * S


def test_a_late_first_packet_shows_as_late_instead_of_making_the_rest_look_early() -> None:
    c = SynthCall(0, 1 * S)
    c.send(Reply(1 * S + 500 * MS, 100).stall_then_burst(at=0, ms=52))  # frames 0-2 leave together, 52 ms late
    figures, v = judge([c])
    assert figures["audio"]["lateness_ms"]["max"] == pytest.approx(51.7, abs=0.01)  # 52 ms minus the usual 0.3
    assert figures["audio"]["lateness_ms"]["p50"] == pytest.approx(0, abs=0.01)
    assert v["lateness_p99_ms"]["verdict"] == "FAIL" and figures["audio"]["lost_frames"] == 0


def test_the_tail_of_an_earlier_reply_is_not_taken_for_the_answer() -> None:
    c = SynthCall(0, 1 * S)
    c.send(Reply(1 * S + 500 * MS, 100))
    c.line(4 * S, 5 * S)
    c.send(Reply(5_650 * MS, 150))  # plays until 8.65 s
    c.line(7 * S, 8 * S)  # the caller spoke over its last part; the real answer starts 2.5 s after
    c.send(Reply(10_500 * MS, 80))
    figures, v = judge([c])
    turns = figures["turns"]
    assert turns["judged"] == 2 and turns["unanswered"] == 1  # the second line's answer came 2.5 s after it
    assert turns["bridge_ms"]["max"] == pytest.approx(50.3, abs=0.01)  # only the first line was answered in time
    assert figures["audio"]["mismatched_replies"] == 2 and v["unanswered_turns"]["verdict"] == "FAIL"


EARLY_RULES = Rules(end_silence_ms=600, early_pause_ms=240)


def ends_of(call: SynthCall, kinds: list[str], off_ms: int = 5) -> dict[str, list[tuple[int, str]]]:
    """The daemon's record of how each of `call`'s lines ended: its speech end a few ms after the caller's."""
    return {call.log.channel_id: [(end + off_ms * MS, kind) for (_, end), kind in zip(call.log.lines, kinds, strict=True)]}


def judge_early(calls: list[SynthCall], ends: dict[str, list[tuple[int, str]]]) -> tuple[dict, dict]:
    figures = analyse(capture_of(calls, 0, 60 * S), EXPECTED, EARLY_RULES, ends)
    return figures, verdicts(figures)


def test_with_early_turns_each_turn_is_judged_against_the_wait_that_applied_to_it() -> None:
    # line 1 ended at the policy's 240 ms pause, answered 270 ms after the caller's last frame; line 2 waited the
    # full 600 ms and was answered at 650 ms: 30 and 50 ms of the daemon's own (plus 0.3 ms on the wire)
    c = SynthCall(0, 1 * S)
    c.send(Reply(1 * S + 500 * MS, 100))
    c.line(3_700 * MS, 5_200 * MS)
    c.send(Reply(5_470 * MS, 150))
    c.line(9_400 * MS, 10_600 * MS)
    c.send(Reply(11_250 * MS, 80))
    figures, v = judge_early([c], ends_of(c, ["early", "full"]))
    by_end = figures["turns"]["by_end"]
    assert by_end["early"]["turns"] == 1 and by_end["early"]["voice_ms"]["max"] == pytest.approx(270.3, abs=0.01)
    assert by_end["early"]["bridge_ms"]["max"] == pytest.approx(30.3, abs=0.01)
    assert by_end["full"]["turns"] == 1 and by_end["full"]["bridge_ms"]["max"] == pytest.approx(50.3, abs=0.01)
    assert figures["turns"]["voice_ms"]["max"] == pytest.approx(650.3, abs=0.01)
    assert v["turn_bridge_p95_ms"]["verdict"] == "PASS" and v["turn_bridge_p95_ms"]["value"] > 0


def test_a_slow_reply_to_an_early_ended_turn_fails_the_turn_budget() -> None:
    # 640 ms after the caller's last frame: less the full 600 ms silence it would look like 40 ms and pass (the
    # budget the old figure could never fail); the turn ended at the 240 ms pause, so the daemon added 400 ms
    c = dialogue(0, answer_after_ms=640)
    figures, v = judge_early([c], ends_of(c, ["early", "early"]))
    assert figures["turns"]["by_end"]["early"]["turns"] == 2
    assert v["turn_bridge_p95_ms"]["value"] == pytest.approx(400.3, abs=0.01)
    assert v["turn_bridge_p95_ms"]["verdict"] == "FAIL"
    _, v_full = judge_early([c], ends_of(c, ["full", "full"]))  # the same replies after full silences: in budget
    assert v_full["turn_bridge_p95_ms"]["verdict"] == "PASS"


def test_a_turn_the_daemon_has_no_record_of_is_judged_against_the_shorter_wait() -> None:
    c = dialogue(0, answer_after_ms=650)
    far = {c.log.channel_id: [(end + 900 * MS, "full") for _, end in c.log.lines]}  # too far off to be its line
    for ends in ({}, far):
        figures, v = judge_early([c], ends)
        assert figures["turns"]["by_end"]["unmatched"]["turns"] == 2 and "full" not in figures["turns"]["by_end"]
        assert v["turn_bridge_p95_ms"]["verdict"] == "FAIL"  # 650 - 240: an unknown turn cannot pass as a full one
