"""Judges a caller-side capture: what the callers received, against what each reply should contain. Pure.

Each call's received packets (kernel receive times mapped onto the monotonic clock) are cut into replies at the
caller's own speech: reply 0 is the greeting (everything before the end of the caller's first line), reply j
everything after the end of line j-1 up to the end of line j. The figures, each a budget in `BUDGETS`:

- lost frames = sequence gaps + RTP timestamp jumps inside a reply (a skip-ahead or an underrun keeps the
  sequence numbers continuous but moves the timestamp) + frames missing against the reply's expected length
  + frames arriving more than `late_as_lost_ms` behind their talkspurt's clock (a burst after a stall: a
  receiver playing out with a jitter buffer that deep has to conceal them). The budget judges the daemon's
  own: those lost at a pacer skip the host's steal caused are the box's (`stalls.py`, given the daemon's skips);
- playout lateness: a packet's arrival against its talkspurt's own clock, arrival(first) + (ts - ts0) / 8000 s,
  with the clock anchored at the reply's earliest packet (so a late first packet shows as late, instead of
  making every later one look early); p99 over all judged packets. That is the wire send-time error against
  the sender's 20 ms schedule, up to the best packet's own (sub-millisecond on a healthy sender);
- RFC 3550 interarrival jitter (`rtpstats.ReceiveStats`), the worst stream;
- turn latency, at the caller: voice-to-voice is the reply's first packet (the first talkspurt start, marker
  bit, after the end of the caller's speech; the daemon trims a reply's silence, so it carries voice) minus that
  speech end (the caller's last voiced frame sent). The daemon's added delay ("bridge") is voice-to-voice minus
  the end-of-turn wait that applied to THAT turn: `early_pause_ms` for a turn the policy ended at the short pause
  (`daemon/early_turn.py`), `end_silence_ms` for one that waited for the full silence. Which one applied only
  the daemon knows: `turn_ends` (its record of each utterance it decided, per call: speech end, monotonic ns,
  and "early" | "full", from `daemon_proc`) is matched to the caller's line by time (`match_within_ms`); a turn
  with no record is "unmatched" and judged against the shorter wait (it cannot pass by being unknown). With
  `early_pause_ms` None (early turns off) every turn waited the full silence. p95, and figures per kind;
- unanswered turns: no reply talkspurt starting within `answer_within_s` of the caller's speech end (or of the
  call being placed, for the greeting);
- inbound processed: at every `/metrics` scrape in the window, the daemon's RTP packets read (in + dropped)
  against what the callers had sent `inbound_within_ms` before the scrape.

A call the daemon refuses (sent back to the dialplan, e.g. while it is overloaded) is counted as refused, not
as a failure: refusing is the bounded answer to overload. A call that is answered but never hears its greeting
is an unanswered turn.

Judged: replies whose reference time (speech end, or call placed) lies in the window, and every packet that
arrived in the window (so a stall inside the window is seen whichever reply it hits).
"""

from __future__ import annotations

import bisect
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ai_operator.media.rtpstats import ReceiveStats
from benchmarks.capture import Capture, ClockMap, parse_packets
from benchmarks.stalls import Skip, attribute

SEQ_MOD = 1 << 16
HALF_SEQ = 1 << 15
TS_MOD = 1 << 32
HALF_TS = 1 << 31
NS_PER_MS = 1_000_000

BUDGETS: dict[str, tuple[str, float, str]] = {  # name -> (operator, limit, what)
    "lost_frames": ("==", 0, "the daemon's own lost frames: sequence gaps + timestamp jumps inside a reply + "
                    "frames missing from a reply + frames more than 60 ms late, less those the host's steal lost "
                    "(stalls.py)"),
    "lateness_p99_ms": ("<", 5.0, "playout lateness against each talkspurt's own clock, p99 (wire send time)"),
    "jitter_max_ms": ("<", 5.0, "RFC 3550 interarrival jitter, worst stream"),
    "turn_bridge_p95_ms": ("<", 60.0, "daemon-added turn latency: voice-to-voice at the caller less the end-of-turn "
                           "wait that applied to the turn (early pause or full silence), p95"),
    "inbound_processed_pct": (">=", 100.0, "caller audio the daemon had read within 60 ms of sending, worst scrape"),
    "unanswered_turns": ("==", 0, "caller turns (and greetings) with no reply within 2 s"),
}


@dataclass(frozen=True)
class Rules:
    end_silence_ms: float  # the daemon's VAD_END_SILENCE_MS, not counted as the bridge's latency
    early_pause_ms: float | None = None  # the pause an early-ended turn waited (VAD_EARLY_STT_MS); None: no early turns
    match_within_ms: float = 300.0  # a daemon's speech end this close to the caller's last frame is that line's
    answer_within_s: float = 2.0
    inbound_within_ms: float = 60.0
    late_as_lost_ms: float = 60.0
    frame_samples: int = 160
    clock_rate: int = 8000


