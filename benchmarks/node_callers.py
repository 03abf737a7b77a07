"""The node benchmark's callers (`benchmarks/node_capacity.py`), in their own process: N SIP callers through a
real Asterisk node, each speaking the media benchmark's scripted dialogues.

`python -m benchmarks.node_callers --spec SPEC.json`. Everything but the signalling is the media benchmark's
caller process (`caller_proc.Callers`): the slots (a call after a call, staggered, churning), the dialogue (each
reply heard out, then the next line), the kernel-timestamped capture (`bench_peer.RecordingPeer`), ONE pacing
loop for every caller's RTP (`CountingPacer`: its lateness says whether the load generator kept up), the clock
readings and the capture file. What differs:

- each call is one sipp process (the real-Asterisk harness's caller scenario, `tests/support/asterisk/uac.xml`,
  without the digest challenge as the cluster's front-door caller sends it) from the front door's address, so
  the node takes it as the cluster's nodes take calls from Kamailio: into the dialplan split over its daemons;
  its SDP names the call's `AsteriskPeer`, a socket of this process;
- the peer learns where to send from the first packet Asterisk sends it (symmetric RTP, as a phone behind the
  sample endpoint); from then on the pacer sends its frames (speech when queued, else silence);
- the call's `channel_id` in the capture is its caller number (unique per call); the daemons record it as the
  call's `caller_id`, and the benchmark maps it to Asterisk's channel id (the daemons' call id) from the database;
- a call the node turns away (every daemon refused: `Congestion()`, a 503) is `refused`, as in the media bench;
  a sipp that could not place its call at all (its fatal exit codes) is counted in the capture's health
  (`sipp_failed`), and the benchmark calls such a run not valid: the load generator's failure, not the node's;
- with `reference` in the spec, one more call, placed first, to the reference's extension (`node_reference`):
  it only listens, for the whole run, and is captured with the outcome `reference`.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import sys
import time
from pathlib import Path
from typing import Any

from benchmarks import capture as cap
from benchmarks import plan as plans
from benchmarks.bench_peer import CountingPacer, RecordingPeer
from benchmarks.caller_proc import MEDIA_TIMEOUT_S, Callers, emit, main
from benchmarks.node_reference import REFERENCE
from tests.support.asterisk.pbx import free_udp_port
from tests.support.cluster.caller import scenario_without_challenge
from tests.support.ports import free_udp_range

SIPP_MEDIA_PORTS = 4  # sipp binds its media port and the next ones (RTCP, video) even when it sends no media
KILL_WAIT_S = 10.0
SIPP_FATAL = (255, 254)  # sipp's exit codes -1 (fatal error) and -2 (could not bind a socket)


def scenario(hangup_after_s: float) -> str:
    """The harness's caller scenario without the challenge, its per-call values as sipp `-key` keywords."""
    text = scenario_without_challenge()
    for key, value in {"@USER@": "[caller_number]", "@NAME@": "[caller_name]", "@RTP_HOST@": "127.0.0.1",
                       "@RTP_PORT@": "[rtp_port]", "@HANGUP_MS@": str(int(hangup_after_s * 1000))}.items():
        text = text.replace(key, value)
    return text


def caller_number(index: int) -> str:
    """The unique caller number of the run's call `index` (what the daemons record as the call's caller_id)."""
    return f"7701{index:07d}"


class SippCall:
    """One call's sipp process, as the media bench's dialogue sees a call (`ended`, `wait_hangup`, `hangup`)."""

    def __init__(self, proc: asyncio.subprocess.Process, errors: Path) -> None:
        self.proc = proc
        self.errors = errors

    @property
    def ended(self) -> bool:
        return self.proc.returncode is not None

    async def wait_hangup(self, timeout: float) -> None:
        """Until sipp has finished the call (the daemon's BYE, or its own after the hang-up timer)."""
        await asyncio.wait_for(self.proc.wait(), timeout)

    async def hangup(self) -> None:
        with contextlib.suppress(ProcessLookupError):
            self.proc.kill()
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self.proc.wait(), KILL_WAIT_S)

    def media_started(self) -> None:
        """Called by the peer on its first frame sent (the simulated call's hook; nothing to do here)."""

    def turned_away(self) -> bool:
        """sipp ended the call on the node's 503 (every daemon refused it)."""
        with contextlib.suppress(OSError):
            return " 503 " in self.errors.read_text(errors="replace")
        return False


class AsteriskPeer(RecordingPeer):
    """A SIP caller's RTP socket: the far end is learnt from the first packet Asterisk sends; then it is paced."""

    def __init__(self, codec_name: str, pacer: CountingPacer) -> None:
        super().__init__(codec_name, ("127.0.0.1", 0))
        self.pacer = pacer
        self.learnt = False

    def _drain(self) -> None:
        if not self.learnt and self.sock is not None:
            try:
                _, addr = self.sock.recvfrom(1, socket.MSG_PEEK)
            except OSError:
                return
            self.remote, self.learnt = (addr[0], int(addr[1])), True
            self.pacer.active.add(self)
        super()._drain()


