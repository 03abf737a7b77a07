"""CallEnd: the hang-up state machine of the freight spec ("Ending the call"). Pure, clock injected.

Every path that ends a call arms the same object: a policy's closing or give-up line, a model-written goodbye when
the decision hangs up, and the runtime's forced ends (shutdown, maximum call length). The line said when arming
is an ENDING LINE, and ARCHITECTURE.md "Ending lines" gives its one rule: it is not a turn, it is not cut by the
caller's voice, and the call ends with its last frame. So the call ends by the bot on audio that STARTED after
arming: when that audio stops - played out, stopped, or dropped (`line_lost`: it failed to synthesise or there
was none) - a playout grace (400 ms) starts and `poll` then says "bot". An armed end has a deadline of its own
(`line_deadline`: the expected length of its line, `expected_line_s`, plus `LINE_MARGIN_S`, counted from its
first frame; before that frame from arming, with `SYNTH_BUDGET_S` more for the TTS to start), so a line that never finishes still ends the call a few seconds late, never at the watchdog
(20 s), which only bounds what is left. `fired` names which of the three ended it. The end is reported exactly
once; anything that records an end later (caller hang-up after the end, a second arm, an idle timeout) is a
no-op kept in `late_events`.
"""

from __future__ import annotations

WATCHDOG_S = 20.0
PLAYOUT_GRACE_S = 0.4
LINE_MARGIN_S = 3.0  # the armed end's own deadline: this long past the expected end of its line
SYNTH_BUDGET_S = 10.0  # before the line's first frame: the TTS request's own timeout (speech/openai_tts.py)
SECONDS_PER_CHAR = 0.1  # a slow speaker (10 characters a second): the expected length of a line, on the long side
ENDED_BY_BOT = "bot"
ENDED_BY_WATCHDOG = "watchdog"
FIRED_GRACE = "grace"  # the line stopped and the grace elapsed
FIRED_LINE_DEADLINE = "line_deadline"  # the line did not stop in time: ended anyway, by the bot
FIRED_WATCHDOG = "watchdog"


def expected_line_s(text: str | None) -> float:
    """How long a line of `text` should take to say, on the slow side (0 for no text)."""
    return len(text or "") * SECONDS_PER_CHAR


class CallEnd:
    """One call's end decision. The runtime feeds it playout events and polls it at `next_deadline()`."""

    def __init__(self, watchdog_s: float = WATCHDOG_S, grace_s: float = PLAYOUT_GRACE_S,
                 line_margin_s: float = LINE_MARGIN_S) -> None:
        if watchdog_s <= 0 or grace_s < 0 or line_margin_s < 0:
            raise ValueError(f"CallEnd: watchdog_s must be > 0, grace_s and line_margin_s >= 0, got {watchdog_s}, "
                             f"{grace_s}, {line_margin_s}")
        self.watchdog_s = watchdog_s
        self.grace_s = grace_s
        self.line_margin_s = line_margin_s
        self.armed = False
        self.reason: str | None = None
        self.armed_at: float | None = None
        self.ended = False
        self.ended_by: str | None = None
        self.fired: str | None = None  # FIRED_GRACE | FIRED_LINE_DEADLINE | FIRED_WATCHDOG once `poll` ended it
        self.late_events: list[str] = []
        self._watchdog_at = 0.0  # set by `arm`; read only while armed
        self._line_s: float | None = None
        self._line_at: float | None = None
        self._line_started = False
        self._grace_at: float | None = None
        self._speaking_since_arm = False

    def arm(self, reason: str, now: float, line_s: float | None = None) -> bool:
        """Decide to end the call; `line_s` is the expected length of the ending line (`expected_line_s`), None
        for no deadline of its own. The first arm starts the deadlines and returns True; later ones are no-ops."""
        if self.armed or self.ended:
            self.late_events.append(f"arm:{reason}")
            return False
        self.armed = True
        self.reason = reason
        self.armed_at = now
        self._watchdog_at = now + self.watchdog_s
        self._line_s = line_s
        if line_s is not None:
            self._line_at = min(now + SYNTH_BUDGET_S + line_s + self.line_margin_s, self._watchdog_at)
        return True

    def _live(self) -> bool:
        return self.armed and not self.ended

    def on_bot_started(self, utterance_started_at: float, now: float) -> None:
        """A bot utterance began playing at `utterance_started_at`; it counts only if that is after arming."""
        if not self._live() or self.armed_at is None or utterance_started_at < self.armed_at:
            return
        self._speaking_since_arm = True
        self._grace_at = None  # more audio follows: wait for it
        if self._line_s is not None:  # counted from its first frame now (a second part of it: from the first)
            ends = utterance_started_at + self._line_s + self.line_margin_s
            first = not self._line_started
            self._line_at = min(ends if first or self._line_at is None else max(self._line_at, ends),
                                self._watchdog_at)
            self._line_started = True

    def on_bot_stopped(self, now: float, interrupted: bool = False) -> None:
        """A bot utterance stopped (played out, or stopped: `interrupted`). After audio that started after arming
        the grace starts either way: the ending line is over."""
        if not self._live() or not self._speaking_since_arm:
            return  # audio that started before arming (e.g. the previous line's late stop) never ends the call
        self._speaking_since_arm = False
        self._grace_at = now + self.grace_s

    def line_lost(self, now: float) -> None:
        """The ending line will not play (it failed to synthesise, was dropped, or there was none): end now."""
        if self._live() and not self._speaking_since_arm:
            self._grace_at = now

    def next_deadline(self) -> float | None:
        """When the runtime should call `poll` next (None: nothing pending)."""
        if not self._live():
            return None
        return min(d for d in (self._watchdog_at, self._line_at, self._grace_at) if d is not None)

    def poll(self, now: float) -> str | None:
        """"bot" when the grace or the line's deadline elapsed, "watchdog" when the watchdog fired; non-None
        exactly once (`fired` says which)."""
        deadline = self.next_deadline()
        if deadline is None or now < deadline:
            return None
        if deadline == self._grace_at:
            fired, who = FIRED_GRACE, ENDED_BY_BOT
        elif deadline == self._line_at:
            fired, who = FIRED_LINE_DEADLINE, ENDED_BY_BOT
        else:
            fired, who = FIRED_WATCHDOG, ENDED_BY_WATCHDOG
        self.record_ended_by(who)
        self.fired = fired
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
