"""How many calls one daemon carries cleanly: the measured knee, the sizing rule, and doctor's line about it.

`MEASURED` is copied from the committed benchmark report the README's figures come from (a test keeps the two
equal, and keeps the `MAX_CALLS` default at the knee): the largest N whose media budgets all PASSed on one daemon
pinned to one core, and the CPU seconds per call-minute of the daemon and its database there. (A second run on the
same box, committed beside it, was clean at that N too; the README says so.) The rule is the
README's "Sizing a node": one daemon per core left after Asterisk, each with `MAX_CALLS` at or below the knee.
`sizing_check` is pure (the host's CPU count is given).
"""

from __future__ import annotations

from dataclasses import dataclass

from ai_operator.dialogue import CheckResult

ASTERISK_CORES = 1  # a node keeps a core for Asterisk (SIP, RTP bridging) and the database


@dataclass(frozen=True)
class Measured:
    """What one benchmark run on one box said about one daemon on one core."""

    clean_calls: int | None  # largest N with every media budget PASS; None when no N ran clean
    cpu_s_per_call_minute: float  # daemon + its PostgreSQL, at clean_calls (or the smallest N run)
    report: str  # the committed report, relative to the repository
    cpus: int  # CPUs of the box it ran on
    cpu_model: str


MEASURED = Measured(clean_calls=400, cpu_s_per_call_minute=0.0843,
                    report="benchmarks/reports/2026-12-02-xeon-n200-n400-run3.json", cpus=2,
                    cpu_model="Intel(R) Xeon(R) Processor")


def daemons_for(cpus: int) -> int:
    """Daemons a node with `cpus` CPUs runs: one per core left after Asterisk, at least one."""
    return max(1, cpus - ASTERISK_CORES)


def sizing_check(max_calls: int, cpus: int, measured: Measured = MEASURED) -> CheckResult:
    """doctor's sizing line: this host's rule, and a WARN when `MAX_CALLS` is past the measured knee."""
    name = "sizing"
    k = daemons_for(cpus)
    where = f"measured in {measured.report} on {measured.cpus} x {measured.cpu_model}"
    if measured.clean_calls is None:
        return CheckResult(name, "WARN", f"no N ran clean ({where}), so MAX_CALLS={max_calls} is not backed by a "
                                         "measurement: run `make bench` on this host and set MAX_CALLS to the "
                                         "largest N whose budgets all PASS")
    knee = measured.clean_calls
    cores = knee * measured.cpu_s_per_call_minute / 60
    rule = (f"one daemon clean up to {knee} calls on one core ({where}; {cores:.2f} core at "
            f"{measured.cpu_s_per_call_minute:.3f} CPU s per call-minute); this host has {cpus} CPU(s): "
            f"{k} daemon(s) x {knee} = {k * knee} calls")
    if max_calls > knee:
        return CheckResult(name, "WARN", f"MAX_CALLS={max_calls} is past the measured knee: {rule}; calls past "
                                         f"{knee} degrade the audio of every call in progress: set MAX_CALLS<={knee} "
                                         "or measure this host with `make bench`")
    return CheckResult(name, "OK", f"MAX_CALLS={max_calls}: {rule}")