class SipCallers(Callers):
    """`Callers` whose calls are SIP calls to a real node (see the module docstring)."""

    def __init__(self, spec: dict[str, Any], plan: plans.Plan) -> None:
        super().__init__(spec, plan)
        self.out = Path(spec["out"])
        self.out.mkdir(parents=True, exist_ok=True)
        self.scenario = self.out / "uac.xml"
        self.scenario.write_text(scenario(spec["hangup_after_s"]))
        self.sipp_failed = 0  # sipps that could not place their call at all (the load generator's failure)
        self._reference: asyncio.Task[None] | None = None

    def health(self) -> dict[str, Any]:
        return {**super().health(), "sipp_failed": self.sipp_failed}

    async def connect(self) -> None:
        self.pacer.start()
        if self.spec.get("reference"):  # placed first: it must carry audio before the window opens
            self._reference = asyncio.create_task(self.reference_call(self.spec["reference"]))
        emit("ready")

    async def disconnect(self) -> None:
        if self._reference is not None:
            self._reference.cancel()
            await asyncio.gather(self._reference, return_exceptions=True)
        await self.pacer.stop()

    async def reference_call(self, reference: dict[str, Any]) -> None:
        """The reference call (`node_reference`): one more SIP call, to the reference's extension, that only
        listens (its caller sends silence, as every caller between its lines) until the run ends; captured like
        the others, with the outcome `reference`."""
        peer = AsteriskPeer(self.plan.codec, self.pacer)
        await peer.open()
        log = cap.CallLog(index=-1, variant=-1, channel_id=REFERENCE, placed_ns=time.monotonic_ns(), outcome=REFERENCE)
        self.logs.append((log, peer))
        sip: SippCall | None = None
        try:
            sip = await self._sipp(-1, peer, reference["exten"])
            peer.call = sip  # type: ignore[assignment]  # the peer's hook only calls media_started()
            await sip.wait_hangup(self.spec["hangup_after_s"] + 60)
            print(f"the reference call ended early (sipp exit {sip.proc.returncode})", file=sys.stderr, flush=True)
        finally:
            await self._end(sip, peer, log)

    async def _end(self, sip: SippCall | None, peer: AsteriskPeer, log: cap.CallLog) -> None:
        """A call's end, however it went: hang up a sipp still in the call, stop its media, note the time."""
        if sip is not None and not sip.ended:
            await sip.hangup()
        self.pacer.active.discard(peer)
        peer.close()
        log.ended_ns = time.monotonic_ns()

    async def _sipp(self, index: int, peer: AsteriskPeer, exten: str | None = None) -> SippCall:
        work = self.out / "sipp" / f"call-{index}"
        work.mkdir(parents=True, exist_ok=True)
        errors = work / "errors.log"
        host = self.spec["source_ip"]
        proc = await asyncio.create_subprocess_exec(
            "sipp", self.spec["sip"], "-sf", str(self.scenario), "-s", exten or self.spec["exten"], "-i", host,
            "-p", str(free_udp_port(host)), "-mp", str(free_udp_range(SIPP_MEDIA_PORTS)), "-cp", str(free_udp_port()),
            "-key", "caller_number", caller_number(index), "-key", "caller_name", f"caller-{index}",
            "-key", "rtp_port", str(peer.local[1]), "-m", "1", "-l", "1", "-nostdin",
            "-trace_err", "-error_file", str(errors), "-timeout", f"{int(self.spec['hangup_after_s']) + 60}s",
            "-timeout_error", cwd=work, stdin=asyncio.subprocess.DEVNULL, stdout=asyncio.subprocess.DEVNULL,
            stderr=asyncio.subprocess.DEVNULL)
        return SippCall(proc, errors)

    async def call(self, variant_index: int) -> cap.CallLog:
        """One SIP call from placing it to its end; never raises (a failure is the call's outcome)."""
        variant = self.plan.variants[variant_index]
        index = self._count
        self._count += 1
        peer = AsteriskPeer(self.plan.codec, self.pacer)
        await peer.open()
        log = cap.CallLog(index=index, variant=variant_index, channel_id=caller_number(index),
                          placed_ns=time.monotonic_ns())
        self.logs.append((log, peer))
        sip: SippCall | None = None
        try:
            sip = await self._sipp(index, peer)
            peer.call = sip  # type: ignore[assignment]  # the peer's hook only calls media_started()
            waits: list[asyncio.Future[Any]] = [peer.until_received(1), asyncio.ensure_future(sip.proc.wait())]
            await asyncio.wait(waits, timeout=MEDIA_TIMEOUT_S, return_when=asyncio.FIRST_COMPLETED)
            for task in waits:
                task.cancel()
            if not peer.received:
                log.outcome = "refused" if sip.ended and sip.turned_away() else "no_media"
                self.sipp_failed += int(sip.ended and (sip.proc.returncode or 0) in SIPP_FATAL)
                return log
            log.outcome = await self._converse(sip, peer, variant, log)  # type: ignore[arg-type]
        except Exception as exc:  # a broken call must not stop the slot, nor the run
            log.outcome = "error"
            print(f"call {index}: {type(exc).__name__}: {exc}", file=sys.stderr, flush=True)
        finally:
            await self._end(sip, peer, log)
        return log


if __name__ == "__main__":
    sys.exit(main(None, SipCallers))
