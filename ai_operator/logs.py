"""Logging set-up: every log line goes through structlog.

On a terminal the lines are readable (key=value, coloured); otherwise (systemd, CI, files) each line is one
JSON object. Secrets never reach a log line: `redact` masks known secret values wherever they appear.
Libraries that log through the standard library (psycopg, psycopg_pool, asyncio, aiohttp) are routed through
the same renderer and masking by a root handler; their chatter below WARNING shows only at LOG_LEVEL=debug.
"""

from __future__ import annotations

import logging
import sys
from typing import Any

import structlog
from structlog.typing import EventDict

_SECRETS: set[str] = set()


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
    foreign_level = logging.INFO if level_no <= logging.DEBUG else max(level_no, logging.WARNING)
    handler.setLevel(foreign_level)
    root.addHandler(handler)
    root.setLevel(foreign_level)


def configure_logging(level: str = "info", fmt: str = "auto", stream: Any = None) -> None:
    """Configure structlog and route the standard library's logging through it. `fmt` is `json`, `console` or
    `auto` (console when the stream is a TTY)."""
    stream = stream or sys.stderr
    if fmt == "auto":
        fmt = "console" if getattr(stream, "isatty", lambda: False)() else "json"
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
        logger_factory=structlog.PrintLoggerFactory(file=stream),
        cache_logger_on_first_use=False,
    )


def get_logger(name: str) -> Any:
    """A structlog logger bound with the component name."""
    return structlog.get_logger(component=name)
