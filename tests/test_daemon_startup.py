"""A daemon whose start fails part-way (the metrics port is taken) raises a clear error and leaves nothing
running: the spool retry task and the playout pacer started before the failure are stopped."""

from __future__ import annotations

import asyncio
import socket

import pytest

from ai_operator.config import load_settings
from ai_operator.daemon.app import Daemon
from tests.support.ports import closed_tcp_port

BACKGROUND_TASKS = {"playout-pacer", "record-spool-retry"}


async def test_failed_start_releases_what_was_opened(tmp_path) -> None:
    taken = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    taken.bind(("127.0.0.1", 0))
    taken.listen()
    port = taken.getsockname()[1]
    settings = load_settings(None, environ={
        "ARI_URL": f"http://127.0.0.1:{closed_tcp_port()}/ari", "ARI_USER": "u", "ARI_PASSWORD": "startup-pw",
        "STATE_DIR": str(tmp_path), "DATABASE_URL": f"postgresql://u@127.0.0.1:{closed_tcp_port()}/none",  # refused: spool
        "METRICS_HOST": "127.0.0.1", "METRICS_PORT": str(port),
    })
    daemon = Daemon(settings, env_path=None)
    try:
        with pytest.raises(OSError, match=f"metrics server cannot bind 127.0.0.1:{port}"):
            await daemon.serve()
    finally:
        taken.close()
    assert daemon.svc is not None  # set-up got as far as the metrics server
    assert not {t.get_name() for t in asyncio.all_tasks() if not t.done()} & BACKGROUND_TASKS
