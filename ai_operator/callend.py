"""CallEnd: the hang-up state machine of the freight spec ("Ending the call"). Pure, clock injected.

Every path that ends a call arms the same object (model goodbye, canned goodbye, give-up line, abuse strike).
Arming starts a watchdog (20 s). The call ends by the bot only on audio that STARTED after arming: when such an
utterance stops (not interrupted), a playout grace (400 ms) starts and `poll` then says "bot". A barge-in on the
goodbye holds the line for what the caller says (grace cancelled); the next bot utterance started after arming
re-enables ending; the watchdog bounds it all. The end is reported exactly once; anything that records an end
later (caller hang-up after the end, a second arm, an idle timeout) is a no-op kept in `late_events`.
"""

from __future__ import annotations

WATCHDOG_S = 20.0
PLAYOUT_GRACE_S = 0.4
ENDED_BY_BOT = "bot"
ENDED_BY_WATCHDOG = "watchdog"


class CallEnd:
    """One call's end decision. The runtime feeds it playout events and polls it at `next_deadline()`."""

    def __init__(self, watchdog_s: float = WATCHDOG_S, grace_s: float = PLAYOUT_GRACE_S) -> None:
        if watchdog_s <= 0 or grace_s < 0:
            raise ValueError(f"CallEnd: watchdog_s must be > 0 and grace_s >= 0, got {watchdog_s}, {grace_s}")
        self.watchdog_s = watchdog_s
        self.grace_s = grace_s
        self.armed = False
        self.reason: str | None = None
        self.armed_at: float | None = None
        self.ended = False
        self.ended_by: str | None = None
        self.held = False  # a barge-in on the goodbye holds the line
        self.late_events: list[str] = []
        self._watchdog_at = 0.0  # set by `arm`; read only while armed
        self._grace_at: float | None = None
        self._speaking_since_arm = False

    def arm(self, reason: str, now: float) -> bool:
        """Decide to end the call. The first arm starts the watchdog and returns True; later ones are no-ops."""
        if self.armed or self.ended:
            self.late_events.append(f"arm:{reason}")
            return False
        self.armed = True
        self.reason = reason
        self.armed_at = now
        self._watchdog_at = now + self.watchdog_s
        return True

    def _live(self) -> bool:
        return self.armed and not self.ended

    def on_bot_started(self, utterance_started_at: float, now: float) -> None:
        """A bot utterance began playing at `utterance_started_at`; it counts only if that is after arming."""
        if not self._live() or self.armed_at is None or utterance_started_at < self.armed_at:
            return
        self._speaking_since_arm = True
        self._grace_at = None  # more audio follows: wait for it
        self.held = False

    def on_bot_stopped(self, now: float, interrupted: bool = False) -> None:
        """A bot utterance stopped. After audio that started after arming (not interrupted) the grace starts."""
        if not self._live() or not self._speaking_since_arm:
            return  # audio that started before arming (e.g. the previous line's late stop) never ends the call
        self._speaking_since_arm = False
        if interrupted:
            self.held = True
            self._grace_at = None
        else:
            self._grace_at = now + self.grace_s

    def on_barge_in(self, now: float) -> None:
        """The caller talks over the goodbye (or during the grace): hold the line; the watchdog still bounds it."""
        if not self._live():
            return
        self.held = True
        self._grace_at = None
        self._speaking_since_arm = False

    def next_deadline(self) -> float | None:
        """When the runtime should call `poll` next (None: nothing pending)."""
        if not self._live():
            return None
        return self._watchdog_at if self._grace_at is None else min(self._grace_at, self._watchdog_at)

    def poll(self, now: float) -> str | None:
        """"bot" when the grace elapsed, "watchdog" when the watchdog fired; non-None exactly once."""
        deadline = self.next_deadline()
        if deadline is None or now < deadline:
            return None
        who = ENDED_BY_BOT if deadline == self._grace_at else ENDED_BY_WATCHDOG
        self.record_ended_by(who)
        return who

    def record_ended_by(self, who: str) -> bool:
        """Record who ended the call (caller hang-up, system, ...). First recorder wins; later ones return False
        and are kept in `late_events`."""
        if self.ended:
            self.late_events.append(who)
            return False
        self.ended = True
        self.ended_by = who
        self._grace_at = None
        return True
