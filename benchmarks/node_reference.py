"""The node benchmark's reference call: how late the box and Asterisk alone make frames on the path a daemon's
frames take, measured in the same window, so that the daemons are judged net of both (issue 28 §3).

A daemon's frames reach a caller as daemon -> UDP -> Asterisk's externalMedia channel (chan_rtp's `UnicastRTP`)
-> a bridge of two channels -> the caller's PJSIP channel -> the caller. The reference call takes that path with
a pacer that does no work: the callers' process places one more SIP call, to `ref<PORT>`, which the node's
dialplan `Dial`s to `UnicastRTP/127.0.0.1:<PORT>` (the channel driver externalMedia creates; Dial's bridge of
two channels that cannot bridge natively runs the same two-party technology as the daemons' ARI mixing bridge of
two), and `reference_pacer` (the daemon's own `Pacer` + `PlayoutStream` in a process of its own: 3 s talkspurts
with `PAUSE_S` of silence between, as between replies) sends from PORT to that channel's local port, which the
bench reads through ARI (`channelvars` in ari.conf). An Asterisk echo or Playback would be simpler but not the
daemons' path: Echo returns the caller's own frames, paced by the loaded load generator and never through an
externalMedia channel; Playback is paced by Asterisk's own timer and skips both the externalMedia leg and the
bridge.

The reference caller's capture is judged as a daemon's call is (talkspurts marked where audio resumes,
`node_capacity.mark_talkspurts`; lateness against each talkspurt's clock anchored at its best packet; RFC 3550
jitter), in the window only; the daemons' lateness and jitter then go through `baseline.judge_net` (their own
late share < 1 %, their worst jitter less the reference's < 5 ms). A reference whose caller received under
`baseline.MIN_TICK_SHARE` of the packets it should have in the window did not run: the net budgets FAIL with no
value and the run is not valid, as in the media bench. The reference pacer's own lateness at its socket is
reported beside it (`at_source`), as are the daemons' own pacers' (their send error).
"""

from __future__ import annotations

import asyncio
import re
import time
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks.analysis import BUDGETS
from benchmarks.baseline import FRAME_NS, LATE_MS, MIN_TICK_SHARE, NET_BUDGETS, jitter_max_ms, lateness_ms
from benchmarks.capture import CallLog, Capture, ClockMap, parse_packets
from benchmarks.reference_pacer import UTTERANCE_S, ReferenceProcess

REFERENCE = "reference"  # the reference call's outcome in the capture (taken out before the daemons' calls are judged)
EXTEN_PREFIX = "ref"
PAUSE_S = 1.0  # silence between the reference's talkspurts (> the 200 ms gap that marks a talkspurt at the caller)
PORT_TIMEOUT_S = 20.0
LOCAL_VARS = ("UNICASTRTP_LOCAL_ADDRESS", "UNICASTRTP_LOCAL_PORT")
DIALPLAN = "exten => _ref.,1,Dial(UnicastRTP/127.0.0.1:${EXTEN:3}/c(ulaw))\n"  # Asterisk's end of the reference
CYCLE_S = UTTERANCE_S + PAUSE_S + 0.02  # one talkspurt and its pause (the next is queued a tick after the last frame)


def exten(port: int) -> str:
    """The extension the reference caller dials: the node bridges it to UnicastRTP aimed at `port`."""
    return f"{EXTEN_PREFIX}{port}"


def add_to_config(etc: Path) -> None:
    """The node's config with the reference's extension in `[cluster-in]` (where the front door's calls enter) and
    the UnicastRTP channel's local address in ARI's channel JSON (how the bench finds where to send)."""
    extensions = (etc / "extensions.conf").read_text()
    ari = (etc / "ari.conf").read_text()
    if "[cluster-in]\n" not in extensions or "[general]\n" not in ari:
        raise AssertionError("the node's config has no [cluster-in] (extensions.conf) or [general] (ari.conf)")
    (etc / "extensions.conf").write_text(extensions.replace("[cluster-in]\n", "[cluster-in]\n" + DIALPLAN, 1))
    (etc / "ari.conf").write_text(ari.replace("[general]\n", f"[general]\nchannelvars = {','.join(LOCAL_VARS)}\n", 1))


def node_class() -> type:
    """The cluster's node (`tests/support/cluster/nodes.ClusterNode`) with the reference added to its config."""
    from tests.support.cluster.nodes import ClusterNode

    class ReferenceNode(ClusterNode):
        def write_config(self) -> None:
            super().write_config()
            add_to_config(self.run_dir / "etc")

    return ReferenceNode


def local_address(channels: Sequence[Mapping[str, Any]], port: int) -> tuple[str, int] | None:
    """Asterisk's end of the reference's UnicastRTP channel (the one sending to `port`), from ARI's channel list."""
    name = re.compile(rf"UnicastRTP/127\.0\.0\.1:{port}-")
    for channel in channels:
        values = channel.get("channelvars") or {}
        if name.match(str(channel.get("name", ""))) and all(values.get(v) for v in LOCAL_VARS):
            return str(values[LOCAL_VARS[0]]), int(values[LOCAL_VARS[1]])
    return None


