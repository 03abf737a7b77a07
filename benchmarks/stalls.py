"""Lost frames judged by who lost them: the daemon, or the box it ran on (the host stealing its vCPU). Pure.

The daemon's pacer skips ahead when its loop is `LATE_SKIP_FRAMES` frames (60 ms) late (`media/pacer.py`):
those frames never go out, and the callers count them lost (a timestamp jump, `analysis`). The loop is late
because it worked (its thread's CPU time), because other processes had the CPU (its run-queue wait: callers,
PostgreSQL, Asterisk in the deployed shape) or because the host did not run the box's vCPU at all (steal:
with paravirtual steal accounting the thread is then neither on a CPU nor waiting for one). The first two are
the daemon's capacity on the deployed box; the third is not, and it lands per vCPU (a no-work pacer in another
process does not see every one). `loop_probes.SkipProbe` records each skip: its time (CLOCK_MONOTONIC), the
frames skipped, the streams speaking, and since the last tick that began on time the loop thread's CPU time,
its run-queue wait and the most the host stole from any one vCPU (/proc/stat).

The rule (`is_box`): a skip is the box's when the loop's own time (CPU + run-queue wait) since that on-time tick
is under the skip threshold (60 ms: without the rest the tick would not have skipped) AND the host stole at
least `STEAL_SHARE` of the rest from one vCPU in that interval (a thread blocked on its own, a sleep or a
synchronous read, is neither on a CPU nor waiting for one either; steal tells the two apart). A skip the
benchmark's own fault injection caused (`injected`) is the daemon's whatever the host did meanwhile. A caller-side
loss (`analysis`: a sequence gap, timestamp jump or late frame, at its packet's arrival) is matched by time to
a skip of the daemon that served the call: from `MATCH_BEFORE_MS` before the skip to `MATCH_AFTER_MS` after.
Frames lost at a box skip are the box's; every other lost frame (at a skip of the daemon's own, at no skip, or
missing from a reply, which has no time) is the daemon's, and the `lost_frames` budget judges those.
A run whose box stalled more than `MAX_BOX_STALLS` times, or once for longer than `MAX_BOX_STALL_MS`, cannot
show the daemon's capacity: it is not valid (`box_problems`), so a box that is mostly stolen cannot pass.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ai_operator.media.frames import FRAME_MS
from ai_operator.media.pacer import LATE_SKIP_FRAMES

OWN_LIMIT_MS = LATE_SKIP_FRAMES * FRAME_MS  # own time under this: the tick would not have skipped without the rest
STEAL_SHARE = 0.5  # ... and the host stole at least this share of the rest
MATCH_BEFORE_MS = 5.0  # a loss arriving this long before a skip's time (clock mapping) to ...
MATCH_AFTER_MS = 100.0  # ... this long after it (the skip tick's sends) is that skip's
MAX_BOX_STALLS = 3  # more box skips than this in one run: the box, not the daemon, is being measured
MAX_BOX_STALL_MS = 500.0  # or one this late
NS_PER_MS = 1_000_000

Skip = Mapping[str, Any]  # a `SkipProbe` row: at_ns, late_ms, frames, streams, since_ms, cpu_ms, runqueue_ms, steal_ms
Loss = tuple[int, int]  # (arrival of the packet after the loss, monotonic ns; frames lost)


def own_ms(skip: Skip) -> float:
    """The loop's own time since its last on-time tick: its CPU time and its wait for a CPU."""
    return float(skip["cpu_ms"]) + float(skip["runqueue_ms"])


def stolen_ms(skip: Skip) -> float:
    """The skip's lateness the loop's own time does not explain."""
    return max(0.0, float(skip["late_ms"]) - own_ms(skip))


def is_box(skip: Skip) -> bool:
    """The skip was the box's (see the module docstring)."""
    rest = stolen_ms(skip)
    stolen = float(skip.get("steal_ms") or 0.0) >= STEAL_SHARE * rest
    return own_ms(skip) < OWN_LIMIT_MS and rest > 0.0 and stolen and not skip.get("injected")


def skip_of(at_ns: int, skips: Sequence[Skip]) -> Skip | None:
    """The skip a loss arriving at `at_ns` belongs to (the latest one it may follow), None when none."""
    near = [s for s in skips
            if -MATCH_BEFORE_MS * NS_PER_MS <= at_ns - int(s["at_ns"]) <= MATCH_AFTER_MS * NS_PER_MS]
    return max(near, key=lambda s: int(s["at_ns"])) if near else None


def events_by_call(own: Sequence[Mapping[str, Any]]) -> dict[str | None, list[Skip]] | None:
    """Each call's daemon's skips (by the call ids in its `turn_ends`), and every daemon's under None; None
    when no daemon recorded skips (figures from before `SkipProbe`: nothing is attributed)."""
    if not any("skips" in figures for figures in own):
        return None
    out: dict[str | None, list[Skip]] = {None: [s for figures in own for s in figures.get("skips") or []]}
    for figures in own:
        for call_id in figures.get("turn_ends") or {}:
            out[str(call_id)] = list(figures.get("skips") or [])
    return out


def attribute(losses: Mapping[str, Sequence[Loss]], lost_frames: int, events: Mapping[str | None, Sequence[Skip]],
              window: tuple[int, int]) -> dict[str, Any]:
    """The run's lost frames split into the daemon's own and the box's, and the box's stalls (the report's
    `stalls` section). `losses`: each call's timed losses; `lost_frames`: the total, untimed ones included;
    `window`: the skips counted are those in it and those after it that a judged loss matched."""
    skips = list(events.get(None) or [])
    box_frames, hit = 0, set[int]()
    for call_id, points in losses.items():
        theirs = events.get(call_id, skips)
        for at_ns, frames in points:
            skip = skip_of(at_ns, theirs)
            if skip is not None and is_box(skip):
                box_frames += frames
                hit.add(int(skip["at_ns"]))
    skips = [s for s in skips if window[0] <= int(s["at_ns"]) < window[1] or int(s["at_ns"]) in hit]
    box = [s for s in skips if is_box(s)]
    return {
        "skips": len(skips), "lost_frames_own": lost_frames - box_frames,
        "box": {"stalls": len(box), "stalls_with_loss": len(hit), "lost_frames": box_frames,
                "stolen_ms": round(sum(stolen_ms(s) for s in box), 1),
                "longest_ms": round(max((float(s["late_ms"]) for s in box), default=0.0), 1)},
        "own": {"skips": len(skips) - len(box), "frames_skipped": sum(int(s["frames"]) for s in skips if not is_box(s))},
        "rule": {"own_limit_ms": OWN_LIMIT_MS, "steal_share": STEAL_SHARE, "max_box_stalls": MAX_BOX_STALLS,
                 "max_box_stall_ms": MAX_BOX_STALL_MS},
    }


def box_problems(figures: Mapping[str, Any]) -> list[str]:
    """Why the run measured the box rather than the daemon (a problem of the run: it is not valid)."""
    box = (figures.get("stalls") or {}).get("box")
    if not box:
        return []
    out = []
    if box["stalls"] > MAX_BOX_STALLS:
        out.append(f"the host stole the daemon's CPU {box['stalls']} times long enough to skip frames (at most "
                   f"{MAX_BOX_STALLS} in a valid run; {box['stolen_ms']:.0f} ms stolen)")
    if box["longest_ms"] > MAX_BOX_STALL_MS:
        out.append(f"the host stole the daemon's CPU once for {box['longest_ms']:.0f} ms (at most "
                   f"{MAX_BOX_STALL_MS:.0f} ms in a valid run)")
    return out
