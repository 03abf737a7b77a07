"""6. A route toggled off in the env file and reloaded (SIGHUP, what `systemctl reload ai-operator` sends), with
the daemon in the environment systemd would give it: the next call goes back to the dialplan and the caller
hears the sample's fallback, then the PBX hangs up.

The environment: `systemd/ai-operator.service` as shipped sets `Environment=` values and has no
`EnvironmentFile=` (the daemon reads `--env` itself); an operator who adds `EnvironmentFile=` gets every key of
the env file exported as well, frozen at start. The daemon here runs with both (the harder case: a reload must
still see the edited file, not the stale copy in its environment).
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_operator.config import parse_env_text
from policies.operator.catalog import GREETING
from tests.support.asterisk import Stack, bot_line, contains, wait_reply
from tests.support.asterisk.fallback import heard_the_fallback

pytestmark = pytest.mark.asterisk

REPO = Path(__file__).resolve().parents[2]
UNIT = REPO / "systemd" / "ai-operator.service"
HEARD_IN_FULL = 0.9


def unit_environment(unit: Path = UNIT) -> dict[str, str]:
    """The `Environment=` assignments of the unit's [Service] section (`KEY=VALUE`, space-separated)."""
    env: dict[str, str] = {}
    for line in unit.read_text().splitlines():
        m = re.match(r"\s*Environment=(.*)$", line)
        if m:
            for item in m.group(1).split():
                key, _, value = item.strip('"').partition("=")
                env[key] = value
    return env


def systemd_environment(env_file: Path) -> dict[str, str]:
    """What the daemon's environment holds under the unit: its Environment= values, plus every key of the env
    file as `EnvironmentFile=` would export them."""
    assert "EnvironmentFile=" not in "\n".join(
        ln for ln in UNIT.read_text().splitlines() if not ln.lstrip().startswith("#")), "the unit changed: re-read it"
    exported = {e.key: e.value for e in parse_env_text(env_file.read_text(), str(env_file))}
    return {**unit_environment(), **exported}


@pytest.fixture
def stack_under_systemd_env(asterisk_ready: None) -> Iterator[Stack]:
    stack = Stack.start(daemon=False)
    try:
        stack.start_daemon(**systemd_environment(stack.env_file))
        yield stack
    finally:
        stack.stop()


def set_key(env_file: Path, key: str, value: str) -> None:
    text, n = re.subn(rf"^{key}=.*$", f"{key}={value}", env_file.read_text(), flags=re.M)
    assert n == 1, key
    env_file.write_text(text)


def test_a_route_switched_off_and_reloaded_sends_the_next_call_to_the_dialplan_fallback(
        stack_under_systemd_env: Stack) -> None:
    stack = stack_under_systemd_env
    daemon = stack.daemon
    assert daemon is not None and daemon.proc is not None
    environ = Path(f"/proc/{daemon.proc.pid}/environ").read_bytes().split(b"\0")
    assert b"ROUTE_TEST_ENABLED=true" in environ and b"PYTHONUNBUFFERED=1" in environ

    served = stack.dial("100")
    served_id = served.channel_id()
    served.wait_media()
    wait_reply(served.rtp, 0)
    assert contains(served.rtp.pcm()[1], bot_line(GREETING.splitlines()[0], "ru")) > HEARD_IN_FULL
    stack.say(served, "До свидания.", "ru")
    assert served.wait_ended().how == "bye_received"

    set_key(stack.env_file, "ROUTE_TEST_ENABLED", "false")
    daemon.signal(signal.SIGHUP)
    reloaded = daemon.wait_event("reloaded", timeout=30)
    assert reloaded["routes"]["test"] == "off" and reloaded["changed"] == ["ROUTE_TEST_ENABLED"], reloaded

    back = stack.dial("100")
    back_id = back.channel_id()
    rejected = daemon.wait_event("call_rejected", call_id=back_id)
    assert rejected["reason"] == "route_disabled" and rejected["route"] == "test", rejected
    heard_the_fallback(stack.pbx, back, back.wait_ended())

    assert stack.record(served_id)["route"] == "test"
    assert not daemon.events("call_started", call_id=back_id), "the disabled route's call was taken"
    assert daemon.returncode is None
