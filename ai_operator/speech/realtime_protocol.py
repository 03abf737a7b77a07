"""The OpenAI Realtime transcription protocol (websocket JSON events), as pure functions: no I/O here.

A transcription session (`GET /v1/realtime?intent=transcription`, upgraded to a websocket) is configured with
`transcription_session.update`: 8 kHz G.711 mu-law in (`g711_ulaw`, the phone's own codec), the model and the
language, and `turn_detection: null` - the daemon runs its own VAD, so the server never commits on its own. The
client then sends `input_audio_buffer.append` (base64 audio) and `input_audio_buffer.commit` (the audio so far is
one item to transcribe; successive commits on one session are successive items, each transcribed on its own), and
`input_audio_buffer.clear` (drop what was appended and not committed; answered `input_audio_buffer.cleared`). The server answers `input_audio_buffer.committed` (the item's id),
`conversation.item.input_audio_transcription.delta` (more text of an item: a partial), `...completed` (an item's
whole transcript: final), `...failed` and `error`. `parse_event` turns a server message into a `ServerEvent`.
"""

from __future__ import annotations

import base64
import json
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit, urlunsplit

import numpy as np

import ai_operator.media.g711 as g711

INPUT_FORMAT = "g711_ulaw"  # 8 kHz mu-law: what the call's audio is, no resampling
MIN_COMMIT_MS = 100  # the server refuses to commit less audio than this (input_audio_buffer_commit_empty)
PARTIAL = "partial"
FINAL = "final"
COMMITTED = "committed"
FAILED = "failed"
IGNORED = "ignored"


@dataclass(frozen=True)
class ServerEvent:
    """One server message: `kind` is partial | final | committed | failed | ignored; `text` the delta, the whole
    transcript or the failure's message."""

    kind: str
    item_id: str = ""
    text: str = ""


def realtime_url(base_url: str | None) -> str:
    """The websocket URL of the transcription endpoint for an OpenAI base URL ("https://api.openai.com/v1")."""
    parts = urlsplit(base_url or "https://api.openai.com/v1")
    scheme = "ws" if parts.scheme == "http" else "wss"
    return urlunsplit((scheme, parts.netloc, parts.path.rstrip("/") + "/realtime", "intent=transcription", ""))


def session_update(model: str, language: str | None) -> str:
    transcription: dict[str, Any] = {"model": model}
    if language:
        transcription["language"] = language
    return json.dumps({"type": "transcription_session.update", "session": {
        "input_audio_format": INPUT_FORMAT, "input_audio_transcription": transcription, "turn_detection": None}})


def append(pcm: np.ndarray) -> str:
    """`input_audio_buffer.append` of int16 8 kHz audio, mu-law encoded."""
    audio = base64.b64encode(g711.ulaw_encode(np.asarray(pcm, dtype=np.int16))).decode("ascii")
    return json.dumps({"type": "input_audio_buffer.append", "audio": audio})


def commit() -> str:
    return json.dumps({"type": "input_audio_buffer.commit"})


def clear() -> str:
    return json.dumps({"type": "input_audio_buffer.clear"})


def decode_append(event: dict[str, Any]) -> np.ndarray:
    """The int16 audio of an `input_audio_buffer.append` event (for the server double); ValueError if bad."""
    try:
        raw = base64.b64decode(str(event.get("audio", "")), validate=True)
    except ValueError as exc:
        raise ValueError(f"input_audio_buffer.append: audio is not base64 ({exc})") from None
    return g711.ulaw_decode(raw)


def parse_event(message: str | bytes) -> ServerEvent:
    """A server message as a `ServerEvent`; ValueError naming what is wrong with a malformed one. An `error`
    event is a failure of the whole session (item_id empty)."""
    try:
        event = json.loads(message)
    except ValueError as exc:
        raise ValueError(f"realtime event is not JSON: {exc}") from None
    if not isinstance(event, dict) or not isinstance(event.get("type"), str):
        raise ValueError(f"realtime event without a type: {str(message)[:80]!r}")
    kind, item = event["type"], str(event.get("item_id") or "")
    if kind == "conversation.item.input_audio_transcription.delta":
        return ServerEvent(PARTIAL, item, str(event.get("delta") or ""))
    if kind == "conversation.item.input_audio_transcription.completed":
        return ServerEvent(FINAL, item, str(event.get("transcript") or ""))
    if kind == "input_audio_buffer.committed":
        return ServerEvent(COMMITTED, item)
    if kind in ("conversation.item.input_audio_transcription.failed", "error"):
        error = event.get("error")
        error = error if isinstance(error, dict) else {}
        detail = error.get("message") or error.get("code") or error.get("type") or "no detail"
        return ServerEvent(FAILED, item, f"{kind}: {detail}")
    return ServerEvent(IGNORED, item)


__all__ = ["COMMITTED", "FAILED", "FINAL", "IGNORED", "INPUT_FORMAT", "MIN_COMMIT_MS", "PARTIAL", "ServerEvent",
           "append", "clear", "commit", "decode_append", "parse_event", "realtime_url", "session_update"]
