"""Test harness around the simulated PBX: an `EventCollector` that listens on the ARI events websocket with the
real `AriEventStream` and lets a test wait for a given event.
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from typing import Any

from ai_operator.ari.events import AnyEvent
from ai_operator.ari.events_ws import AriEventStream
from ai_operator.background import BackgroundTask

DEFAULT_WAIT_S = 2.0


class EventCollector:
    """Collects every event of one application; `wait_for(type)` returns the first not yet taken."""

    def __init__(
        self, base_url: str, user: str, password: str, app: str = "ai-operator", **stream_kw: Any
    ) -> None:
        self.events: list[AnyEvent] = []
        self.connects: list[bool] = []
        self.error: BaseException | None = None
        self._taken: set[int] = set()
        self._changed = asyncio.Condition()
        self.stream = AriEventStream(base_url, user, password, app, on_connect=self._on_connect, **stream_kw)
        self._task = BackgroundTask(self._run, "event-collector")

    async def _on_connect(self, reconnected: bool) -> None:
        async with self._changed:
            self.connects.append(reconnected)
            self._changed.notify_all()

    async def start(self, timeout: float = DEFAULT_WAIT_S) -> EventCollector:
        self._task.start()
        await self.wait_connects(1, timeout)
        return self

    async def _run(self) -> None:
        try:
            async for ev in self.stream:
                async with self._changed:
                    self.events.append(ev)
                    self._changed.notify_all()
        except Exception as exc:
            self.error = exc
            async with self._changed:
                self._changed.notify_all()

    async def wait_connects(self, n: int, timeout: float = DEFAULT_WAIT_S) -> None:
        async with self._changed:
            await asyncio.wait_for(
                self._changed.wait_for(lambda: len(self.connects) >= n or self.error), timeout
            )
        if self.error is not None:
            raise self.error

    async def wait_for(
        self, event_type: str, pred: Callable[[Any], bool] | None = None, timeout: float = DEFAULT_WAIT_S
    ) -> Any:
        """The first untaken event of `event_type` matching `pred` (marked taken)."""

        def find() -> int | None:
            for i, ev in enumerate(self.events):
                if i not in self._taken and ev.type == event_type and (pred is None or pred(ev)):
                    return i
            return None

        async with self._changed:
            await asyncio.wait_for(self._changed.wait_for(lambda: find() is not None or self.error), timeout)
            if self.error is not None:
                raise self.error
            i = find()
            assert i is not None
            self._taken.add(i)
            return self.events[i]

    def types(self) -> list[str]:
        return [e.type for e in self.events]

    async def close(self) -> None:
        await self.stream.close()
        await self._task.stop()
