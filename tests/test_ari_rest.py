"""The ARI REST client's error mapping and the simulated PBX's authentication, against real sockets."""

from __future__ import annotations

import asyncio
import base64
import socket

import aiohttp
import pytest

from ai_operator.ari import AriAuthError, AriHttpError, AriRestClient, AriUnavailable
from ai_operator.sim.pbx import SimulatedPbx

PASSWORD = "s3cret-pass"


@pytest.fixture
async def pbx():
    sim = SimulatedPbx(user="ari", password=PASSWORD)
    await sim.start()
    yield sim
    await sim.stop()


async def test_wrong_password_raises_auth_error_without_leaking_it(pbx):
    async with AriRestClient(pbx.base_url, "ari", "wrong-password") as client:
        with pytest.raises(AriAuthError) as info:
            await client.asterisk_info()
    msg = str(info.value)
    assert info.value.status == 401
    assert "ARI_USER/ARI_PASSWORD" in msg and "ari.conf" in msg
    assert "wrong-password" not in msg


async def test_404_carries_the_server_message(pbx):
    async with AriRestClient(pbx.base_url, "ari", PASSWORD) as client:
        with pytest.raises(AriHttpError) as info:
            await client.get_channel("no-such-channel")
        assert not isinstance(info.value, AriAuthError)
        assert info.value.status == 404 and info.value.message == "Channel not found"
        assert info.value.method == "GET" and info.value.path == "/channels/no-such-channel"
        with pytest.raises(AriHttpError) as info:
            await client.get_application("nobody")
        assert info.value.status == 404 and "Application does not exist" in info.value.message


async def test_connection_refused_is_unavailable_with_hints():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    async with AriRestClient(f"http://127.0.0.1:{port}/ari", "ari", PASSWORD) as client:
        with pytest.raises(AriUnavailable) as info:
            await client.list_channels()
    msg = str(info.value)
    assert "ARI_URL" in msg and "http.conf" in msg and "res_ari" in msg and PASSWORD not in msg


async def test_timeout_is_unavailable():
    async def silent(reader, writer):  # accepts, never answers
        await asyncio.sleep(5)

    server = await asyncio.start_server(silent, "127.0.0.1", 0)
    port = server.sockets[0].getsockname()[1]
    try:
        async with AriRestClient(f"http://127.0.0.1:{port}/ari", "ari", PASSWORD, timeout_s=0.2) as client:
            with pytest.raises(AriUnavailable, match="timed out"):
                await client.asterisk_info()
    finally:
        server.close()


async def test_api_key_query_and_basic_auth_are_accepted_and_api_docs_need_credentials(pbx):
    async with aiohttp.ClientSession() as s:
        async with s.get(pbx.base_url + "/api-docs/resources.json") as r:
            assert r.status == 401
        async with s.get(pbx.base_url + f"/asterisk/info?api_key=ari:{PASSWORD}") as r:
            assert r.status == 200 and (await r.json())["system"]["version"] == "22.10.1"
        basic = {"Authorization": "Basic " + base64.b64encode(f"ari:{PASSWORD}".encode()).decode()}
        async with s.get(pbx.base_url + "/api-docs/channels.json", headers=basic) as r:
            assert r.status == 200 and (await r.json())["resourcePath"] == "/api-docs/channels.{format}"
    async with AriRestClient(pbx.base_url, "ari", PASSWORD) as client:
        resources = await client.api_docs_resources()
    paths = {a["path"] for a in resources["apis"]}
    assert "/api-docs/channels.{format}" in paths and resources["apiVersion"] == "10.0.0"


async def test_shared_session_is_not_closed_by_the_client(pbx):
    async with aiohttp.ClientSession() as session:
        client = AriRestClient(pbx.base_url, "ari", PASSWORD, session=session)
        assert await client.list_bridges() == []
        await client.close()
        assert not session.closed
