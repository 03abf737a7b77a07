"""Log set-up: the standard library's loggers (psycopg, psycopg_pool, asyncio...) go through the same structlog
renderer and secret masking as our own lines: one JSON object per line, never plain text in a JSON log."""

from __future__ import annotations

import asyncio
import io
import json
import logging
from collections.abc import Iterator
from contextlib import contextmanager

import structlog
from psycopg_pool import AsyncConnectionPool

from ai_operator import logs
from tests.support.ports import closed_tcp_port
from tests.support.wait import eventually


@contextmanager
def captured(level: str = "info", fmt: str = "json") -> Iterator[io.StringIO]:
    saved = structlog.get_config()
    root = logging.getLogger()
    saved_level, saved_handlers = root.level, list(root.handlers)
    buf = io.StringIO()
    logs.configure_logging(level, fmt, stream=buf)
    try:
        yield buf
    finally:
        structlog.configure(**saved)
        root.handlers[:] = saved_handlers
        root.setLevel(saved_level)


def json_lines(buf: io.StringIO) -> list[dict]:
    text = buf.getvalue()
    out = []
    for line in text.splitlines():
        if line.strip():
            out.append(json.loads(line))  # a plain-text line fails here
    return out


def test_a_stdlib_line_is_json_with_level_logger_and_masked_secret() -> None:
    secret = "stdl1b-s3cret"
    with captured() as buf:
        logs.register_secret(secret)
        try:
            logging.getLogger("psycopg.pool").warning("error connecting in %r: password %s refused", "pool-1", secret)
            try:
                raise RuntimeError(f"dsn postgresql://u:{secret}@h/db")
            except RuntimeError:
                logging.getLogger("psycopg").exception("connection broke")
            structlog.get_logger(component="test").warning("own_line", detail=secret)
        finally:
            logs._SECRETS.discard(secret)
    lines = json_lines(buf)
    assert [ln["event"] for ln in lines] == [
        "error connecting in 'pool-1': password *** refused", "connection broke", "own_line"]
    assert lines[0]["level"] == "warning" and lines[0]["logger"] == "psycopg.pool" and "timestamp" in lines[0]
    assert lines[1]["level"] == "error" and "RuntimeError: dsn postgresql://u:***@h/db" in lines[1]["exception"]
    assert secret not in buf.getvalue()


def test_library_chatter_below_warning_stays_out_unless_debug() -> None:
    with captured("info") as buf:
        logging.getLogger("psycopg.pool").info("connection requested from 'pool-1'")
        logging.getLogger("psycopg.pool").warning("discarding broken connection")
    assert [ln["event"] for ln in json_lines(buf)] == ["discarding broken connection"]
    with captured("debug") as buf:  # psycopg keeps itself at WARNING (its own default); others speak at INFO
        logging.getLogger("aiohttp.web").info("serving on 127.0.0.1:8088")
    assert [ln["event"] for ln in json_lines(buf)] == ["serving on 127.0.0.1:8088"]
    with captured("error") as buf:
        logging.getLogger("psycopg.pool").warning("discarding broken connection")
    assert json_lines(buf) == []


def test_configuring_twice_does_not_duplicate_lines() -> None:
    with captured():
        buf = io.StringIO()
        logs.configure_logging("info", "json", stream=buf)
        logging.getLogger("aiohttp.server").error("boom")
        assert [ln["event"] for ln in json_lines(buf)] == ["boom"]


async def test_a_real_psycopg_pool_failure_is_a_json_line() -> None:
    port = closed_tcp_port()
    with captured() as buf:
        pool = AsyncConnectionPool(
            f"postgresql://ops@127.0.0.1:{port}/ops", min_size=1, open=False, reconnect_timeout=60,
            kwargs={"connect_timeout": 2},
        )
        await pool.open(wait=False)
        try:
            await eventually(lambda: "psycopg.pool" in buf.getvalue(), what="psycopg_pool's warning")
        finally:
            await asyncio.wait_for(pool.close(), 30)
    pool_lines = [ln for ln in json_lines(buf) if ln.get("logger") == "psycopg.pool"]
    assert pool_lines and pool_lines[0]["level"] == "warning"
    assert str(port) in pool_lines[0]["event"]


def test_a_reloaded_log_level_filters_new_lines_in_the_same_format() -> None:
    with captured("info") as buf:
        log = logs.get_logger("test")
        log.info("before_reload")
        logs.set_log_level("warning")  # LOG_LEVEL=warning, then systemctl reload
        log.info("hidden_after_reload")
        logging.getLogger("psycopg").warning("library_warning")
        log.warning("shown_after_reload")
        logs.set_log_level("debug")
        log.debug("debug_after_second_reload")
    events = [line.get("event") for line in json_lines(buf)]
    assert events == ["before_reload", "library_warning", "shown_after_reload", "debug_after_second_reload"]
