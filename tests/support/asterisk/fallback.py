"""The sample dialplan's fallback as the caller hears it: a call the daemon gives back (`continue`) or never
takes goes on in extensions.conf `[ai-operator-busy]`: answer, Playback(all-circuits-busy-now&
please-try-call-later) from Asterisk's core sounds, hang up. `heard_the_fallback` checks that the caller heard
both prompts (the very sound files this Asterisk plays, decoded by sox) and then got the PBX's BYE."""

from __future__ import annotations

import functools
import subprocess
from pathlib import Path

import numpy as np

from tests.support.asterisk.caller import Ending, SipCaller
from tests.support.asterisk.heard import contains, talkspurts
from tests.support.asterisk.pbx import Asterisk

PROMPTS = ("all-circuits-busy-now", "please-try-call-later")
HEARD_IN_FULL = 0.9
SPEECH_LEVEL = 500  # |sample| above this is the prompt's voice (its leading and trailing silence trimmed)


@functools.lru_cache(maxsize=8)
def prompt_audio(sounds: Path, name: str) -> np.ndarray:
    """A core-sounds prompt as 8 kHz int16, silence trimmed at both ends."""
    files = sorted(sounds.glob(f"{name}.*"))
    assert files, f"no {name} prompt in {sounds} (Debian: asterisk-core-sounds-en-gsm)"
    raw = subprocess.run(["sox", str(files[0]), "-t", "raw", "-r", "8000", "-c", "1", "-e", "signed", "-b", "16",
                          "-L", "-"], capture_output=True, check=True).stdout
    pcm = np.frombuffer(raw, dtype="<i2").astype(np.int16)
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > SPEECH_LEVEL)
    return pcm[loud[0] : loud[-1] + 1]


def heard_the_fallback(pbx: Asterisk, caller: SipCaller, ending: Ending) -> None:
    """The caller heard the sample's busy announcement in full, then the PBX hung up."""
    assert ending.how == "bye_received", f"the PBX did not hang up: {ending}: {caller.failure()}"
    heard = caller.rtp.pcm()[1]
    sounds = pbx.prefix / "var" / "lib" / "asterisk" / "sounds" / "en"
    for name in PROMPTS:
        score = contains(heard, prompt_audio(sounds, name))
        assert score > HEARD_IN_FULL, f"the fallback prompt {name} was not heard (match {score:.2f})"
    spurts = talkspurts(caller.rtp)
    assert spurts and ending.at_ns > spurts[-1].last_ns, "the BYE came before the fallback's last voiced frame"