@dataclass
class _Tally:
    packets: int = 0
    replies: int = 0
    seq_gaps: int = 0
    ts_jumps: int = 0
    missing: int = 0
    late: int = 0
    extra: int = 0
    mismatched_replies: int = 0
    turns: int = 0
    unanswered: int = 0
    greetings: int = 0
    unanswered_greetings: int = 0
    lateness_ms: list[np.ndarray] = field(default_factory=list)
    bridge_ms: list[float] = field(default_factory=list)
    by_end: dict[str, tuple[list[float], list[float]]] = field(default_factory=dict)  # kind -> (voice, bridge)
    greeting_ms: list[float] = field(default_factory=list)
    jitter_ms: list[float] = field(default_factory=list)  # per stream: the worst jitter while judged
    losses: list[tuple[int, int]] = field(default_factory=list)  # (arrival after the loss, ns; frames): timed losses


def percentile(values: Sequence[float] | np.ndarray, q: float) -> float | None:
    arr = np.asarray(values, dtype=np.float64)
    return round(float(np.percentile(arr, q)), 3) if arr.size else None


def _max(values: Sequence[float] | np.ndarray) -> float | None:
    arr = np.asarray(values, dtype=np.float64)
    return round(float(arr.max()), 3) if arr.size else None


TurnEnds = Mapping[str, Sequence[tuple[int, str]]]  # call id -> (speech end ns, "early" | "full") per utterance


def end_of_turn(speech_end: int, ends: Sequence[tuple[int, str]], rules: Rules) -> tuple[str, float]:
    """(kind, wait ms) of the turn whose caller speech ended at `speech_end`: see the module docstring."""
    if rules.early_pause_ms is None:
        return "full", rules.end_silence_ms
    near = [(abs(at - speech_end), kind) for at, kind in ends
            if abs(at - speech_end) <= rules.match_within_ms * NS_PER_MS]
    kind = min(near)[1] if near else "unmatched"
    return kind, rules.end_silence_ms if kind == "full" else rules.early_pause_ms


def judge_call(packets: np.ndarray, t: np.ndarray, placed_ns: int, lines: Sequence[tuple[int, int]],
               expected: Sequence[int], window: tuple[int, int], rules: Rules, tally: _Tally,
               ends: Sequence[tuple[int, str]] = ()) -> None:
    """Adds one call's figures to `tally`. `t`: the packets' arrival times (monotonic ns, ascending); `ends`:
    the daemon's record of how each of this call's utterances ended (`TurnEnds`)."""
    t0, t1 = window
    seq = packets["seq"].astype(np.int64)
    ts = packets["ts"].astype(np.int64)
    starts_talkspurt = (packets["b1"] & 0x80) != 0  # the RTP marker bit
    judged = (t >= t0) & (t < t1)
    bounds = [int(np.searchsorted(t, end, side="left")) for _, end in lines]
    starts = [0, *bounds]
    stops = [*bounds, len(t)]
    for j, (a, b) in enumerate(zip(starts, stops, strict=True)):
        ref = placed_ns if j == 0 else lines[j - 1][1]
        whole = t0 <= ref < t1
        if whole:
            judged[a:b] = True
        n = b - a
        sstep = (seq[a + 1 : b] - seq[a : b - 1]) % SEQ_MOD
        tstep = (ts[a + 1 : b] - ts[a : b - 1]) % TS_MOD
        forward = (sstep >= 1) & (sstep < HALF_SEQ)
        gaps = np.where(forward, sstep - 1, 0)
        ts_frames = np.rint(tstep / rules.frame_samples).astype(np.int64)
        jumps = np.where(forward & (tstep < HALF_TS), np.maximum(ts_frames - sstep, 0), 0)
        pair_judged = judged[a + 1 : b]
        tally.seq_gaps += int(gaps[pair_judged].sum())
        tally.ts_jumps += int(jumps[pair_judged].sum())
        lost_at = np.flatnonzero(((gaps + jumps) > 0) & pair_judged)
        tally.losses.extend(zip(t[a + 1 + lost_at].tolist(), (gaps + jumps)[lost_at].tolist(), strict=True))
        if n:
            rel_ts_ns = ((ts[a:b] - ts[a]) % TS_MOD) * 1_000_000_000 // rules.clock_rate
            behind = (t[a:b] - t[a]) - rel_ts_ns  # against the first packet's place on the talkspurt's clock
            late = (behind - behind.min())[judged[a:b]] / NS_PER_MS
            tally.lateness_ms.append(late)
            tally.late += int((late > rules.late_as_lost_ms).sum())
            tally.losses.extend((at, 1) for at in t[a:b][judged[a:b]][late > rules.late_as_lost_ms].tolist())
        if not whole:
            continue
        tally.replies += 1
        have = n + int(gaps.sum())
        want = expected[j] if j < len(expected) else 0
        tally.missing += max(0, want - have)
        tally.extra += max(0, have - want)
        tally.mismatched_replies += int(have != want)
        # the answer is the first talkspurt that starts after the reference (not the tail of an earlier one)
        begins = np.flatnonzero(starts_talkspurt[a:b])
        delay_ms = (t[a + begins[0]] - ref) / NS_PER_MS if begins.size else None
        answered = delay_ms is not None and delay_ms <= rules.answer_within_s * 1000
        if j == 0:
            tally.greetings += 1
            tally.unanswered_greetings += int(not answered)
            if delay_ms is not None:
                tally.greeting_ms.append(delay_ms)
        else:
            tally.turns += 1
            tally.unanswered += int(not answered)
            if answered and delay_ms is not None:
                kind, wait_ms = end_of_turn(ref, ends, rules)
                voice, bridge = tally.by_end.setdefault(kind, ([], []))
                voice.append(delay_ms)
                bridge.append(delay_ms - wait_ms)
                tally.bridge_ms.append(delay_ms - wait_ms)
    tally.packets += int(judged.sum())
    _jitter(packets, t, judged, rules, tally)


