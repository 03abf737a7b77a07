"""`serve_forever` (the `ai-operator simpbx` command) serves ARI on the given address until cancelled."""

from __future__ import annotations

import asyncio
import contextlib
import socket

from ai_operator.ari import AriAuthError, AriRestClient
from ai_operator.simpbx import serve_forever


async def test_serve_forever_serves_until_cancelled():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    task = asyncio.create_task(serve_forever("127.0.0.1", port, "demo", "demo-pass"))
    url = f"http://127.0.0.1:{port}/ari"
    try:
        async with AriRestClient(url, "demo", "demo-pass") as client:
            for _ in range(100):
                try:
                    info = await client.asterisk_info()
                    break
                except Exception:
                    await asyncio.sleep(0.02)
            assert info["system"]["version"] == "22.10.1"
        async with AriRestClient(url, "demo", "other") as client:
            try:
                await client.list_channels()
                raise AssertionError("wrong password accepted")
            except AriAuthError:
                pass
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task
    with socket.socket() as s:  # the port is released
        s.bind(("127.0.0.1", port))
