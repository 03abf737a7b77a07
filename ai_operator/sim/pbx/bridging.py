"""The simulated PBX's bridges: create, add and remove channels, destroy; media flows between an externalMedia
channel and an answered caller while they share a bridge. A mixin of `PbxCore` (its channels, bridges and
events); failures raise `SimHttpError` with Asterisk's own messages.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ai_operator.sim.pbx.state import SimBridge, SimChannel, event

if TYPE_CHECKING:
    from ai_operator.sim.pbx.rtp_peer import MediaPacer
    from ai_operator.sim.pbx.state import IdFactory


class SimHttpError(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


class BridgeOps:
    """Bridge operations over `channels` and `bridges` (state owned by `PbxCore`)."""

    channels: dict[str, SimChannel]
    bridges: dict[str, SimBridge]
    pacer: MediaPacer
    _ids: IdFactory

    def emit(self, app: str, payload: dict[str, Any]) -> None:  # pragma: no cover - overridden
        raise NotImplementedError

    def bridge(self, bridge_id: str) -> SimBridge:
        br = self.bridges.get(bridge_id)
        if br is None:
            raise SimHttpError(404, "Bridge not found")
        return br

    def _leave_bridge(self, ch: SimChannel) -> None:
        if ch.bridge_id is None:
            return
        br = self.bridges.get(ch.bridge_id)
        ch.bridge_id = None
        if ch.rtp is not None:
            self._refresh_peer(ch)
        if br is None:
            return
        if ch.id in br.channels:
            br.channels.remove(ch.id)
        self.emit(br.app, event("ChannelLeftBridge", br.app, bridge=br.to_json(), channel=ch.to_json()))
        self._refresh_bridge(br)

    def _refresh_bridge(self, br: SimBridge) -> None:
        for cid in br.channels:
            ch = self.channels.get(cid)
            if ch is not None and ch.rtp is not None:
                self._refresh_peer(ch)

    def _refresh_peer(self, ext: SimChannel) -> None:
        """Media flows while the externalMedia channel shares a bridge with an answered caller."""
        peer = ext.rtp
        if peer is None:
            return
        call = None
        br = self.bridges.get(ext.bridge_id) if ext.bridge_id else None
        for cid in br.channels if br else ():
            other = self.channels.get(cid)
            if (
                other
                and other.kind != "external"
                and other.state == "Up"
                and other.call
                and not other.call.ended
            ):
                call = other.call
                break
        peer.call = call
        if call is not None and peer.is_open:
            call.media_format = peer.codec.name
            self.pacer.active.add(peer)
        else:
            self.pacer.active.discard(peer)

    # -- bridge operations -----------------------------------------------------------------------------
    def op_create_bridge(self, app: str, params: dict[str, Any]) -> SimBridge:
        bridge_id = params.get("bridgeId") or self._ids.bridge_id()
        if bridge_id in self.bridges:
            raise SimHttpError(409, "Bridge with the same bridgeId already exists")
        types = params.get("type") or ["mixing"]
        br = SimBridge(id=bridge_id, app=app, name=params.get("name", ""), bridge_type=",".join(types))
        self.bridges[br.id] = br
        return br

    def op_add_channel(self, bridge_id: str, channel_ids: list[str]) -> None:
        br = self.bridge(bridge_id)
        chans = []
        for cid in channel_ids:
            ch = self.channels.get(cid)
            if ch is None:
                raise SimHttpError(400, "Channel not found")
            if not ch.in_stasis:
                raise SimHttpError(422, "Channel not in Stasis application")
            chans.append(ch)
        for ch in chans:
            if ch.bridge_id == br.id:
                continue
            self._leave_bridge(ch)
            ch.bridge_id = br.id
            br.channels.append(ch.id)
            self.emit(
                br.app, event("ChannelEnteredBridge", br.app, bridge=br.to_json(), channel=ch.to_json())
            )
        self._refresh_bridge(br)

    def op_remove_channel(self, bridge_id: str, channel_ids: list[str]) -> None:
        br = self.bridge(bridge_id)
        for cid in channel_ids:
            if cid not in self.channels:
                raise SimHttpError(400, "Channel not found")
            if cid not in br.channels:
                raise SimHttpError(422, "Channel not in this bridge")
        for cid in channel_ids:
            self._leave_bridge(self.channels[cid])

    def op_destroy_bridge(self, bridge_id: str) -> None:
        br = self.bridge(bridge_id)
        for cid in list(br.channels):
            ch = self.channels.get(cid)
            if ch is not None:
                self._leave_bridge(ch)
        self.bridges.pop(br.id, None)
        self.emit(br.app, event("BridgeDestroyed", br.app, bridge=br.to_json()))
