"""Logging set-up: every log line goes through structlog.

On a terminal the lines are readable (key=value, coloured); otherwise (systemd, CI, files) each line is one
JSON object. Secrets never reach a log line: `redact` masks known secret values wherever they appear.
Libraries that log through the standard library (psycopg, psycopg_pool, asyncio, aiohttp) are routed through
the same renderer and masking by a root handler; their chatter below WARNING shows only at LOG_LEVEL=debug.

The daemon logs in the background (`background=True`): a line is rendered where it is logged, then written by
one writer thread (`BackgroundWriter`), because a write can block (journald's socket full, a log file behind a
journal commit) and the event loop that logs is the one that paces every call's audio. Past `QUEUE_LINES` unwritten lines, new ones are dropped and counted, and
a `log_lines_dropped` line says how many once the writer catches up; what is queued is written at exit.
"""

from __future__ import annotations

import atexit
import json
import logging
import queue
import sys
import threading
from typing import Any

import structlog
from structlog.typing import EventDict

_SECRETS: set[str] = set()
QUEUE_LINES = 10_000  # unwritten lines the background writer holds before it drops new ones
EXIT_FLUSH_S = 5.0  # at exit, the writer gets this long to write what is queued


def register_secret(value: str | None) -> None:
    """Remember a secret value (password, API key) so that no log line can carry it."""
    if value and len(value) >= 4:
        _SECRETS.add(value)


def redact(text: str) -> str:
    """Replace every registered secret in `text` by `***`."""
    for secret in _SECRETS:
        if secret in text:
            text = text.replace(secret, "***")
    return text


def _redact_processor(_logger: Any, _name: str, event_dict: EventDict) -> EventDict:
    if not _SECRETS:
        return event_dict
    for key, value in list(event_dict.items()):
        if isinstance(value, str):
            event_dict[key] = redact(value)
        elif isinstance(value, BaseException):
            event_dict[key] = redact(repr(value))
    return event_dict


class BackgroundWriter:
    """A text stream whose `write` only queues; one daemon thread writes (and flushes) what is queued, in batches.
    `close()` writes what is left (it is registered to run at exit)."""

    def __init__(self, stream: Any, *, fmt: str = "json", max_lines: int = QUEUE_LINES) -> None:
        self.stream = stream
        self.max_lines = max_lines
        self.dropped = 0
        self._fmt = fmt
        self._queue: queue.SimpleQueue[str | None] = queue.SimpleQueue()
        self._pending = 0  # lines queued and not written yet
        self._count_lock = threading.Lock()  # `+=` is not atomic across threads: any thread may log
        self._reported = 0
        self._closed = False
        self._thread = threading.Thread(target=self._run, name="log-writer", daemon=True)
        self._thread.start()
        atexit.register(self.close)

    def write(self, text: str) -> int:
        if self._closed:
            self.stream.write(text)
            return len(text)
        with self._count_lock:
            if self._pending >= self.max_lines:
                self.dropped += 1
                return len(text)
            self._pending += 1
        self._queue.put(text)
        return len(text)

    def flush(self) -> None:
        """Nothing to do here: the writer flushes after every batch."""

    def isatty(self) -> bool:
        return bool(getattr(self.stream, "isatty", lambda: False)())

    def close(self, timeout: float = EXIT_FLUSH_S) -> None:
        """Write what is queued (waiting at most `timeout`), then write directly from now on."""
        if self._closed:
            return
        self._queue.put(None)
        self._thread.join(timeout)
        self._closed = True
        atexit.unregister(self.close)

    def _run(self) -> None:
        get = self._queue.get
        while True:
            item = get()
            batch: list[str] = []
            while item is not None:
                batch.append(item)
                try:
                    item = self._queue.get_nowait()
                except queue.Empty:
                    break
            self._write(batch)
            if item is None:
                return

    def _write(self, batch: list[str]) -> None:
        written = len(batch)  # queued lines (a drop notice added below was never queued)
        dropped = self.dropped
        if dropped > self._reported:
            batch.append(self._dropped_line(dropped - self._reported))
            self._reported = dropped
        try:
            self.stream.write("".join(batch))
            self.stream.flush()
        except (OSError, ValueError):  # the stream is gone (closed at exit, a broken pipe): nothing to tell it
            pass
        with self._count_lock:
            self._pending -= written

    def _dropped_line(self, count: int) -> str:
        fields = {"event": "log_lines_dropped", "count": count, "level": "warning",
                  "reason": f"more than {self.max_lines} lines waited to be written"}
        if self._fmt == "json":
            return json.dumps(fields) + "\n"
        return " ".join(f"{k}={v}" for k, v in fields.items()) + "\n"


