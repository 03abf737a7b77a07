"""The node benchmark's reference call (`benchmarks/node_reference.py`), pure: the node's config gains the
reference's extension, Asterisk's end of its UnicastRTP channel is found by port, its caller's capture is judged
like a daemon's call (in the window only), the daemons are judged net of it (and FAIL with no value when it did
not run), and the README block shows it. The reference through a real node runs in
tests/asterisk/test_node_capacity_bench.py."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from benchmarks.capture import CallLog, ClockMap, record
from benchmarks.knee_search import FAIL, PASS, Ladder
from benchmarks.node_capacity import rejudge, summary
from benchmarks.node_readme import render
from benchmarks.node_reference import (
    DIALPLAN,
    REFERENCE,
    add_to_config,
    at_caller,
    at_source,
    exten,
    local_address,
    section,
    take_reference,
)

MS = 1_000_000
S = 1_000_000_000
T0, T1 = 2 * S, 22 * S  # a 20 s window: 1000 slots, 746 packets expected (3 s talkspurts, 1 s pauses)
CLOCK = ClockMap([(0, 0), (100 * S, 100 * S)])  # realtime = monotonic


def rtp(seq: int, ts: int) -> bytes:
    return bytes([0x80, 0]) + seq.to_bytes(2, "big") + ts.to_bytes(4, "big") + b"\0" * 164


def reference_call(until_s: float = 24.0, late: dict[int, float] | None = None) -> CallLog:
    """What the reference's caller receives: 150-frame talkspurts, then 51 slots (1.02 s) with no packets, the
    RTP timestamp running with the slots; `late`: packet index -> ms it arrives behind its slot."""
    blob, seq, slot = bytearray(), 0, 0
    while slot * 20 * MS < until_s * S:
        for _ in range(150):
            at = slot * 20 * MS + int((late or {}).get(seq, 0.0) * MS)
            blob += record(at, rtp(seq, slot * 160))
            seq, slot = seq + 1, slot + 1
        slot += 51
    return CallLog(index=-1, variant=-1, channel_id=REFERENCE, placed_ns=0, outcome=REFERENCE, packets=bytes(blob))


def test_the_reference_is_judged_at_its_caller_in_the_window_only() -> None:
    on_time = at_caller(reference_call(), CLOCK, T0, T1)
    assert on_time["ran_window"] and on_time["slots"] == 1000 and on_time["expected"] == 746
    in_window = [i for i in range(900) if T0 <= (i // 150 * 201 + i % 150) * 20 * MS < T1]
    assert on_time["packets"] == len(in_window) == 745  # only those that arrived in [T0, T1)
    assert on_time["late_pct"] == 0.0 and on_time["lateness_ms"]["max"] == 0.0 and on_time["jitter_max_ms"] == 0.0
    late = {i: 8.0 for i in in_window[10:20]} | {0: 30.0}  # packet 0 arrives before the window: not judged
    judged = at_caller(reference_call(late=late), CLOCK, T0, T1)
    assert judged["lateness_ms"]["over_5ms"] == 10 and judged["late_pct"] == round(100 * 10 / 745, 3)
    assert judged["lateness_ms"]["max"] == 8.0 and judged["jitter_max_ms"] > 0.0


def test_a_reference_that_did_not_run_fails_the_net_budgets_with_no_value_and_the_run_is_not_valid() -> None:
    for reference in (at_caller(None, CLOCK, T0, T1), at_caller(reference_call(until_s=10.0), CLOCK, T0, T1)):
        entry: dict[str, Any] = {"figures": figures(), "valid": {"ok": True, "problems": []}}
        rejudge(entry, {}, reference)
        assert not reference["ran_window"] and entry["verdict"] == FAIL and not entry["valid"]["ok"]
        for name in ("lateness_own_late_pct", "jitter_own_max_ms"):
            assert entry["budgets"][name]["value"] is None and entry["budgets"][name]["verdict"] == FAIL
        assert "the reference call's caller received" in entry["valid"]["problems"][0]
        assert entry["budgets"]["lost_frames"]["verdict"] == PASS  # the other budgets as they are


def figures(over_5ms: int = 25, jitter: float = 9.6) -> dict[str, Any]:
    """A run's figures: 1000 frames judged, `over_5ms` of them more than 5 ms late (absolute p99 7 ms)."""
    return {"audio": {"lost_frames": 0, "packets_judged": 1000, "lateness_ms": {"p99": 7.0, "over_5ms": over_5ms},
                      "jitter_ms": {"max": jitter}},
            "turns": {"bridge_ms": {"p95": 30.0}, "unanswered": 0, "unanswered_greetings": 0},
            "inbound": {"processed_pct": 95.0}}


