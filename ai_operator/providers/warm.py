"""Connections made ahead of a turn: when the caller starts speaking, every remote adapter the turn may use (STT,
then the model, then TTS) that has no connection kept gets one now, while they speak, so the turn's requests do
not pay a new connection's handshakes (`openai_client.warm`: a free request, only when the client's connections
have gone idle; the Realtime STT keeps its own websocket per call, `daemon/live_stt.py`).

An adapter that can warm has `warm()`; a wrapper exposes what it wraps as `inner` (the breaker's wrappers, the line
cache) or `primary` (a voice with its fallback). A provider whose breaker is open is not warmed.
"""

from __future__ import annotations

from typing import Any


def warm_adapters(*adapters: Any) -> int:
    """Warm each of `adapters` (found through its wrappers); how many had a `warm` to call."""
    warmed = 0
    for adapter in adapters:
        while adapter is not None:
            if getattr(getattr(adapter, "health", None), "state", None) == "open":
                break
            warm = getattr(adapter, "warm", None)
            if callable(warm):
                warm()
                warmed += 1
                break
            adapter = getattr(adapter, "inner", None) or getattr(adapter, "primary", None)
    return warmed
