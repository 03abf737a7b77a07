"""The daemon's background log writer: a log line never waits on a slow stream (a journald socket that is full, a
file behind PostgreSQL's fsyncs), lines come out whole and in order, what is queued at exit is written, and past
its bound new lines are dropped and counted in a line of their own, never silently."""

from __future__ import annotations

import io
import json
import logging
import threading

import structlog

from ai_operator.logs import BackgroundWriter, configure_logging, get_logger
from tests.support.wait import eventually_sync


class StuckStream(io.StringIO):
    """A stream whose writes block until `release`; `entered` is set once a write is waiting."""

    def __init__(self) -> None:
        super().__init__()
        self.entered = threading.Event()
        self.gate = threading.Event()

    def write(self, text: str) -> int:
        self.entered.set()
        self.gate.wait(30)
        return super().write(text)


def test_a_write_returns_at_once_while_the_stream_is_stuck_and_lines_come_out_in_order() -> None:
    stream = StuckStream()
    writer = BackgroundWriter(stream)
    writer.write("first\n")
    assert stream.entered.wait(10)  # the writer thread is blocked in the stream's write
    for i in range(100):
        writer.write(f"line {i}\n")
    assert stream.getvalue() == ""  # nothing got through yet: the writes above did not wait for the stream
    stream.gate.set()
    writer.close()
    assert stream.getvalue().splitlines() == ["first", *(f"line {i}" for i in range(100))]


def test_past_the_bound_lines_are_dropped_and_counted_in_a_line() -> None:
    stream = StuckStream()
    writer = BackgroundWriter(stream, max_lines=3)
    writer.write("a\n")
    assert stream.entered.wait(10)
    for text in ("b\n", "c\n", *(f"x{i}\n" for i in range(7))):
        writer.write(text)
    assert writer.dropped == 7
    stream.gate.set()
    writer.close()
    lines = stream.getvalue().splitlines()
    assert lines[:3] == ["a", "b", "c"]
    notice = json.loads(lines[3])
    assert notice["event"] == "log_lines_dropped" and notice["count"] == 7 and notice["level"] == "warning"
    assert len(lines) == 4


def test_the_daemons_logging_writes_structlog_and_stdlib_lines_through_the_writer() -> None:
    saved = structlog.get_config()
    stream = StuckStream()
    stream.gate.set()
    try:
        configure_logging("info", "json", stream=stream, background=True)
        get_logger("test").info("one_line", n=1)
        logging.getLogger("psycopg.pool").warning("pool trouble")
        eventually_sync(lambda: len(stream.getvalue().splitlines()) == 2, 10, "both lines written")
        configure_logging("info", "json", stream=io.StringIO())  # configured again: the writer finishes first
    finally:
        structlog.configure(**saved)
    first, second = (json.loads(line) for line in stream.getvalue().splitlines())
    assert first["event"] == "one_line" and first["n"] == 1 and first["component"] == "test"
    assert second["event"] == "pool trouble" and second["level"] == "warning"
