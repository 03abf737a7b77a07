"""8. Ten calls at once through the real Asterisk: every caller is answered and hears the greeting in full; while
they are all up the daemon holds one RTP port and Asterisk one bridge per call; when the callers have hung up
(each sends its BYE after a while), nothing is left behind: no channel and no bridge in Asterisk
(`GET /ari/channels`, `GET /ari/bridges`) and no RTP socket in the daemon process.
"""

from __future__ import annotations

import os
import re
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from policies.operator.catalog import GREETING
from tests.support.asterisk import SipCaller, Stack, bot_line, contains, wait_reply
from tests.support.wait import eventually_sync

pytestmark = pytest.mark.asterisk

CALLS = 10
HEARD_IN_FULL = 0.9
# Each caller hangs up this long after the call is up. The greeting (ru + kk lines) is about 16 s of audio:
# the rest is room for a loaded machine, not a timing assertion.
TALK_S = 45.0


def env_value(env_file: Path, key: str) -> int:
    m = re.search(rf"^{key}=(\d+)$", env_file.read_text(), flags=re.M)
    assert m, key
    return int(m.group(1))


def rtp_sockets(pid: int, low: int, high: int) -> list[int]:
    """Local ports in `low..high` of the UDP sockets process `pid` holds open (read from /proc)."""
    inodes = set()
    fd_dir = Path(f"/proc/{pid}/fd")
    for fd in fd_dir.iterdir():
        try:
            target = os.readlink(fd)
        except OSError:  # closed meanwhile
            continue
        if target.startswith("socket:["):
            inodes.add(target[8:-1])
    ports = []
    for table in ("udp", "udp6"):
        for line in Path(f"/proc/{pid}/net/{table}").read_text().splitlines()[1:]:
            fields = line.split()
            port = int(fields[1].rsplit(":", 1)[1], 16)
            if fields[9] in inodes and low <= port <= high:
                ports.append(port)
    return sorted(ports)


def greeted(stack: Stack, caller: SipCaller) -> float:
    """Waits for the greeting to end; how surely its Russian line was heard (1.0: sample for sample)."""
    try:
        caller.wait_media(60)
        wait_reply(caller.rtp, 0, timeout=90)
    except AssertionError as exc:
        assert stack.daemon is not None
        call_id = caller.channel_id()
        lines = [e for e in stack.daemon.events() if e.get("call_id") == call_id]
        raise AssertionError(f"{exc}; the daemon about {call_id}: {lines}; Asterisk: {stack.pbx.tail(60)}") from None
    return contains(caller.rtp.pcm()[1], bot_line(GREETING.splitlines()[0], "ru"))


def test_ten_concurrent_calls_are_all_served_and_leave_nothing_behind(stack: Stack) -> None:
    daemon = stack.daemon
    assert daemon is not None and daemon.proc is not None
    low, high = env_value(stack.env_file, "RTP_PORT_MIN"), env_value(stack.env_file, "RTP_PORT_MAX")
    eventually_sync(lambda: not stack.pbx.channels() and not stack.pbx.bridges()
                    and not rtp_sockets(daemon.proc.pid, low, high), 30, what="no call left from an earlier test")

    callers = [stack.dial("100", hangup_after_s=TALK_S) for _ in range(CALLS)]
    with ThreadPoolExecutor(CALLS) as pool:
        ids = list(pool.map(lambda c: c.channel_id(), callers))
        scores = list(pool.map(lambda c: greeted(stack, c), callers))
    assert len(set(ids)) == CALLS
    assert min(scores) > HEARD_IN_FULL, f"greeting not heard in full by every caller: {scores}"

    # all ten up at once: one RTP port in the daemon and one bridge in Asterisk per call
    held = eventually_sync(lambda: len(rtp_sockets(daemon.proc.pid, low, high)) == CALLS, 30,
                           what=f"{CALLS} RTP sockets in the daemon")
    assert held
    assert len(stack.pbx.bridges()) == CALLS
    for call_id in ids:
        daemon.wait_event("call_started", call_id=call_id)
    rejected = [e for e in daemon.events("call_rejected") if e.get("call_id") in ids]
    assert not rejected, rejected

    with ThreadPoolExecutor(CALLS) as pool:
        endings = list(pool.map(lambda c: c.wait_ended(TALK_S + 120), callers))
    assert [e.how for e in endings] == ["bye_sent"] * CALLS, endings
    for call_id in ids:
        ended = daemon.wait_event("call_ended", call_id=call_id)
        assert ended["ended_by"] == "caller" and ended["disposition"] == "caller_hung_up", ended

    eventually_sync(lambda: not stack.pbx.channels(), 30, what="no channel left in Asterisk (GET /ari/channels)")
    eventually_sync(lambda: not stack.pbx.bridges(), 30, what="no bridge left in Asterisk (GET /ari/bridges)")
    eventually_sync(lambda: rtp_sockets(daemon.proc.pid, low, high) == [], 30, what="no RTP socket left in the daemon")