def _jitter(packets: np.ndarray, t: np.ndarray, judged: np.ndarray, rules: Rules, tally: _Tally) -> None:
    streams: dict[int, ReceiveStats] = {}
    worst: dict[int, float] = {}
    for ssrc, seq, ts, at, j in zip(packets["ssrc"].tolist(), packets["seq"].tolist(), packets["ts"].tolist(),
                                    t.tolist(), judged.tolist(), strict=True):
        stats = streams.get(ssrc)
        if stats is None:
            stats = streams[ssrc] = ReceiveStats(rules.clock_rate)
        stats.add(seq, ts, at)
        if j:
            worst[ssrc] = max(worst.get(ssrc, 0.0), stats.jitter_ms)
    tally.jitter_ms.extend(worst.values())


def inbound(capture: Capture, rules: Rules) -> dict[str, Any]:
    """The daemon's reading of caller audio at each scrape in the window (see the module docstring)."""
    sent_t = [t for t, _ in capture.sent]
    sent_n = [n for _, n in capture.sent]

    def sent_by(at: int) -> int:
        k = bisect.bisect_right(sent_t, at) - 1
        return sent_n[k] if k >= 0 else 0

    lag_ns = int(rules.inbound_within_ms * NS_PER_MS)
    rows = [(req, read, sent_by(req - lag_ns), sent_by(req)) for req, _, read in capture.scrapes
            if capture.t0_ns <= req <= capture.t1_ns]
    if not rows:
        return {"scrapes": 0, "processed_pct": None, "unread_max_packets": None, "window_ratio": None}
    pct = min(100.0 if read >= due else 100.0 * read / due for _, read, due, _ in rows)
    first, last = rows[0], rows[-1]
    sent_span = last[3] - first[3]
    return {"scrapes": len(rows), "processed_pct": round(pct, 3),
            "unread_max_packets": max(due - read for _, read, due, _ in rows),
            "window_ratio": round((last[1] - first[1]) / sent_span, 4) if sent_span > 0 else None}


def _calls(capture: Capture) -> dict[str, Any]:
    t0, t1 = capture.t0_ns, capture.t1_ns
    active_ns = 0
    for c in capture.calls:
        if c.outcome in ("refused", "no_media"):
            continue
        end = c.ended_ns if c.ended_ns is not None else t1
        active_ns += max(0, min(end, t1) - max(c.placed_ns, t0))
    in_window = [c for c in capture.calls if t0 <= c.placed_ns < t1]
    return {
        "placed_in_window": len(in_window),
        "ended_in_window": sum(1 for c in capture.calls if c.ended_ns is not None and t0 <= c.ended_ns < t1),
        "mean_concurrent": round(active_ns / (t1 - t0), 2) if t1 > t0 else None,
        **{o: sum(1 for c in in_window if c.outcome == o) for o in ("refused", "no_media", "abandoned")},
    }


def _spread(values: Sequence[float]) -> dict[str, float | None]:
    return {"p50": percentile(values, 50), "p95": percentile(values, 95), "max": _max(values)}


