"""Thin aiohttp client for the ARI REST calls the daemon makes (Asterisk 22 `/ari`).

Scalars go in the query string, `variables` in a JSON body (`{"variables": {...}}`), as channels.json declares.
HTTP errors become `AriHttpError` carrying the server's message, 401 `AriAuthError`, unreachable `AriUnavailable`.
The password is never put into an error or a log line.
"""

from __future__ import annotations

import asyncio
import base64
import json
from typing import Any

import aiohttp

from ai_operator.ari.errors import AriAuthError, AriError, AriHttpError, AriUnavailable, ModelError
from ai_operator.ari.models import Bridge, Channel
from ai_operator.logs import get_logger, register_secret

DEFAULT_TIMEOUT_S = 5.0
log = get_logger("ari")


def _q(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, list | tuple):
        return ",".join(str(v) for v in value)
    return str(value)


class AriRestClient:
    """ARI REST client. `base_url` is like `http://127.0.0.1:8088/ari`."""

    def __init__(
        self,
        base_url: str,
        user: str,
        password: str,
        *,
        session: aiohttp.ClientSession | None = None,
        timeout_s: float = DEFAULT_TIMEOUT_S,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        token = base64.b64encode(f"{user}:{password}".encode()).decode()
        self._headers = {"Authorization": f"Basic {token}"}
        register_secret(password)
        self._session = session
        self._own_session = session is None
        self._timeout = aiohttp.ClientTimeout(total=timeout_s)

    def _get_session(self) -> aiohttp.ClientSession:
        if self._session is None or self._session.closed:
            self._session = aiohttp.ClientSession()
            self._own_session = True
        return self._session

    async def close(self) -> None:
        if self._own_session and self._session is not None and not self._session.closed:
            await self._session.close()

    async def request(
        self,
        method: str,
        path: str,
        *,
        query: dict[str, Any] | None = None,
        body: dict[str, Any] | None = None,
    ) -> Any:
        """One request; returns the decoded JSON (None for 204/empty). `path` is relative to the base URL."""
        params = {k: _q(v) for k, v in (query or {}).items() if v is not None}
        url = self.base_url + path
        try:
            async with self._get_session().request(
                method, url, params=params, json=body, headers=self._headers, timeout=self._timeout
            ) as resp:
                text = await resp.text()
                status = resp.status
        except (TimeoutError, aiohttp.ClientConnectionError, OSError) as exc:
            reason = (
                "timed out" if isinstance(exc, asyncio.TimeoutError) else (str(exc) or type(exc).__name__)
            )
            raise AriUnavailable(self.base_url, f"{method} {path}: {reason}") from None
        if status == 401:
            raise AriAuthError(method, path, _message(text) or "Authentication required")
        if status >= 400:
            raise AriHttpError(status, method, path, _message(text) or f"HTTP {status}")
        if not text.strip():
            return None
        try:
            return json.loads(text)
        except ValueError:
            raise AriError(f"ARI {method} {path}: response is not JSON: {text[:200]!r}") from None

    async def _model(self, cls: Any, method: str, path: str, **kw: Any) -> Any:
        data = await self.request(method, path, **kw)
        return _from_json(cls, data, method, path)

    # -- channels --------------------------------------------------------------------------------------
    async def answer(self, channel_id: str) -> None:
        await self.request("POST", f"/channels/{channel_id}/answer")

    async def hangup(self, channel_id: str, reason: str = "normal") -> None:
        await self.request("DELETE", f"/channels/{channel_id}", query={"reason": reason})

    async def continue_in_dialplan(
        self,
        channel_id: str,
        context: str | None = None,
        extension: str | None = None,
        priority: int | None = None,
        label: str | None = None,
    ) -> None:
        query = {"context": context, "extension": extension, "priority": priority, "label": label}
        await self.request("POST", f"/channels/{channel_id}/continue", query=query)

    async def redirect(self, channel_id: str, endpoint: str) -> None:
        await self.request("POST", f"/channels/{channel_id}/redirect", query={"endpoint": endpoint})

    async def external_media(
        self,
        app: str,
        external_host: str,
        fmt: str,
        *,
        channel_id: str | None = None,
        encapsulation: str = "rtp",
        transport: str = "udp",
        connection_type: str = "client",
        direction: str = "both",
        variables: dict[str, str] | None = None,
    ) -> Channel:
        query = {
            "app": app,
            "external_host": external_host,
            "format": fmt,
            "channelId": channel_id,
            "encapsulation": encapsulation,
            "transport": transport,
            "connection_type": connection_type,
            "direction": direction,
        }
        body = {"variables": variables} if variables else None
        return await self._model(Channel, "POST", "/channels/externalMedia", query=query, body=body)

    async def get_channel_var(self, channel_id: str, variable: str) -> str:
        data = await self.request("GET", f"/channels/{channel_id}/variable", query={"variable": variable})
        if not isinstance(data, dict) or not isinstance(data.get("value"), str):
            raise AriError(f"ARI GET /channels/{channel_id}/variable: unexpected response {data!r}")
        return data["value"]

    async def get_channel(self, channel_id: str) -> Channel:
        return await self._model(Channel, "GET", f"/channels/{channel_id}")

    async def list_channels(self) -> list[Channel]:
        return await self._list(Channel, "/channels")

    async def originate(
        self,
        endpoint: str,
        app: str,
        app_args: str,
        *,
        caller_id: str | None = None,
        timeout: int = 30,
        channel_id: str | None = None,
        variables: dict[str, str] | None = None,
    ) -> Channel:
        query = {
            "endpoint": endpoint,
            "app": app,
            "appArgs": app_args,
            "callerId": caller_id,
            "timeout": timeout,
            "channelId": channel_id,
        }
        body = {"variables": variables} if variables else None
        return await self._model(Channel, "POST", "/channels", query=query, body=body)

    # -- bridges ---------------------------------------------------------------------------------------
    async def create_bridge(
        self, bridge_type: str = "mixing", bridge_id: str | None = None, name: str | None = None
    ) -> Bridge:
        query = {"type": bridge_type, "bridgeId": bridge_id, "name": name}
        return await self._model(Bridge, "POST", "/bridges", query=query)

    async def add_channel(self, bridge_id: str, channel_ids: list[str]) -> None:
        await self.request("POST", f"/bridges/{bridge_id}/addChannel", query={"channel": list(channel_ids)})

    async def remove_channel(self, bridge_id: str, channel_ids: list[str]) -> None:
        await self.request(
            "POST", f"/bridges/{bridge_id}/removeChannel", query={"channel": list(channel_ids)}
        )

    async def destroy_bridge(self, bridge_id: str) -> None:
        await self.request("DELETE", f"/bridges/{bridge_id}")

    async def list_bridges(self) -> list[Bridge]:
        return await self._list(Bridge, "/bridges")

    # -- system ----------------------------------------------------------------------------------------
    async def asterisk_info(self) -> dict[str, Any]:
        return await self._dict("/asterisk/info")

    async def get_application(self, app: str) -> dict[str, Any]:
        return await self._dict(f"/applications/{app}")

    async def api_docs_resources(self) -> dict[str, Any]:
        return await self._dict("/api-docs/resources.json")

    async def _dict(self, path: str) -> dict[str, Any]:
        data = await self.request("GET", path)
        if not isinstance(data, dict):
            raise AriError(f"ARI GET {path}: expected a JSON object, got {type(data).__name__}")
        return data

    async def _list(self, cls: Any, path: str) -> list[Any]:
        data = await self.request("GET", path)
        if not isinstance(data, list):
            raise AriError(f"ARI GET {path}: expected a JSON list, got {type(data).__name__}")
        return [_from_json(cls, item, "GET", path) for item in data]

    async def __aenter__(self) -> AriRestClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()


def _from_json(cls: Any, data: Any, method: str, path: str) -> Any:
    """`cls.from_json(data)`; a mismatch becomes an `AriError` naming the request and the field."""
    try:
        return cls.from_json(data)
    except ModelError as exc:
        raise AriError(f"ARI {method} {path}: unexpected response: {exc}") from None


def _message(text: str) -> str:
    """The `message` of an Asterisk JSON error body, else the (trimmed) text."""
    try:
        data = json.loads(text)
    except ValueError:
        return text.strip()[:300]
    if isinstance(data, dict) and isinstance(data.get("message"), str):
        return data["message"]
    return text.strip()[:300]


__all__ = ["DEFAULT_TIMEOUT_S", "AriRestClient"]
