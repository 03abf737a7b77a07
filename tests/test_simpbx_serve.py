"""`serve_forever` (the `ai-operator simpbx` command) serves ARI on the given address until cancelled."""

from __future__ import annotations

import asyncio
import socket

import pytest

from ai_operator.ari import AriAuthError, AriRestClient, AriUnavailable
from ai_operator.background import cancel_and_wait
from ai_operator.sim.pbx import serve_forever
from tests.support.wait import eventually


async def test_serve_forever_serves_until_cancelled():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    task = asyncio.create_task(serve_forever("127.0.0.1", port, "demo", "demo-pass"))
    url = f"http://127.0.0.1:{port}/ari"
    try:
        async with AriRestClient(url, "demo", "demo-pass") as client:
            async def info() -> dict:
                try:
                    return await client.asterisk_info()
                except AriUnavailable:  # not listening yet
                    return {}

            answer = await eventually(info, what="ARI answering")
            assert answer.get("system", {}).get("version") == "22.10.1"
        async with AriRestClient(url, "demo", "other") as client:
            with pytest.raises(AriAuthError):
                await client.list_channels()
    finally:
        await cancel_and_wait(task)
    with socket.socket() as s:  # the port is released
        s.bind(("127.0.0.1", port))
