"""One call's media leg: the mixing bridge, the externalMedia channel, the RTP socket and the playout stream.

Set up once (`open`), torn down once (`close`) on every path, whatever failed in between. The externalMedia
channel enters Stasis asynchronously: its own `StasisStart` is awaited before `addChannel`, and our RTP goes back
to the address Asterisk reports in `UNICASTRTP_LOCAL_ADDRESS/PORT`.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable

import numpy as np

from ai_operator.daemon.services import Services
from ai_operator.logs import get_logger
from ai_operator.media.playout import PlayoutEvent, PlayoutStream
from ai_operator.media.transport import RtpEndpoint
from ai_operator.storage.record_types import CallMedia

log = get_logger("call")
EXTERNAL_MEDIA_STASIS_TIMEOUT_S = 5.0


class MediaLeg:
    """The media of one call; `stream` is set once `open` has succeeded."""

    def __init__(
        self,
        svc: Services,
        call_id: str,
        *,
        on_audio: Callable[[np.ndarray], None],
        on_silence: Callable[[], None] | None = None,
        on_playout: Callable[[PlayoutEvent], None],
        on_bot_frame: Callable[[float, float], None],
    ) -> None:
        self.svc = svc
        self.call_id = call_id
        self.em_channel_id = f"{call_id}-media"
        self._on_audio = on_audio
        self._on_silence = on_silence
        self._on_playout = on_playout
        self._on_bot_frame = on_bot_frame
        self.em_started: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self.endpoint: RtpEndpoint | None = None
        self.stream: PlayoutStream | None = None
        self.bridge_id: str | None = None
        self._closed = False

    def external_media_started(self) -> None:
        """The externalMedia channel's own StasisStart arrived."""
        if not self.em_started.done():
            self.em_started.set_result(None)

    async def open(self) -> None:
        svc, ari = self.svc, self.svc.ari
        self.endpoint = await RtpEndpoint.open(svc.ports, svc.codec, self._on_audio, on_silence=self._on_silence,
                                               receiver=svc.receiver, totals=svc.rtp_totals)
        bridge = await ari.create_bridge("mixing", name=f"ai-operator-{self.call_id}")
        self.bridge_id = bridge.id
        host, port = self.endpoint.local_address
        em = await ari.external_media(
            svc.settings.ari.app, f"{host}:{port}", svc.codec.name, channel_id=self.em_channel_id
        )
        await asyncio.wait_for(self.em_started, EXTERNAL_MEDIA_STASIS_TIMEOUT_S)
        await ari.add_channel(self.bridge_id, [self.call_id, self.em_channel_id])
        addr = em.var("UNICASTRTP_LOCAL_ADDRESS") or await ari.get_channel_var(self.em_channel_id, "UNICASTRTP_LOCAL_ADDRESS")
        rport = em.var("UNICASTRTP_LOCAL_PORT") or await ari.get_channel_var(self.em_channel_id, "UNICASTRTP_LOCAL_PORT")
        self.endpoint.set_remote(addr, int(rport))
        self.stream = PlayoutStream(svc.codec, self.endpoint.send_frame, on_event=self._on_playout,
                                    on_frame=self._on_bot_frame, clock=svc.clock.monotonic)
        self.stream.read_first = self.endpoint.drain  # a held reply's call is read before the tick's sends
        svc.pacer.add(self.stream)
        log.info("call_media_ready", local_rtp=f"{host}:{port}", asterisk_rtp=f"{addr}:{rport}", codec=svc.codec.name)

    def received(self) -> CallMedia | None:
        """What the call's RTP socket received (RFC 3550 loss and jitter), for the call record; None before
        `open` bound it."""
        if self.endpoint is None:
            return None
        f = self.endpoint.receive_stats.figures()
        return CallMedia(f.packets_received, f.packets_expected, f.packets_lost, round(f.jitter_ms, 3))

    async def close(self) -> None:
        """Release everything `open` got, exactly once; 404s after an Asterisk restart are expected."""
        if self._closed:
            return
        self._closed = True
        if self.stream is not None:
            self.stream.flush()
            self.svc.pacer.remove(self.stream)
        if self.endpoint is not None:
            self.endpoint.close()
        ari = self.svc.ari
        if self.bridge_id is not None:
            try:
                await ari.destroy_bridge(self.bridge_id)
            except Exception as exc:
                log.debug("teardown_step_ignored", step="destroy_bridge", error=str(exc))
        try:
            await ari.hangup(self.em_channel_id)
        except Exception as exc:
            log.debug("teardown_step_ignored", step="hangup_external_media", error=str(exc))