@pytest.mark.parametrize(("over_5ms", "box_late_pct", "jitter", "box_jitter", "own_late", "own_jitter", "verdict"), [
    (25, 2.0, 9.6, 5.0, 0.51, 4.6, PASS),  # the box and Asterisk made nearly all of it late: the daemons pass
    (40, 2.0, 9.6, 5.0, 2.041, 4.6, FAIL),  # the daemons themselves made 2 % late
    (25, 2.0, 9.6, 4.25, 0.51, 5.35, FAIL),  # the daemons' own jitter over 5 ms
    (5, 0.0, 3.0, 0.0, 0.5, 3.0, PASS),  # a box that is never late: the plain budgets
])
def test_the_daemons_are_judged_net_of_the_reference(over_5ms: int, box_late_pct: float, jitter: float,
                                                    box_jitter: float, own_late: float, own_jitter: float,
                                                    verdict: str) -> None:
    entry: dict[str, Any] = {"figures": figures(over_5ms, jitter), "valid": {"ok": True, "problems": []}}
    rejudge(entry, {}, {"ran_window": True, "late_pct": box_late_pct, "jitter_max_ms": box_jitter})
    assert entry["budgets"]["lateness_own_late_pct"]["value"] == own_late
    assert entry["budgets"]["jitter_own_max_ms"]["value"] == own_jitter
    assert entry["verdict"] == verdict and entry["valid"]["ok"] and "lateness_p99_ms" not in entry["budgets"]


def test_the_node_config_routes_the_reference_to_a_unicast_rtp_channel(tmp_path: Path) -> None:
    (tmp_path / "extensions.conf").write_text("[globals]\nX=1\n\n[cluster-in]\nexten => 100,1,Goto(split)\n")
    (tmp_path / "ari.conf").write_text("[general]\nenabled = yes\n\n[ai-operator]\ntype = user\n")
    add_to_config(tmp_path)
    assert "[cluster-in]\n" + DIALPLAN + "exten => 100" in (tmp_path / "extensions.conf").read_text()
    assert "Dial(UnicastRTP/127.0.0.1:${EXTEN:3}/c(ulaw))" in DIALPLAN and exten(40123) == "ref40123"
    ari = (tmp_path / "ari.conf").read_text()
    assert ari.startswith("[general]\nchannelvars = UNICASTRTP_LOCAL_ADDRESS,UNICASTRTP_LOCAL_PORT\nenabled")
    (tmp_path / "extensions.conf").write_text("[globals]\n")
    with pytest.raises(AssertionError, match="cluster-in"):
        add_to_config(tmp_path)


def test_asterisks_end_of_the_reference_channel_is_found_by_its_port() -> None:
    local = {"UNICASTRTP_LOCAL_ADDRESS": "127.0.0.1", "UNICASTRTP_LOCAL_PORT": "12346"}
    channels = [{"name": "PJSIP/front-door-00000001", "channelvars": {}},
                {"name": "UnicastRTP/127.0.0.1:40001-0x55d1", "channelvars": {**local, "UNICASTRTP_LOCAL_PORT": "9"}},
                {"name": "UnicastRTP/127.0.0.1:4000-0x55d2", "channelvars": local}]
    assert local_address(channels, 4000) == ("127.0.0.1", 12346) and local_address(channels, 40001) == ("127.0.0.1", 9)
    assert local_address([{"name": "UnicastRTP/127.0.0.1:4000-0x1", "channelvars": None}], 4000) is None
    assert local_address(channels, 4001) is None


def test_the_reference_is_taken_out_of_the_daemons_calls_and_reported_beside_them() -> None:
    daemon_call = CallLog(index=0, variant=0, channel_id="77010000000", placed_ns=0)
    calls, ref = take_reference([daemon_call, reference_call()])
    assert calls == [daemon_call] and ref is not None and ref.outcome == REFERENCE
    assert take_reference([daemon_call]) == ([daemon_call], None)
    sent = [[T0 + k * 20 * MS + (6 * MS if k == 3 else 0), k, k * 160, int(k == 0)] for k in range(100)]
    source = at_source({"sent": sent, "late_ticks": 0})
    assert source is not None and source["packets"] == 100 and source["lateness_ms"]["over_5ms"] == 1
    assert at_source(None) is None and at_source({"sent": []}) is None
    capture = type("Capture", (), {"clock": [(0, 0), (100 * S, 100 * S)], "t0_ns": T0, "t1_ns": T1})()
    own = [{"send_error_last_frame_ms": {"p99_ms": 4.5204}}, {"send_error_last_frame_ms": {"p99_ms": 9.55}}, {}]
    got = section(ref, capture, {"sent": sent}, own)
    assert got["daemons_own_send_error_p99_ms"] == 9.55 and got["per_daemon_send_error_p99_ms"] == [4.52, 9.55]
    assert got["ran_window"] and got["at_source"]["packets"] == 100


def test_the_readme_block_shows_the_reference_beside_the_daemons() -> None:
    run = {"calls": 4, "outcome": FAIL, "valid": {"ok": True, "problems": []}, "failed": ["lateness_own_late_pct"],
           "figures": {"calls": {"mean_concurrent": 4.0}}, "node": {"node_cores": 0.12, "load_generator_cores": 0.05},
           "baseline": {"lateness_ms": {"p99": 6.428}, "daemons_own_send_error_p99_ms": 7.96},
           "budgets": {"lateness_own_late_pct": {"value": 2.06}, "jitter_own_max_ms": {"value": 5.375}}}
    search = {"search": 1, "order": [4], "runs": [run], "knee": None, "first_unclean": 4, "limit_reached": True}
    knee = {"searches": [search], "summary": summary([search], Ladder(4, 4, 4, 4), 20, 2), "daemons": 2, "cpus": 2}
    block = render({"knee": knee, "command": "python -m benchmarks.node_capacity --knee 4:4:4"}, "r.json")
    assert "reference call's lateness p99 (box + Asterisk, no work)" in block
    assert "| 1 | 4 | FAIL | 4 |" in block and "| 6.4 ms | 2.06 % | 5.4 ms | 8.0 ms |" in block
