"""Who ended a channel that leaves our Stasis application, read off the ARI events alone. Pure, no I/O.

A caller's hang-up reaches Asterisk as a BYE (or a cleared trunk), which it queues as a hangup with a Q.850
cause: `ChannelHangupRequest {"cause": 16}` with no `soft`. A *soft* hang-up is Asterisk's own doing, and then
`cause` carries the soft-hangup reason flag, not a Q.850 cause (main/channel.c `ast_softhangup`, Asterisk 22):
4 = AST_SOFTHANGUP_SHUTDOWN (`core stop|restart now|gracefully`: every channel is hung up before the ARI
websocket closes), 16 = AST_SOFTHANGUP_APPUNLOAD (the module running the channel is unloading), 32 =
AST_SOFTHANGUP_EXPLICIT (an ARI `DELETE /channels/{id}` - our own hang-up - or AMI Hangup). `StasisEnd` and
`ChannelDestroyed` carry nothing that tells a shutdown from a caller (the destroy cause is the channel's Q.850
cause, often 16 either way), so the decision is made on the `ChannelHangupRequest`, which comes first.
"""

from __future__ import annotations

from typing import Any

from ai_operator.ari.events import ChannelHangupRequest

SOFTHANGUP_SHUTDOWN = 1 << 2
SOFTHANGUP_APPUNLOAD = 1 << 4
SOFTHANGUP_EXPLICIT = 1 << 5
PBX_ENDED = frozenset({SOFTHANGUP_SHUTDOWN, SOFTHANGUP_APPUNLOAD})


def ended_by(event: Any) -> str:
    """`system` when Asterisk itself ended the channel (shutdown, module unload), else `caller`."""
    if isinstance(event, ChannelHangupRequest) and event.soft and event.cause in PBX_ENDED:
        return "system"
    return "caller"


__all__ = ["PBX_ENDED", "SOFTHANGUP_APPUNLOAD", "SOFTHANGUP_EXPLICIT", "SOFTHANGUP_SHUTDOWN", "ended_by"]