def analyse(capture: Capture, expected: Mapping[int, Sequence[int]], rules: Rules,
            turn_ends: TurnEnds | None = None, skips: Mapping[str | None, Sequence[Skip]] | None = None
            ) -> dict[str, Any]:
    """The figures of a capture; `expected[variant]`: frames of each reply of that dialogue (greeting first);
    `turn_ends`: the daemon's record of how each utterance ended (see the module docstring); `skips`: each
    call's daemon's pacer skips (`stalls.events_by_call`), to tell the daemon's lost frames from the box's."""
    clock = ClockMap(capture.clock)
    tally = _Tally()
    window = (capture.t0_ns, capture.t1_ns)
    losses: dict[str, list[tuple[int, int]]] = {}
    for call in capture.calls:
        packets = parse_packets(call.packets)
        if not len(packets):  # never heard a greeting (set-up too slow, or no media at all); refused is not this
            if call.outcome != "refused" and window[0] <= call.placed_ns < window[1]:
                tally.greetings += 1
                tally.unanswered_greetings += 1
            continue
        t = clock.to_mono(packets["t"])
        order = np.argsort(t, kind="stable")
        before = len(tally.losses)
        judge_call(packets[order], t[order], call.placed_ns, call.lines, expected[call.variant], window, rules,
                   tally, (turn_ends or {}).get(call.channel_id, ()))
        losses.setdefault(call.channel_id, []).extend(tally.losses[before:])
    late = np.concatenate(tally.lateness_ms) if tally.lateness_ms else np.zeros(0)
    lost = tally.seq_gaps + tally.ts_jumps + tally.missing + tally.late
    stalls = attribute(losses, lost, skips, window) if skips is not None else None
    return {
        "window_s": round((capture.t1_ns - capture.t0_ns) / 1e9, 2),
        "calls": _calls(capture),
        "audio": {
            "packets_judged": tally.packets, "replies_judged": tally.replies, "lost_frames": lost,
            "seq_gap_frames": tally.seq_gaps, "ts_jump_frames": tally.ts_jumps, "missing_frames": tally.missing,
            "late_frames": tally.late, "lost_frames_own": stalls["lost_frames_own"] if stalls else lost,
            "extra_frames": tally.extra, "mismatched_replies": tally.mismatched_replies,
            "lateness_ms": {"p50": percentile(late, 50), "p99": percentile(late, 99), "max": _max(late),
                            "over_20ms": int((late > 20).sum()),
                            "over_5ms": int((late > BUDGETS["lateness_p99_ms"][1]).sum())},  # the budget's bound
            "jitter_ms": {"streams": len(tally.jitter_ms), "p99": percentile(tally.jitter_ms, 99),
                          "max": _max(tally.jitter_ms)},
        },
        "turns": {
            "judged": tally.turns, "unanswered": tally.unanswered, "greetings": tally.greetings,
            "unanswered_greetings": tally.unanswered_greetings,
            "bridge_ms": _spread(tally.bridge_ms),
            "voice_ms": _spread([v for voice, _ in tally.by_end.values() for v in voice]),
            "by_end": {kind: {"turns": len(voice), "voice_ms": _spread(voice), "bridge_ms": _spread(bridge)}
                       for kind, (voice, bridge) in sorted(tally.by_end.items())},
            "greeting_ms": {"p50": percentile(tally.greeting_ms, 50), "p95": percentile(tally.greeting_ms, 95),
                            "max": _max(tally.greeting_ms)},
        },
        "inbound": inbound(capture, rules),
        "clock_drift_ms": round(clock.drift_ns / NS_PER_MS, 3),
        "stalls": stalls,  # the box's stalls and the frames they lost (None: no daemon skips were recorded)
    }


def budget_values(figures: Mapping[str, Any]) -> dict[str, float | None]:
    """The value each budget is judged on."""
    audio, turns = figures["audio"], figures["turns"]
    return {
        "lost_frames": audio.get("lost_frames_own", audio["lost_frames"]),
        "lateness_p99_ms": audio["lateness_ms"]["p99"],
        "jitter_max_ms": audio["jitter_ms"]["max"],
        "turn_bridge_p95_ms": turns["bridge_ms"]["p95"],
        "inbound_processed_pct": figures["inbound"]["processed_pct"],
        "unanswered_turns": turns["unanswered"] + turns["unanswered_greetings"],
    }


def verdicts(figures: Mapping[str, Any], limits: Mapping[str, float] | None = None) -> dict[str, dict[str, Any]]:
    """Each budget: value, limit, PASS / FAIL (a budget with nothing measured fails: it cannot be shown to hold).
    `limits` replaces some budgets' limits (the node benchmark's smoke test sets one impossibly tight)."""
    out: dict[str, dict[str, Any]] = {}
    for name, value in budget_values(figures).items():
        op, limit, what = BUDGETS[name]
        limit = (limits or {}).get(name, limit)
        if value is None:
            ok = False
        elif op == "==":
            ok = value == limit
        elif op == "<":
            ok = value < limit
        else:
            ok = value >= limit
        out[name] = {"value": value, "op": op, "limit": limit, "verdict": "PASS" if ok else "FAIL", "what": what}
    return out
