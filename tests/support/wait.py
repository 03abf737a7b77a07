"""Waiting in tests without fixed sleeps: poll a condition until it holds or a generous deadline passes.

A deadline here is a failure bound, not a timing assertion: it only decides how long a broken build takes to
fail, so it is set far above what a loaded machine needs.
"""

from __future__ import annotations

import asyncio
import inspect
import time
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar, overload

T = TypeVar("T")
DEFAULT_TIMEOUT_S = 30.0
POLL_S = 0.01


@overload
async def eventually(
    predicate: Callable[[], Awaitable[T | None]], timeout: float = DEFAULT_TIMEOUT_S, what: str = "condition"
) -> T: ...


@overload
async def eventually(
    predicate: Callable[[], T | None], timeout: float = DEFAULT_TIMEOUT_S, what: str = "condition"
) -> T: ...


async def eventually(
    predicate: Callable[[], Any], timeout: float = DEFAULT_TIMEOUT_S, what: str = "condition"
) -> Any:
    """Poll `predicate` (sync or async) until it returns a truthy value, and return that value.
    Raises AssertionError naming `what` when it is still falsy after `timeout` seconds."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if inspect.isawaitable(value):
            value = await value
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        await asyncio.sleep(POLL_S)


def eventually_sync(
    predicate: Callable[[], T | None], timeout: float = DEFAULT_TIMEOUT_S, what: str = "condition", *,
    poll_s: float = POLL_S,
) -> T:
    """`eventually` for code outside an event loop (threads, subprocesses). `poll_s`: longer for a predicate
    that runs a command or reads a file."""
    deadline = time.monotonic() + timeout
    while True:
        value = predicate()
        if value:
            return value
        if time.monotonic() >= deadline:
            raise AssertionError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(poll_s)
