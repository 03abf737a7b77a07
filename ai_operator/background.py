"""Background tasks that run until they are stopped: the pacer, the lag probe, the database supervisor, the
record writer, the simulated PBX's media pacer. One way to start them (idempotent, named) and one way to stop
them (cancel, then wait until the task has really finished, so nothing it holds outlives `stop()`).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Callable, Coroutine
from typing import Any


async def cancel_and_wait(task: asyncio.Task[Any] | None) -> None:
    """Cancel `task` and wait until it has finished. An error the task ended with is raised here (it is not
    lost); its cancellation is not."""
    if task is None:
        return
    task.cancel()
    with contextlib.suppress(asyncio.CancelledError):
        await task


class BackgroundTask:
    """A coroutine function run as one named task from `start()` until `stop()`."""

    def __init__(self, run: Callable[[], Coroutine[Any, Any, None]], name: str) -> None:
        self._run = run
        self.name = name
        self._task: asyncio.Task[None] | None = None

    @property
    def task(self) -> asyncio.Task[None] | None:
        """The task from the last `start()` (also when it has ended by itself); None before and after `stop()`."""
        return self._task

    @property
    def running(self) -> bool:
        return self._task is not None and not self._task.done()

    def start(self) -> None:
        """Start the task unless it is running (one that has finished is started again)."""
        if not self.running:
            self._task = asyncio.get_running_loop().create_task(self._run(), name=self.name)

    async def stop(self) -> None:
        """Cancel the task and wait for it (nothing when it was never started)."""
        task, self._task = self._task, None
        await cancel_and_wait(task)
