"""Logging put back after a test that ran `main()` (which points the logs at that test's captured stdout): every
level still reaches the processors, so a later `structlog.testing.capture_logs()` sees info lines as it would in
a fresh process, and the rendered lines go nowhere (no closed stream, nothing kept in memory)."""

from __future__ import annotations

import io

from ai_operator.logs import configure_logging


class _Nowhere(io.TextIOBase):
    def write(self, text: str) -> int:
        return len(text)


def logs_to_nowhere() -> None:
    """Configure logging as a fresh test process would see it, writing to no stream."""
    configure_logging("debug", "json", stream=_Nowhere())
