"""The media-plane benchmarks run: `media_replay`'s replay (real sockets, listener and playout on a virtual
clock, glued by `media_micro`'s call), small, in this process; no timing is asserted (budgets live in
benchmarks/)."""

from __future__ import annotations

import argparse
import shutil
import socket
from pathlib import Path

import numpy as np
import pytest

from benchmarks.media_micro import BOT_LINE, CALLER_LINE, speak
from benchmarks.media_replay import replay

pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")


async def test_replay_receives_every_frame_hears_the_callers_and_answers(tmp_path: Path) -> None:
    speak(CALLER_LINE, tmp_path / "caller.npy")
    speak(BOT_LINE, tmp_path / "bot.npy")
    line_frames = np.load(tmp_path / "caller.npy").size // 160
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        probe.bind(("127.0.0.1", 0))
        port_min = min(probe.getsockname()[1], 65000)
    args = argparse.Namespace(calls=3, ticks=line_frames + 80, gap=1.0, caller=tmp_path / "caller.npy",
                              bot=tmp_path / "bot.npy", port_min=port_min)
    result = await replay(args)
    assert result["packets_in"] == 3 * args.ticks
    assert result["heard"] >= 3  # every caller's line was heard ...
    assert result["frames_out"] > 0  # ... and answered
