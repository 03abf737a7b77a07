"""The turn boundary: hold an utterance that ends dangling and merge it with its continuation. Pure, clock given.

A policy says, through `utterance_may_continue`, when a transcript ends mid-thought ("तो मेरा rate लगभग").
Such a fragment is held for `hold_s`; a continuation that arrives in time is merged before anything is
decided; if nothing arrives, the fragment is decided on as it stands. The console (virtual clock) and the
phone (monotonic clock) both use this.
"""

from __future__ import annotations

from collections.abc import Callable


class TurnHolder:
    """Turns transcripts into decided turns, holding dangling fragments for `hold_s`."""

    def __init__(self, may_continue: Callable[[str], bool], hold_s: float) -> None:
        self._may_continue = may_continue
        self.hold_s = hold_s
        self._pending: str | None = None
        self._deadline: float | None = None

    @property
    def pending(self) -> str | None:
        """The fragment being held, if any."""
        return self._pending

    def deadline(self) -> float | None:
        """When the held fragment must be decided on as it stands (None when nothing is held)."""
        return self._deadline

    def feed(self, text: str, now: float) -> list[str]:
        """A new transcript at `now`; returns the turns to decide now, in order (possibly none)."""
        text = text.strip()
        ready = self.poll(now)
        if not text:
            if self._pending is not None and self._deadline is None:
                self._deadline = now + self.hold_s  # the awaited continuation was empty: hold again
            return ready
        if self._pending is not None:
            text = f"{self._pending} {text}"
            self._pending = self._deadline = None
        if self.hold_s > 0 and self._may_continue(text):
            self._pending = text
            self._deadline = now + self.hold_s
            return ready
        return [*ready, text]

    def continuation_started(self) -> None:
        """The caller started speaking again while a fragment is held (phone path): keep holding until that
        speech is transcribed, however long it takes; `feed` then merges or re-arms the hold."""
        if self._pending is not None:
            self._deadline = None

    def poll(self, now: float) -> list[str]:
        """The held fragment, if its hold has run out by `now`."""
        if self._deadline is not None and now >= self._deadline:
            return self.flush()
        return []

    def flush(self) -> list[str]:
        """Whatever is held, at once (end of input)."""
        if self._pending is None:
            return []
        text = self._pending
        self._pending = self._deadline = None
        return [text]
