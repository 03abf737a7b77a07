"""`ai-operator run`: the daemon. Wires ARI, storage, media and metrics; handles SIGHUP (reload) and SIGTERM (drain).

SIGTERM: stop taking calls (they go back to the dialplan), let calls finish for DRAIN_TIMEOUT_S, end the rest
through CallEnd with a closing line, flush the records, exit 0. SIGHUP: re-read the env file and apply every
reloadable key (routes, keys, providers, models, timeouts, VAD, MAX_CALLS, LOG_LEVEL, KB) to new calls at once
(daemon/reload.py); restart-only keys are named in one `reload_needs_restart` line and keep their running value;
calls in progress keep what they started with; a bad file is rejected whole and the old settings stay. With
systemd (`Type=notify`), READY=1 is sent once ARI is connected and the watchdog is pinged while ARI is
connected. One daemon per STATE_DIR (storage/state_lock.py): a second one exits 1 naming the first's PID.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Callable
from contextlib import AsyncExitStack, suppress
from typing import TYPE_CHECKING, Any

from ai_operator.background import BackgroundTask, cancel_and_wait
from ai_operator.clock import SystemClock
from ai_operator.config import ConfigError, EnvFileError, Settings, reload_settings, require
from ai_operator.daemon.manager import CallManager
from ai_operator.daemon.prewarm import Prewarmer
from ai_operator.daemon.reload import EMBEDDER_KEYS, plan_reload
from ai_operator.daemon.services import DaemonOverrides, Services
from ai_operator.logs import get_logger, register_secret, set_log_level
from ai_operator.media.codecs import get_codec
from ai_operator.media.pacer import Pacer
from ai_operator.media.transport import PortAllocator, RtpReceiver, RtpStats
from ai_operator.ops.gc_tuning import PacedCollector
from ai_operator.ops.overload import LagProbe, LoadState
from ai_operator.providers import used_providers
from ai_operator.providers.health import ProviderBoard
from ai_operator.route_binding import bind_routes
from ai_operator.storage.state_lock import StateDirBusy, StateDirLock

if TYPE_CHECKING:  # imported where used: `ai-operator --help` and the console stay light
    from ai_operator.ari.events_ws import AriEventStream
    from ai_operator.ops.metrics import Metrics
    from ai_operator.ops.sdnotify import Notifier
    from ai_operator.storage.database import Database
    from ai_operator.storage.records import RecordStore
    from ai_operator.storage.supervisor import DatabaseSupervisor, GuardedKnowledge

log = get_logger("daemon")
DB_RETRY_S = 5.0  # a database that cannot be opened at start is tried again this often


class Daemon:
    """The running daemon; `serve()` returns when it has stopped."""

    def __init__(self, settings: Settings, *, env_path: str | None, overrides: DaemonOverrides | None = None) -> None:
        self.settings = bind_routes(settings)  # each route's policy found, its options parsed (ConfigError)
        self.env_path = env_path
        self.overrides = overrides or DaemonOverrides()
        self.stop_requested = asyncio.Event()
        self.ready = asyncio.Event()
        # set while `serve()` runs (None before):
        self.svc: Services | None = None
        self.manager: CallManager | None = None
        self.stream: AriEventStream | None = None
        self.db: Database | None = None  # None while the database cannot be reached
        self.notifier: Notifier | None = None
        self._knowledge: GuardedKnowledge | None = None
        self._db_retry: BackgroundTask | None = None  # tries to open the database while it cannot be reached
        self.db_supervisor: DatabaseSupervisor | None = None  # restarts the embedded PostgreSQL / notices outages
        self.metrics: Metrics | None = None
        self.collector: PacedCollector | None = None  # the garbage collector's passes, paced by the pacer
        self.prewarmer: Prewarmer | None = None  # lines synthesised ahead into the TTS cache

    # ---- signals ----------------------------------------------------------------------------------------------
    def reload(self) -> bool:
        """Re-read the env file (SIGHUP) and apply it to new calls. Returns whether the new settings were taken.
        Everything is checked and built before anything changes: a bad value, or a provider that cannot be built,
        refuses the reload whole. Restart-only keys (schema `restart=True`) are named, not applied."""
        if self.env_path is None or self.svc is None:
            return False
        if self.notifier is not None:
            self.notifier.reloading()
        try:
            plan = plan_reload(self.settings, bind_routes(reload_settings(self.settings)))
            adapters = self.svc.prepare(plan.settings)
            knowledge = self._knowledge_for(plan.settings) if plan.touches(EMBEDDER_KEYS) else None
        except (EnvFileError, ConfigError, OSError, ValueError) as exc:
            log.error("reload_rejected", reason=str(exc), kept="previous settings")
            return False
        finally:
            if self.notifier is not None:
                self.notifier.ready()
        new = plan.settings
        for secret in new.secrets():
            register_secret(secret)
        if plan.needs_restart:
            log.warning("reload_needs_restart", keys=list(plan.needs_restart), kept="running values until a restart")
        self.settings = new
        self.svc.switch(new, adapters)
        self.svc.load.behind_lag_ms = new.ops.overload_lag_ms
        if knowledge is not None:
            self._knowledge = self.svc.knowledge = knowledge
        if "LOG_LEVEL" in plan.applied:
            set_log_level(new.ops.log_level)
        log.info("reloaded", routes={n: ("on" if r.enabled else "off") for n, r in new.routes.items()},
                 changed=list(plan.applied))
        return True

    def _knowledge_for(self, settings: Settings) -> GuardedKnowledge | None:
        """The knowledge base with the embedder `settings` ask for, on the open database (None before it is open)."""
        from ai_operator.kb.embeddings import build_embedder
        from ai_operator.kb.store import KnowledgeBase
        from ai_operator.storage.supervisor import GuardedKnowledge

        embedder = build_embedder(settings)  # ConfigError: the reload is refused
        if self.db is None or self.db_supervisor is None:
            return None
        return GuardedKnowledge(KnowledgeBase(self.db, embedder), self.db_supervisor)

    def request_stop(self) -> None:
        log.info("stop_requested")
        self.stop_requested.set()

    # ---- life ---------------------------------------------------------------------------------------------------
    async def _open_storage(self, stack: AsyncExitStack) -> tuple[RecordStore, GuardedKnowledge | None]:
        """The record store and the knowledge base (None until the database is reachable); closed by `stack`.
        A database that cannot be opened at start is retried in the background; records are spooled meanwhile."""
        from ai_operator.storage.records import RecordStore

        state_dir = self.settings.storage.state_dir
        stack.push_async_callback(self._close_database)
        records = RecordStore(None, state_dir / "spool" / "records.jsonl")
        await records.start()
        stack.push_async_callback(records.close)
        if not await self._connect_database(records, first=True):
            self._db_retry = BackgroundTask(lambda: self._retry_database(records), "database-retry")
            self._db_retry.start()
        return records, self._knowledge

    async def _connect_database(self, records: RecordStore, *, first: bool = False) -> bool:
        from ai_operator.kb.embeddings import build_embedder
        from ai_operator.kb.store import KnowledgeBase
        from ai_operator.storage.database import Database
        from ai_operator.storage.supervisor import DatabaseSupervisor, GuardedKnowledge

        try:
            storage = self.settings.storage
            db = self.db = await Database.open(storage.database_url or None, storage.state_dir)
            await db.use_replica(storage.kb_database_url)
        except Exception as exc:
            if first:
                log.error("database_unavailable", error=str(exc), action=f"spooling records; retrying every {DB_RETRY_S:g} s")
            return False
        records.attach(db)
        self.db_supervisor = DatabaseSupervisor(db, on_down=records.detach, on_up=lambda: records.attach(db),
                                                metrics=self.metrics)
        self.db_supervisor.start()
        self._knowledge = GuardedKnowledge(KnowledgeBase(db, build_embedder(self.settings)), self.db_supervisor)
        if self.svc is not None:
            self.svc.knowledge = self._knowledge
        await self._log_gates(self._knowledge.knowledge)
        if not first:
            log.info("database_connected", spooled_records=records.spooled)
        return True

    async def _log_gates(self, kb: Any) -> None:
        """One `kb_gate` line per knowledge base of the enabled routes' policies: the relevance gate its calls
        answer with and where it comes from (calibrated for the configured embedder, or the default)."""
        from ai_operator.dialogue import knowledge_profile
        from policies import load_policy

        logged: set[str] = set()
        for route in [r for r in self.settings.routes.values() if r.enabled and r.policy]:
            try:  # a broken route is reported elsewhere; a knowledge base's gate is logged at its first search too
                if (profile := knowledge_profile(load_policy(route.policy))) and profile.name not in logged:
                    logged.add(profile.name)
                    await kb.gate_in_use(profile)
            except Exception as exc:
                log.warning("kb_gate_unknown", route=route.name, error=str(exc) or type(exc).__name__)

    async def _retry_database(self, records: RecordStore) -> None:
        while not await self._connect_database(records):
            await asyncio.sleep(DB_RETRY_S)

    async def _close_database(self) -> None:
        """The watchers first (a retry or a restart under way is let finish), the server they may have started
        last: no postmaster outlives the daemon."""
        if self._db_retry is not None:
            with suppress(Exception):  # a failed attempt was logged; the daemon stops regardless
                await self._db_retry.stop()
        if self.db_supervisor is not None:
            await self.db_supervisor.stop()
        if self._knowledge is not None:
            await self._knowledge.close()
        if self.db is not None:
            await self.db.close()

    async def serve(self) -> int:
        from ai_operator.ari.rest import AriRestClient
        from ai_operator.ops.http import MetricsServer
        from ai_operator.ops.metrics import Metrics
        from ai_operator.ops.sdnotify import Notifier

        s = self.settings
        require(s, "ARI_URL", "ARI_USER", "ARI_PASSWORD", "ARI_APP")
        s.storage.state_dir.mkdir(parents=True, exist_ok=True)
        lock = StateDirLock(s.storage.state_dir)  # one daemon per STATE_DIR: its calls, spool and database
        try:
            lock.acquire()
        except StateDirBusy as exc:
            log.error("state_dir_in_use", state_dir=str(s.storage.state_dir), holder_pid=exc.holder, error=str(exc))
            return 1
        # Everything opened is closed by the stack, in reverse order, also when a later step of set-up fails
        # (e.g. the metrics port is taken): no embedded PostgreSQL or socket outlives a failed start. The lock
        # goes last, once the embedded PostgreSQL has stopped.
        async with AsyncExitStack() as stack:
            stack.callback(lock.release)
            metrics = self.metrics = self.overrides.metrics or Metrics()
            records, knowledge = await self._open_storage(stack)
            # every call's RTP is read once per pacer tick, after its frames went out
            receiver = RtpReceiver(on_age=metrics.rtp_receive_age_seconds.observe)
            stack.callback(receiver.close)
            clock = self.overrides.clock or SystemClock()
            pacer = Pacer(clock=clock.monotonic, receive=receiver.drain)
            # garbage collection in the slack after a tick, when there is room for it
            collector = self.collector = PacedCollector(load=lambda: pacer.streams, slack=pacer.slack)
            collector.install()
            stack.callback(collector.remove)
            pacer.after_tick = collector.after_tick
            await pacer.start()
            stack.push_async_callback(pacer.stop)
            rtp_counters = RtpStats()  # this daemon's calls only (two daemons in one process keep their own)
            metrics.set_rtp_source(lambda: rtp_totals(pacer, rtp_counters))
            metrics.set_gc_source(collector.figures)
            load = LoadState(behind_lag_ms=s.ops.overload_lag_ms)
            probe = LagProbe(load, on_lag=metrics.loop_lag_seconds.observe)
            probe.start()
            stack.push_async_callback(probe.stop)
            ari = AriRestClient(s.ari.url, s.ari.user, s.ari.password)
            stack.push_async_callback(ari.close)
            self.svc = Services(
                settings=s, ari=ari, records=records, knowledge=knowledge, pacer=pacer,
                ports=PortAllocator(s.rtp.host, s.rtp.port_min, s.rtp.port_max), codec=get_codec(s.rtp.codec),
                metrics=metrics, load=load, receiver=receiver, rtp_totals=rtp_counters, clock=clock,
                stt_override=self.overrides.stt, tts_override=self.overrides.tts,
                model_override=self.overrides.model, observer=self.overrides.observer,
            )
            self.svc.providers = ProviderBoard.from_settings(s, metrics.registry)
            await self.svc.providers.check(s, used_providers(s))  # bounded: PROVIDER_CHECK_TIMEOUT_S
            self._build_adapters(s)
            self.manager = CallManager(self.svc)
            self.notifier = Notifier.from_env()
            stack.callback(self.notifier.close)
            if s.ops.metrics_port:
                metrics_server = MetricsServer(metrics, s.ops.metrics_host, s.ops.metrics_port, health=self.health)
                await metrics_server.start()
                stack.push_async_callback(metrics_server.stop)
            exit_code = await self._serve_calls(self.manager, self.notifier, metrics)
        log.info("stopped", exit_code=exit_code, spooled_records=records.spooled)
        return exit_code

    def _build_adapters(self, s: Settings) -> None:
        """Every enabled route's STT, TTS and model built now, before the first call: an HTTP client costs
        100-350 ms of the event loop to build (its TLS context), which would otherwise stall the first caller's
        turn on each route (and every call's media with it). One that cannot be built is left to its first use."""
        assert self.svc is not None
        try:
            self.svc.switch(s, self.svc.prepare(s))
        except Exception as exc:  # as before this existed: the call that needs it says why
            log.warning("adapters_not_built", reason=str(exc) or type(exc).__name__, built="on first use")

    async def _serve_calls(self, manager: CallManager, notifier: Notifier, metrics: Metrics) -> int:
        """Consume ARI events until SIGTERM (exit 0) or a fatal ARI error (exit 1), then drain the calls."""
        from ai_operator.ari.errors import AriAuthError, AriError
        from ai_operator.ari.events_ws import AriEventStream
        from ai_operator.ari.known_good import KnownGoodSettings
        from ai_operator.ops.sdnotify import watchdog_loop

        s = self.settings
        # Settings that connected before (an earlier run) wait out Asterisk's own start-up 404/401s.
        known = await asyncio.to_thread(KnownGoodSettings, s.storage.state_dir, s.ari.url, s.ari.user,
                                        s.ari.password, s.ari.app)

        async def on_connect(reconnected: bool) -> None:
            if not known.proven:
                await asyncio.to_thread(known.remember)
            if reconnected:
                metrics.ari_reconnects_total.inc()
                await manager.reconcile()
            else:
                if self.collector is not None:
                    self.collector.settle()  # start-up is over: keep the collector off what it made
                notifier.ready(f"ARI connected to {s.ari.url}")
                self.ready.set()
                providers = self.svc.providers.report() if self.svc and self.svc.providers else {}
                log.info("ready", app=s.ari.app, ari=s.ari.url, rtp=f"{s.rtp.host}:{s.rtp.port_min}-{s.rtp.port_max}",
                         codec=s.rtp.codec, max_calls=s.call.max_calls,
                         providers={name: h["state"] for name, h in providers.items()})

        stream = self.stream = AriEventStream(s.ari.url, s.ari.user, s.ari.password, s.ari.app, on_connect=on_connect,
                                     proven=known.proven)
        self.prewarmer = Prewarmer(lambda: self.settings, self.svc)
        prewarm = asyncio.create_task(self.prewarmer.run())  # in the background: readiness never waits for it
        consumer = asyncio.create_task(self._consume(manager, stream))
        watchdog = asyncio.create_task(watchdog_loop(notifier, lambda: stream.connected))
        exit_code = 0
        stop_wait = asyncio.create_task(self.stop_requested.wait())
        done, _ = await asyncio.wait({consumer, stop_wait}, return_when=asyncio.FIRST_COMPLETED)
        if consumer in done and consumer.exception() is not None:
            exc = consumer.exception()
            kind = "ari_auth_failed" if isinstance(exc, AriAuthError) else "ari_failed"
            if isinstance(exc, AriError):
                log.error(kind, error=str(exc))
            else:
                log.error("event_loop_failed", error=repr(exc))
            exit_code = 1
        notifier.stopping("draining calls")
        await manager.drain(self.settings.call.drain_timeout_s if exit_code == 0 else 0.0)  # as reloaded
        stop_wait.cancel()
        watchdog.cancel()
        prewarm.cancel()
        await stream.close()
        with suppress(Exception):  # how the consumer failed was logged above
            await cancel_and_wait(consumer)
        return exit_code

    async def prewarm(self) -> int:
        """Synthesise every enabled route's lines ahead into the TTS cache (daemon/prewarm.py): canned lines,
        fixed replies, knowledge-base answers. Failures are logged; calls synthesise on demand."""
        assert self.prewarmer is not None
        return await self.prewarmer.prewarm()

    async def _consume(self, manager: CallManager, stream: AriEventStream) -> None:
        async for event in stream:
            await manager.handle(event)

    async def health(self) -> dict[str, Any]:
        db_ok = False
        if self.db is not None:
            with suppress(Exception):
                db_ok = await self.db.ping()
        return {
            "ari_connected": bool(self.stream is not None and self.stream.connected),
            "database_ok": db_ok,
            **(self.manager.health() if self.manager else {}),
            **({"prewarm": self.prewarmer.report()} if self.prewarmer is not None else {}),
            **({"providers": self.svc.providers.report(), "degraded": self.svc.providers.degraded()}
               if self.svc is not None and self.svc.providers is not None else {}),
        }


def rtp_totals(pacer: Pacer, t: RtpStats) -> dict[str, int]:
    """The daemon's media counters in the shape the metrics collector reads at scrape time."""
    return {
        "packets_in": t.received,
        "packets_out": t.sent,
        "dropped_foreign": t.dropped_foreign,
        "dropped_malformed": t.dropped_malformed + t.dropped_wrong_size,
        "dropped_wrong_pt": t.dropped_wrong_pt,
        "underruns": pacer.underruns,
        "late_ticks": pacer.late_ticks,
        "skipped_frames": pacer.skipped_frames,
    }


def install_signal_handlers(daemon: Daemon, loop: asyncio.AbstractEventLoop) -> Callable[[], None]:
    """SIGHUP reloads, SIGTERM/SIGINT stop. Returns a function that removes the handlers."""
    loop.add_signal_handler(signal.SIGHUP, daemon.reload)
    loop.add_signal_handler(signal.SIGTERM, daemon.request_stop)
    loop.add_signal_handler(signal.SIGINT, daemon.request_stop)

    def remove() -> None:
        for sig in (signal.SIGHUP, signal.SIGTERM, signal.SIGINT):
            loop.remove_signal_handler(sig)

    return remove


async def run_daemon(settings: Settings, *, env_path: str | None) -> int:
    """Run until SIGTERM; returns the exit code."""
    daemon = Daemon(settings, env_path=env_path)
    remove = install_signal_handlers(daemon, asyncio.get_running_loop())
    try:
        return await daemon.serve()
    finally:
        remove()
