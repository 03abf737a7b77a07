"""Issue 24.3 on a real Asterisk 22: OPENAI_API_KEY is rotated (the provider accepts only the new key) and the
daemon reloaded with SIGHUP, as `systemctl reload ai-operator` does. The next SIP caller is understood: says
goodbye, hears the bot's goodbye and gets the BYE, which needs a transcription authenticated with the new key.
A restart-only key changed in the same edit (RTP_PORT_MIN) is named in `reload_needs_restart` and not applied.
"""

from __future__ import annotations

import re
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.asterisk import Stack, wait_reply

pytestmark = pytest.mark.asterisk

NEW_KEY = "sk-rotated-on-asterisk-7Q7Q"


def set_key(env_file: Path, key: str, value: str) -> str:
    """Replace `key`'s value in the env file; returns the old value."""
    text = env_file.read_text()
    old = re.search(rf"^{key}=(.*)$", text, flags=re.M)
    assert old is not None, key
    env_file.write_text(text[: old.start(1)] + value + text[old.end(1):])
    return old.group(1)


@pytest.fixture
def own_stack(asterisk_ready: None) -> Iterator[Stack]:
    stack = Stack.start()  # its own daemon: this test rewrites the env file and reloads it
    try:
        yield stack
    finally:
        stack.stop()


def test_a_rotated_key_reloaded_is_what_the_next_sip_call_is_understood_with(own_stack: Stack) -> None:
    stack = own_stack
    daemon = stack.daemon
    assert daemon is not None
    set_key(stack.env_file, "OPENAI_API_KEY", NEW_KEY)
    port_min = int(set_key(stack.env_file, "RTP_PORT_MIN", "0"))
    set_key(stack.env_file, "RTP_PORT_MIN", str(port_min + 1))
    stack.openai.server.api_key = NEW_KEY  # the old key is revoked at the provider
    daemon.signal(signal.SIGHUP)
    reloaded = daemon.wait_event("reloaded", timeout=30)
    assert reloaded["changed"] == ["OPENAI_API_KEY"], reloaded
    assert daemon.wait_event("reload_needs_restart", timeout=5)["keys"] == ["RTP_PORT_MIN"]

    caller = stack.dial("100")
    call_id = caller.channel_id()
    caller.wait_media()
    wait_reply(caller.rtp, 0)
    requests_before = len(stack.openai.server.requests)
    stack.say(caller, "До свидания.", "ru")
    assert caller.wait_ended().how == "bye_received"  # understood: the goodbye, then the BYE
    tails = [r["key_tail"] for r in stack.openai.server.requests[requests_before:]
             if r["path"] == "/v1/audio/transcriptions"]
    assert tails and set(tails) == {NEW_KEY[-4:]}, tails
    assert [t["caller_text"] for t in stack.record(call_id)["turns"] if t["caller_text"]] == ["До свидания."]
    assert daemon.returncode is None
