"""Prometheus metrics of the daemon, on a private `CollectorRegistry` (never the process-global one).

`Metrics` holds one named attribute per family, so callers write
`metrics.calls_total.labels(route="test", disposition="completed").inc()`. RTP packet counts live in the media
layer as plain integers (the hot path must not take a lock per packet); `set_rtp_source(callable)` lets a
callback collector read those totals at scrape time. No I/O here: `http.py` serves `render_parts()`, the page in
parts of at most `SAMPLES_PER_PART` samples (formatting the whole page, about 400 samples, held the event loop
for 5-10 ms of CPU at every scrape; a part takes well under a millisecond), which join to `render()`.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.core import CounterMetricFamily, GaugeMetricFamily
from prometheus_client.metrics_core import Metric
from prometheus_client.registry import Collector
from prometheus_client.samples import Sample

from ai_operator.logs import get_logger

log = get_logger("metrics")

NAMESPACE = "ai_operator"
CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"

ADAPTERS = ("stt", "tts", "model", "kb")
LATENCY_STAGES = ("vad", "stt", "policy", "model", "tts_first_frame", "first_rtp", "bridge", "hold", "kb", "playout",
                  "other")
EARLY_STT_OUTCOMES = ("used", "wasted", "failed")
REJECT_REASONS = ("route_disabled", "route_unknown", "over_capacity", "overloaded", "draining")
RTP_DROP_REASONS = ("foreign", "malformed", "wrong_pt")

# Seconds. Turn stages run from ~1 ms (policy) to several seconds (model, STT).
STAGE_BUCKETS = (0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 0.75, 1.0, 1.5, 2.0, 3.0, 5.0, 8.0, 15.0)
ADAPTER_BUCKETS = (0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 15.0, 30.0)
SAMPLES_PER_PART = 25  # samples formatted per part of the page (one event-loop step each)
_TRAILING = ("_created", "_gsum", "_gcount")  # samples the text format puts in a gauge after their family

RtpSource = Callable[[], Mapping[str, int]]
"""Returns RTP totals: `packets_in`, `packets_out`, `underruns` and `dropped_<reason>` for each drop reason."""


class RtpCollector(Collector):
    """Reads the media layer's plain-integer counters at scrape time."""

    def __init__(self) -> None:
        self.source: RtpSource | None = None

    def collect(self) -> Iterator[CounterMetricFamily]:
        totals: Mapping[str, int] = {}
        if self.source is not None:
            try:
                totals = self.source()
            except Exception as exc:  # a broken source must not break /metrics
                log.warning("metrics_rtp_source_failed", error=repr(exc))
                totals = {}
        packets = CounterMetricFamily(
            f"{NAMESPACE}_rtp_packets", "RTP packets received and sent", labels=["direction"]
        )
        packets.add_metric(["in"], float(totals.get("packets_in", 0)))
        packets.add_metric(["out"], float(totals.get("packets_out", 0)))
        yield packets
        dropped = CounterMetricFamily(
            f"{NAMESPACE}_rtp_dropped_packets", "RTP packets dropped on receive, by reason", labels=["reason"]
        )
        for reason in RTP_DROP_REASONS:
            dropped.add_metric([reason], float(totals.get(f"dropped_{reason}", 0)))
        yield dropped
        underruns = CounterMetricFamily(
            f"{NAMESPACE}_playout_underruns", "playout ticks with no audio ready while a reply was playing"
        )
        underruns.add_metric([], float(totals.get("underruns", 0)))
        yield underruns
        late = CounterMetricFamily(f"{NAMESPACE}_pacer_late_ticks", "pacer ticks so late they skipped ahead")
        late.add_metric([], float(totals.get("late_ticks", 0)))
        yield late
        skipped = CounterMetricFamily(f"{NAMESPACE}_pacer_skipped_frames",
                                      "outgoing frames skipped because the pacer fell behind (audio cut)")
        skipped.add_metric([], float(totals.get("skipped_frames", 0)))
        yield skipped


GcSource = Callable[[], Mapping[str, list[float]]]
"""Returns the garbage collector's figures per generation 0..2: `passes`, `pause_seconds` (total), `pause_max_seconds`."""


class GcCollector(Collector):
    """The garbage collector's passes and pauses (each one stops the event loop), read at scrape time."""

    def __init__(self) -> None:
        self.source: GcSource | None = None

    def collect(self) -> Iterator[CounterMetricFamily | GaugeMetricFamily]:
        figures: Mapping[str, list[float]] = {}
        if self.source is not None:
            try:
                figures = self.source()
            except Exception as exc:  # a broken source must not break /metrics
                log.warning("metrics_gc_source_failed", error=repr(exc))
        passes = CounterMetricFamily(f"{NAMESPACE}_gc_passes", "garbage-collection passes, by generation",
                                     labels=["generation"])
        pause = CounterMetricFamily(f"{NAMESPACE}_gc_pause_seconds",
                                    "time the event loop stood still in garbage collection, by generation",
                                    labels=["generation"])
        worst = GaugeMetricFamily(f"{NAMESPACE}_gc_pause_max_seconds", "the longest garbage-collection pause so far",
                                  labels=["generation"])
        for generation in range(3):
            label = [str(generation)]
            passes.add_metric(label, float(figures.get("passes", [0, 0, 0])[generation]))
            pause.add_metric(label, float(figures.get("pause_seconds", [0, 0, 0])[generation]))
            worst.add_metric(label, float(figures.get("pause_max_seconds", [0, 0, 0])[generation]))
        yield from (passes, pause, worst)


