"""`SimCall`: one simulated phone call, as the tests (and the demo) drive it.

The caller speaks (`say`), presses keys (`send_dtmf`), hangs up; the call records what the daemon did (answered,
hung up, sent back to the dialplan, redirected) and every RTP packet the daemon sent (`received`).
"""

from __future__ import annotations

import asyncio
import time
from collections import deque
from typing import TYPE_CHECKING

import numpy as np

from ai_operator.media.codecs import get_codec
from ai_operator.media.frames import FRAME_S, FRAME_SAMPLES
from ai_operator.media.rtp import RtpPacket

if TYPE_CHECKING:
    from ai_operator.sim.pbx.server import SimulatedPbx

DTMF_DURATION_MS = 100


class SimCall:
    """One call through the simulated PBX. `state`: ring | up | dialplan | hungup."""

    def __init__(self, pbx: SimulatedPbx, channel_id: str, route: str, codec: str | None = None) -> None:
        self._pbx = pbx
        self.channel_id = channel_id
        self.route = route
        self.codec = codec
        self.state = "ring"
        self.hung_up_by: str | None = None
        self.continued: dict[str, object] | None = None
        self.apps: list[str] = []  # the Stasis apps the call entered, in order
        self.dialplan: list[str] = []  # the apps the dialplan tries next when one sends the call back (continue)
        self.redirected_to: str | None = None
        self.received: list[tuple[float, RtpPacket]] = []
        self.media_format: str | None = None  # the externalMedia format of the bridged channel
        self._speech: deque[np.ndarray] = deque()
        self._echo: deque[tuple[float, np.ndarray]] = deque()
        self.echo_gain: float | None = None  # set (e.g. 0.1 for -20 dB) to feed the bot's audio back as line echo
        self.echo_delay_s = 0.06
        self.speech_ended_at: float | None = None  # monotonic time the last queued speech frame was sent
        self._answered = asyncio.Event()
        self._media = asyncio.Event()
        self._said = asyncio.Event()
        self._said.set()
        self._ended = asyncio.Event()

    def __repr__(self) -> str:
        return f"SimCall({self.channel_id!r}, route={self.route!r}, state={self.state!r})"

    # -- driven by the PBX -----------------------------------------------------------------------------
    def mark_answered(self) -> None:
        if self.state == "ring":
            self.state = "up"
        self._answered.set()

    def media_started(self) -> None:
        self._media.set()

    def mark_ended(self, state: str, by: str | None = None) -> None:
        if self._ended.is_set():
            return
        self.state = state
        self.hung_up_by = by
        self._speech.clear()
        self._said.set()
        self._ended.set()

    def next_frame(self) -> np.ndarray | None:
        """The next 20 ms of queued speech (with the line echo mixed in, when set), or None (silence)."""
        echo = self._echo_due(time.monotonic())
        if not self._speech:
            return echo
        frame = self._speech.popleft()
        if not self._speech:
            self.speech_ended_at = time.monotonic()
            self._said.set()
        if echo is not None:
            frame = np.clip(frame.astype(np.int32) + echo, -32768, 32767).astype(np.int16)
        return frame

    def _echo_due(self, now: float) -> np.ndarray | None:
        """The echo frame due now: what the bot sent `echo_delay_s` ago (a line echo has a fixed delay)."""
        echo = self._echo
        while echo and echo[0][0] < now - self.echo_delay_s - FRAME_S:
            echo.popleft()  # too old: the caller's side fell behind, the line did not
        if echo and echo[0][0] <= now - self.echo_delay_s:
            return echo.popleft()[1]
        return None

    def heard(self, packet: RtpPacket) -> None:
        """A packet the daemon sent reached the caller (and, with `echo_gain`, comes back as line echo)."""
        self.received.append((time.monotonic(), packet))
        if self.echo_gain is not None:
            codec = get_codec(self.media_format or "ulaw")
            if codec.accepts(packet.payload_type):
                pcm = codec.decode(packet.payload).astype(np.float64) * self.echo_gain
                self._echo.append((time.monotonic(), pcm.astype(np.int16)))

    @property
    def ended(self) -> bool:
        return self._ended.is_set()

    # -- the caller's side -----------------------------------------------------------------------------
    def say(self, pcm: np.ndarray) -> None:
        """Queue caller speech (int16, 8 kHz mono); sent in real time as 20 ms frames."""
        samples = np.asarray(pcm)
        if samples.dtype != np.int16 or samples.ndim != 1:
            raise ValueError(f"say() expects 1-D int16 samples at 8 kHz, got {samples.dtype} {samples.shape}")
        if len(samples) == 0:
            return
        pad = (-len(samples)) % FRAME_SAMPLES
        if pad:
            samples = np.concatenate([samples, np.zeros(pad, dtype=np.int16)])
        for start in range(0, len(samples), FRAME_SAMPLES):
            self._speech.append(samples[start : start + FRAME_SAMPLES])
        self._said.clear()

    def send_dtmf(self, digit: str) -> None:
        """The caller presses a key (ARI ChannelDtmfReceived)."""
        if len(digit) != 1 or digit not in "0123456789ABCD*#":
            raise ValueError(f"DTMF digit must be one of 0-9 A-D * #, got {digit!r}")
        self._pbx.caller_dtmf(self, digit, DTMF_DURATION_MS)

    async def hangup(self) -> None:
        """The caller hangs up."""
        await self._pbx.caller_hangup(self)

    def inject_rtp(self, data: bytes, from_foreign: bool = False) -> None:
        """Send raw bytes to the daemon's RTP address (from the PBX's RTP socket, or a foreign one)."""
        peer = self._pbx.peer_for(self)
        if peer is None:
            raise RuntimeError(f"call {self.channel_id} has no externalMedia channel bridged")
        peer.send_raw(data, from_foreign=from_foreign)

    # -- waiting ---------------------------------------------------------------------------------------
    async def wait_answered(self, timeout: float = 5) -> None:
        await _wait(self._answered, timeout, f"call {self.channel_id} was not answered")

    async def wait_media(self, timeout: float = 5) -> None:
        await _wait(
            self._media, timeout, f"call {self.channel_id}: no externalMedia bridged with RTP flowing"
        )

    async def wait_said(self, timeout: float) -> None:
        await _wait(self._said, timeout, f"call {self.channel_id}: queued speech not sent")

    async def wait_hangup(self, timeout: float) -> None:
        await _wait(self._ended, timeout, f"call {self.channel_id} did not end (state {self.state})")

    def received_audio(self) -> np.ndarray:
        """Everything the daemon sent, decoded and concatenated (gaps not filled)."""
        if not self.received:
            return np.zeros(0, dtype=np.int16)
        codec = get_codec(self.media_format or "ulaw")
        parts = [codec.decode(p.payload) for _, p in self.received if codec.accepts(p.payload_type)]
        return np.concatenate(parts) if parts else np.zeros(0, dtype=np.int16)


async def _wait(event: asyncio.Event, timeout: float, what: str) -> None:
    try:
        await asyncio.wait_for(event.wait(), timeout)
    except TimeoutError:
        raise TimeoutError(f"{what} within {timeout} s") from None
