"""RFC 3550 receive statistics of one RTP stream, as a receiver computes them. Pure: packets in, figures out.

Modelled on aiortc's `RTCRtpReceiver` statistics (`StreamStatistics`): extended highest sequence number with
wrap-around cycles and packets expected/lost (RFC 3550 A.1/A.3), and the interarrival jitter estimate
J += (|D| - J) / 16 in timestamp units kept in Q4 fixed point (A.8). Unlike aiortc, the arrival time is given
(the kernel's receive timestamp of the packet) instead of read from the clock when the packet is processed.

`EndpointReceiveStats` is one call's: a `ReceiveStats` per SSRC heard (Asterisk may switch source mid-call; a new
source restarts sequence numbering, so it must not count as loss), summed into `ReceiveFigures` for the record.
"""

from __future__ import annotations

from dataclasses import dataclass

SEQ_MOD = 1 << 16
HALF_SEQ = 1 << 15
NS_PER_S = 1_000_000_000
TS_MOD = 1 << 32
HALF_TS = 1 << 31


class ReceiveStats:
    """One SSRC's receive statistics; `add` every packet in arrival order."""

    __slots__ = ("_clock_rate", "_jitter_q4", "_last_arrival", "_last_ts", "_ns_per_unit", "base_seq", "cycles",
                 "max_seq", "packets_received")

    def __init__(self, clock_rate: int = 8000) -> None:
        self._clock_rate = clock_rate
        # ns per timestamp unit when it is whole (8, 16 and 48 kHz): one integer division per packet, not a
        # product of two large integers and a division
        self._ns_per_unit = NS_PER_S // clock_rate if NS_PER_S % clock_rate == 0 else 0
        self.base_seq: int | None = None
        self.max_seq: int | None = None
        self.cycles = 0
        self.packets_received = 0
        self._jitter_q4 = 0
        self._last_arrival: int | None = None
        self._last_ts: int | None = None

    def add(self, seq: int, ts: int, arrival_ns: int) -> None:
        """One received packet: its sequence number, RTP timestamp and arrival time (ns, any epoch).
        A packet is newer than the highest so far when it is ahead by less than half the sequence space (RFC 1982
        serial arithmetic); timestamps are compared as signed 32-bit differences (they wrap at 2^32)."""
        self.packets_received += 1
        max_seq = self.max_seq
        if max_seq is None:  # the first packet
            self.base_seq = seq
        elif seq == max_seq or (seq - max_seq) % SEQ_MOD >= HALF_SEQ:
            return  # duplicate or reordered: counted as received, not used for jitter
        elif seq < max_seq:
            self.cycles += SEQ_MOD
        self.max_seq = seq
        per_unit = self._ns_per_unit
        arrival = arrival_ns // per_unit if per_unit else arrival_ns * self._clock_rate // NS_PER_S  # in ts units
        last_ts, last_arrival = self._last_ts, self._last_arrival
        if last_ts is not None and last_arrival is not None and ts != last_ts:
            sent = (ts - last_ts) % TS_MOD  # ts - last_ts as a signed 32-bit difference (timestamps wrap)
            if sent >= HALF_TS:
                sent -= TS_MOD
            d = abs(arrival - last_arrival - sent)
            self._jitter_q4 += d - ((self._jitter_q4 + 8) >> 4)
        self._last_arrival = arrival
        self._last_ts = ts

    @property
    def jitter(self) -> int:
        """Interarrival jitter in timestamp units."""
        return self._jitter_q4 >> 4

    @property
    def jitter_ms(self) -> float:
        return self.jitter * 1000.0 / self._clock_rate

    @property
    def packets_expected(self) -> int:
        if self.base_seq is None or self.max_seq is None:
            return 0
        return self.cycles + self.max_seq - self.base_seq + 1

    @property
    def packets_lost(self) -> int:
        """Expected minus received (negative with duplicates), as RFC 3550 A.3 defines it."""
        return self.packets_expected - self.packets_received


@dataclass(frozen=True, slots=True)
class ReceiveFigures:
    """What one call received, over all its sources: packets received/expected/lost (RFC 3550 A.3) and the
    worst source's interarrival jitter in milliseconds (A.8)."""

    packets_received: int
    packets_expected: int
    packets_lost: int
    jitter_ms: float


class EndpointReceiveStats:
    """One endpoint's receive statistics: `add` every accepted packet in arrival order, `figures()` at the end."""

    MAX_SOURCES = 8  # more SSRCs than this on one call: the extra ones are counted in `ignored` only

    __slots__ = ("_by_ssrc", "_clock_rate", "_current", "_current_ssrc", "ignored")

    def __init__(self, clock_rate: int = 8000) -> None:
        self._clock_rate = clock_rate
        self._by_ssrc: dict[int, ReceiveStats] = {}
        self._current: ReceiveStats | None = None
        self._current_ssrc: int | None = None
        self.ignored = 0

    def add(self, ssrc: int, seq: int, ts: int, arrival_ns: int) -> None:
        """One packet of source `ssrc` (sequence number, RTP timestamp, arrival time in ns, any epoch)."""
        current = self._current
        if ssrc == self._current_ssrc and current is not None:
            current.add(seq, ts, arrival_ns)
            return
        stats = self.source(ssrc)
        if stats is not None:
            stats.add(seq, ts, arrival_ns)

    def source(self, ssrc: int) -> ReceiveStats | None:
        """The statistics of source `ssrc`, now the current one (a new source's created; None, counted in
        `ignored`, past `MAX_SOURCES`). A receiver may keep it and `add` to it directly while the source stays."""
        stats = self._by_ssrc.get(ssrc)
        if stats is None:
            if len(self._by_ssrc) >= self.MAX_SOURCES:
                self.ignored += 1
                return None
            stats = self._by_ssrc[ssrc] = ReceiveStats(self._clock_rate)
        self._current, self._current_ssrc = stats, ssrc
        return stats

    @property
    def sources(self) -> int:
        return len(self._by_ssrc)

    def figures(self) -> ReceiveFigures:
        streams = self._by_ssrc.values()
        return ReceiveFigures(
            packets_received=sum(s.packets_received for s in streams),
            packets_expected=sum(s.packets_expected for s in streams),
            packets_lost=sum(s.packets_lost for s in streams),
            jitter_ms=max((s.jitter_ms for s in streams), default=0.0),
        )