class Metrics:
    """Every metric family of the daemon, registered on its own registry."""

    def __init__(self, registry: CollectorRegistry | None = None) -> None:
        self.registry = registry if registry is not None else CollectorRegistry(auto_describe=True)
        r = self.registry
        ns = NAMESPACE
        self.calls_active = Gauge("calls_active", "calls in progress", ["route"], namespace=ns, registry=r)
        self.calls_total = Counter(
            "calls",
            "calls finished, by route and disposition",
            ["route", "disposition"],
            namespace=ns,
            registry=r,
        )
        self.calls_rejected_total = Counter(
            "calls_rejected",
            "calls sent back to the dialplan without an answer (route_disabled, route_unknown, over_capacity, draining)",
            ["reason"],
            namespace=ns,
            registry=r,
        )
        self.turns_total = Counter("turns", "caller turns handled", ["route"], namespace=ns, registry=r)
        self.utterances_dropped_total = Counter(
            "utterances_dropped",
            "caller utterances not taken as a turn, by reason (echo: the bot's own voice coming back)",
            ["reason"],
            namespace=ns,
            registry=r,
        )
        self.early_stt_total = Counter(
            "early_stt",
            "speculative transcripts of an utterance at a short pause (VAD_EARLY_STT_MS), by outcome: used (it "
            "was the whole utterance), partial (a streamed utterance ended and decided on the transcript at its "
            "pause), partial_redone (that decision withdrawn: the final transcript said otherwise), wasted (the "
            "caller went on: an extra STT request), failed",
            ["outcome"],
            namespace=ns,
            registry=r,
        )
        self.early_turns_total = Counter(
            "early_turns",
            "turns ended at a short pause because the policy said the transcript was complete (VAD_EARLY_TURN), by "
            "outcome: decided (every one), withdrawn (the caller went on before the reply was heard: decided again "
            "with the rest of what they said)",
            ["outcome"],
            namespace=ns,
            registry=r,
        )
        self.speculative_turns_total = Counter(
            "speculative_turns",
            "turns decided at a short pause although the policy did not say complete (VAD_SPECULATE), their reply "
            "held until the normal end silence, by outcome: decided, withdrawn (the caller went on)",
            ["outcome"],
            namespace=ns,
            registry=r,
        )
        self.early_turn_requests_wasted_total = Counter(
            "early_turn_requests_wasted",
            "knowledge-base searches and model requests made for early or speculative turns that were withdrawn",
            ["request"],
            namespace=ns,
            registry=r,
        )
        self.prefetch_requests_total = Counter(
            "prefetch_requests",
            "knowledge-base searches and model requests sent ahead at VAD_PREFETCH_MS (daemon/model_prefetch.py), "
            "by outcome: used (the turn made the same request), wasted (closed unused)",
            ["request", "outcome"],
            namespace=ns,
            registry=r,
        )
        self.tool_calls_denied_total = Counter(
            "tool_calls_denied",
            "model tool calls the policy refused",
            ["tool", "state"],
            namespace=ns,
            registry=r,
        )
        self.ari_reconnects_total = Counter(
            "ari_reconnects", "ARI websocket reconnections", namespace=ns, registry=r
        )
        self.adapter_errors_total = Counter(
            "adapter_errors",
            "failed adapter calls (stt, tts, model, kb)",
            ["adapter"],
            namespace=ns,
            registry=r,
        )
        self.adapter_latency_seconds = Histogram(
            "adapter_latency_seconds",
            "adapter call latency (stt, tts, model, kb)",
            ["adapter"],
            namespace=ns,
            registry=r,
            buckets=ADAPTER_BUCKETS,
        )
        self.turn_stage_seconds = Histogram(
            "turn_stage_seconds",
            "per-turn latency by stage (vad, stt, hold, policy, kb, model, tts_first_frame, playout, other: they add up "
            "to first_rtp; bridge)",
            ["stage"],
            namespace=ns,
            registry=r,
            buckets=STAGE_BUCKETS,
        )
        self.loop_lag_seconds = Histogram(
            "loop_lag_seconds",
            "how late a 50 ms timer of the event loop wakes up (every packet and tick waits behind this)",
            namespace=ns,
            registry=r,
            buckets=(0.001, 0.002, 0.005, 0.01, 0.02, 0.04, 0.06, 0.1, 0.2, 0.5, 1.0),
        )
        self.rtp_receive_age_seconds = Histogram(
            "rtp_receive_age_seconds",
            "how long the oldest unread caller audio had waited when the daemon read it (kernel arrival time; "
            "one call's socket sampled per 20 ms tick)",
            namespace=ns,
            registry=r,
            buckets=(0.005, 0.01, 0.02, 0.03, 0.04, 0.06, 0.1, 0.2, 0.5, 1.0),
        )
        self.overloaded = Gauge("overloaded", "1 while the daemon is behind and refuses new calls", namespace=ns,
                                registry=r)
        self.database_up = Gauge(
            "database_up", "1 while the database answers, 0 during an outage", namespace=ns, registry=r
        )
        self.database_outages_total = Counter(
            "database_outages", "times the database went down under the daemon", namespace=ns, registry=r
        )
        self.database_restarts_total = Counter(
            "database_restarts",
            "restarts of the embedded PostgreSQL the daemon owns, by result (ok, failed)",
            ["result"],
            namespace=ns,
            registry=r,
        )
        self._rtp = RtpCollector()
        r.register(self._rtp)
        self._gc = GcCollector()
        r.register(self._gc)
        self._prime()

    def _prime(self) -> None:
        """Create the known label children so the families show zeros before the first event."""
        for reason in REJECT_REASONS:
            self.calls_rejected_total.labels(reason=reason)
        for adapter in ADAPTERS:
            self.adapter_errors_total.labels(adapter=adapter)
            self.adapter_latency_seconds.labels(adapter=adapter)
        for stage in LATENCY_STAGES:
            self.turn_stage_seconds.labels(stage=stage)
        self.utterances_dropped_total.labels(reason="echo")
        for outcome in EARLY_STT_OUTCOMES:
            self.early_stt_total.labels(outcome=outcome)
        for outcome in ("decided", "withdrawn"):
            self.early_turns_total.labels(outcome=outcome)
            self.speculative_turns_total.labels(outcome=outcome)
        for request in ("kb", "model"):
            self.early_turn_requests_wasted_total.labels(request=request)
            for outcome in ("used", "wasted"):
                self.prefetch_requests_total.labels(request=request, outcome=outcome)
        for result in ("ok", "failed"):
            self.database_restarts_total.labels(result=result)

    def set_rtp_source(self, source: RtpSource | None) -> None:
        """Register the callable the media layer exposes its RTP totals through (None detaches it)."""
        self._rtp.source = source

    def set_gc_source(self, source: GcSource | None) -> None:
        """Register the callable the paced garbage collector exposes its figures through (None detaches it)."""
        self._gc.source = source

    def observe_stage(self, stage: str, seconds: float) -> None:
        """Record one turn-stage latency; an unknown stage name is a programming error."""
        if stage not in LATENCY_STAGES:
            raise ValueError(f"unknown latency stage {stage!r}; known: {', '.join(LATENCY_STAGES)}")
        self.turn_stage_seconds.labels(stage=stage).observe(seconds)

    def reject(self, reason: str) -> None:
        """Count a call sent back to the dialplan; an unknown reason is a programming error."""
        if reason not in REJECT_REASONS:
            raise ValueError(f"unknown reject reason {reason!r}; known: {', '.join(REJECT_REASONS)}")
        self.calls_rejected_total.labels(reason=reason).inc()

    def render(self) -> bytes:
        """The Prometheus text exposition (format 0.0.4) of every family."""
        return generate_latest(self.registry)

    def render_parts(self) -> Iterator[bytes]:
        """`render()` in parts of at most `SAMPLES_PER_PART` samples, each family collected when its first part
        is due: joined, the parts are the same page (the server yields to the event loop between them)."""
        for family in self.registry.collect():
            trailing = {family.name + suffix for suffix in _TRAILING}
            main = [s for s in family.samples if s.name not in trailing]
            rest = [s for s in family.samples if s.name in trailing]
            for start in range(0, max(1, len(main)), SAMPLES_PER_PART):
                yield _family_text(family, main[start : start + SAMPLES_PER_PART], header=start == 0)
            for start in range(0, len(rest), SAMPLES_PER_PART):  # its trailing gauge's own HELP and TYPE once
                yield _family_text(family, rest[start : start + SAMPLES_PER_PART], header=False, gauge=start == 0)


class _Just:
    """A collector of one ready family (what `generate_latest` formats)."""

    def __init__(self, family: Metric) -> None:
        self.family = family

    def collect(self) -> list[Metric]:
        return [self.family]


def _family_text(family: Metric, samples: list[Sample], *, header: bool, gauge: bool = True) -> bytes:
    """`samples` of `family` as `generate_latest` writes them, without the family's HELP and TYPE lines unless
    `header`; trailing samples (`_created`, ...) come after their gauge's HELP and TYPE lines unless not `gauge`."""
    part = Metric(family.name, family.documentation, family.type, family.unit)
    part.samples = samples
    text = generate_latest(_Just(part))
    if not header:
        text = text.split(b"\n", 2)[2]
    if not gauge and text.startswith(b"# HELP "):
        text = text.split(b"\n", 2)[2]
    return text


__all__ = [
    "ADAPTERS",
    "CONTENT_TYPE",
    "LATENCY_STAGES",
    "REJECT_REASONS",
    "RTP_DROP_REASONS",
    "Metrics",
    "RtpSource",
]