async def start(pbx: Any, run_dir: Path, port: int, t0_ns: int, t1_ns: int) -> ReferenceProcess | None:
    """The reference pacer, sending through the reference call's UnicastRTP channel for the window [t0, t1);
    None when the node never set that channel up (the run then has no reference: it is not valid)."""
    deadline = time.monotonic() + PORT_TIMEOUT_S
    while (to := local_address(await asyncio.to_thread(pbx.ari, "GET", "/channels") or [], port)) is None:
        if time.monotonic() > deadline:
            (run_dir / "reference-pacer.log").write_text(f"no UnicastRTP channel to port {port} in "
                                                         f"{PORT_TIMEOUT_S:g} s: the reference call was not set up\n")
            return None
        await asyncio.sleep(0.2)
    return ReferenceProcess(run_dir, t0_ns, t1_ns, None,
                            ("--to", f"{to[0]}:{to[1]}", "--port", str(port), "--pause", str(PAUSE_S)))


def take_reference(calls: list[CallLog]) -> tuple[list[CallLog], CallLog | None]:
    """(the daemons' calls, the reference call or None) from a capture's calls."""
    reference = next((c for c in calls if c.outcome == REFERENCE), None)
    return [c for c in calls if c.outcome != REFERENCE], reference


def _spurts(blob: bytes, gap_ms: float) -> np.ndarray:
    from benchmarks.node_capacity import mark_talkspurts

    return parse_packets(mark_talkspurts(blob, gap_ms))


def at_caller(call: CallLog | None, clock: ClockMap, t0_ns: int, t1_ns: int, gap_ms: float = 200.0) -> dict[str, Any]:
    """The reference as its caller received it in [t0, t1): `baseline.reference_figures`'s shape (lateness,
    share over the bound, worst jitter, whether it ran the window), judged like a daemon's call."""
    slots = max(1, (t1_ns - t0_ns) // FRAME_NS)
    expected = int(slots * UTTERANCE_S / CYCLE_S)
    none = {"packets": 0, "expected": expected, "slots": slots, "ran_window": False, "lateness_ms": None,
            "late_pct": None, "jitter_max_ms": None}
    packets = _spurts(call.packets if call is not None else b"", gap_ms)
    if not len(packets):
        return none
    t = clock.to_mono(packets["t"])
    order = np.argsort(t, kind="stable")
    packets, t = packets[order], t[order]
    spurt = np.cumsum((packets["b1"] & 0x80) > 0)
    inside = (t >= t0_ns) & (t < t1_ns)
    packets, t, spurt = packets[inside], t[inside], spurt[inside]
    if not len(packets):
        return none
    late = lateness_ms(t.astype(np.int64), packets["ts"].astype(np.int64), spurt)
    return {"packets": len(packets), "expected": expected, "slots": slots,
            "ran_window": bool(len(packets) >= MIN_TICK_SHARE * expected), **_spread(late),
            "jitter_max_ms": round(jitter_max_ms(packets["seq"].tolist(), packets["ts"].tolist(),
                                                 t.astype(np.int64).tolist()), 3)}


def _spread(late: np.ndarray) -> dict[str, Any]:
    return {"lateness_ms": {"p50": round(float(np.percentile(late, 50)), 3),
                            "p99": round(float(np.percentile(late, 99)), 3), "max": round(float(late.max()), 3),
                            f"over_{LATE_MS:g}ms": int((late > LATE_MS).sum())},
            "late_pct": round(100.0 * float((late > LATE_MS).mean()), 3)}


def at_source(record: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """The reference pacer's own lateness at its socket (what it sent in the window; its own talkspurts)."""
    sent = np.asarray((record or {}).get("sent") or [], dtype=np.int64).reshape(-1, 4)
    if not len(sent):
        return None
    return {"packets": len(sent), **_spread(lateness_ms(sent[:, 0], sent[:, 2], np.cumsum(sent[:, 3]))),
            "late_ticks": (record or {}).get("late_ticks")}


def problems(reference: Mapping[str, Any]) -> list[str]:
    """Why the run cannot be judged net of the box and Asterisk (a problem of the run: it is not valid)."""
    if reference["ran_window"]:
        return []
    return [f"the reference call's caller received {reference['packets']} of the {reference['expected']} packets "
            "it should have in the window (see reference-pacer.log, callers.log): the box's and Asterisk's own "
            "lateness is not known"]


def judged_names() -> list[str]:
    """The budgets the node bench judges: the knee's, lateness and jitter net of the reference, inbound not."""
    net = dict(NET_BUDGETS)
    return [net[b][0] if b in net else b for b in BUDGETS if b != "inbound_processed_pct"]



def section(call: CallLog | None, capture: Capture, record: Mapping[str, Any] | None,
            own: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """The run's `baseline`: the reference at its caller (judged), at its source, and the daemons' own pacers'
    send error p99 (`daemon_proc`'s figures; the worst daemon's, and each's), each beside the others."""
    errors = [round(e, 3) for o in own if (e := (o.get("send_error_last_frame_ms") or {}).get("p99_ms")) is not None]
    return {**at_caller(call, ClockMap(capture.clock), capture.t0_ns, capture.t1_ns),
            "at_source": at_source(record), "pause_s": PAUSE_S,
            "daemons_own_send_error_p99_ms": max(errors, default=None), "per_daemon_send_error_p99_ms": errors}