_STDLIB_HANDLER = "ai-operator-structlog"


def _route_stdlib(level_no: int, renderer: Any, stream: Any) -> None:
    """One handler on the root logger that renders foreign records like ours (replacing an earlier one)."""
    formatter = structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[
            structlog.contextvars.merge_contextvars,
            structlog.stdlib.add_log_level,
            structlog.stdlib.add_logger_name,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
        ],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            _redact_processor,
            renderer,
        ],
    )
    handler = logging.StreamHandler(stream)
    handler.set_name(_STDLIB_HANDLER)
    handler.setFormatter(formatter)
    root = logging.getLogger()
    for old in [h for h in root.handlers if h.get_name() == _STDLIB_HANDLER]:
        root.removeHandler(old)
    # psycopg_pool logs every connection checkout at INFO: libraries speak from WARNING on, unless debugging.
    # The handler filters too: a library may set its own logger's level (psycopg sets WARNING).
    foreign_level = _foreign_level(level_no)
    handler.setLevel(foreign_level)
    root.addHandler(handler)
    root.setLevel(foreign_level)


def _foreign_level(level_no: int) -> int:
    return logging.INFO if level_no <= logging.DEBUG else max(level_no, logging.WARNING)


def set_log_level(level: str) -> None:
    """New lines from now on are filtered at `level` (a reload); the format and the writer stay as they are."""
    level_no = logging.getLevelName(level.upper())
    structlog.configure(wrapper_class=structlog.make_filtering_bound_logger(level_no))
    root = logging.getLogger()
    for handler in root.handlers:
        if handler.get_name() == _STDLIB_HANDLER:
            handler.setLevel(_foreign_level(level_no))
    root.setLevel(_foreign_level(level_no))


_background: BackgroundWriter | None = None


def configure_logging(level: str = "info", fmt: str = "auto", stream: Any = None, *, background: bool = False) -> None:
    """Configure structlog and route the standard library's logging through it. `fmt` is `json`, `console` or
    `auto` (console when the stream is a TTY). With `background`, lines are written by a writer thread (the
    daemon: its event loop never waits on a write)."""
    global _background
    stream = stream or sys.stderr
    if fmt == "auto":
        fmt = "console" if getattr(stream, "isatty", lambda: False)() else "json"
    if _background is not None:  # configured again: the earlier writer finishes first
        _background.close()
        _background = None
    if background:
        stream = _background = BackgroundWriter(stream, fmt=fmt)
    renderer: Any = (
        structlog.dev.ConsoleRenderer(colors=True) if fmt == "console" else structlog.processors.JSONRenderer(ensure_ascii=False)
    )
    level_no = logging.getLevelName(level.upper())
    _route_stdlib(level_no, renderer, stream)
    structlog.configure(
        processors=[
            structlog.contextvars.merge_contextvars,
            structlog.processors.add_log_level,
            structlog.processors.TimeStamper(fmt="iso", utc=True),
            structlog.processors.format_exc_info,
            _redact_processor,  # after format_exc_info, so a traceback's text is masked too
            renderer,
        ],
        wrapper_class=structlog.make_filtering_bound_logger(level_no),
        logger_factory=structlog.WriteLoggerFactory(file=stream),  # one write per line
        cache_logger_on_first_use=False,
    )


def get_logger(name: str) -> Any:
    """A structlog logger bound with the component name."""
    return structlog.get_logger(component=name)
