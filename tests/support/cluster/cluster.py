"""A whole cluster on one machine, every part a process: one PostgreSQL primary with a streaming read replica,
the local OpenAI-compatible STT server, N Asterisk nodes each with K daemons behind the dialplan split, and the
Kamailio front door. `scripts/cluster.sh up|down|status` drives it; the cluster tests (tests/cluster/) use the
same object.

Its state (pids, ports, files) is `<dir>/cluster.json`, written as each part starts, so `down` - in this process
or a later one - stops whatever `up` got to. Ports are asked of the OS; only loopback addresses are used.
"""

from __future__ import annotations

import contextlib
import json
import secrets
import subprocess
import sys
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict
from pathlib import Path
from typing import Any

from tests.support.asterisk.daemon_proc import RTP_PORTS as DAEMON_RTP_PORTS
from tests.support.asterisk.daemon_proc import kb_ingest
from tests.support.asterisk.pbx import RTP_RANGE, PbxPorts, PbxSecrets, free_udp_port
from tests.support.cluster import kamailio
from tests.support.cluster.nodes import ClusterNode, app_name
from tests.support.cluster.postgres import PgServer
from tests.support.cluster.procs import alive, kill_pid, log_events, poll, stop_pid
from tests.support.ports import closed_tcp_port, free_udp_range

STATE_FILE = "cluster.json"
NODE_NAMES = ("node-a", "node-b", "node-c", "node-d")
DAEMON_READY_TIMEOUT_S = 180.0
FRONT_DOOR_TIMEOUT_S = 30.0


def disjoint_udp_ranges(sizes: list[int]) -> list[int]:
    """First ports of runs of free UDP ports of these sizes, no two overlapping (each asked of the OS; a run
    that overlaps one already chosen is asked again)."""
    chosen: list[tuple[int, int]] = []
    for size in sizes:
        for _ in range(100):
            start = free_udp_range(size, host="0.0.0.0")
            if all(start + size <= a or b <= start for a, b in chosen):
                chosen.append((start, start + size))
                break
        else:
            raise RuntimeError(f"no run of {size} free UDP ports apart from {chosen}")
    return [a for a, _ in chosen]


class Cluster:
    def __init__(self, base: Path, state: dict[str, Any]) -> None:
        self.base = base
        self.state = state
        self._lock = threading.Lock()

    # --- state ----------------------------------------------------------------------------------------------
    @classmethod
    def create(cls, base: Path, *, nodes: int = 2, daemons: int = 2) -> Cluster:
        base.mkdir(parents=True, exist_ok=True)
        base.chmod(0o755)
        if (base / STATE_FILE).exists():
            raise RuntimeError(f"{base / STATE_FILE} exists: a cluster may be running there "
                               "(`scripts/cluster.sh down` first)")
        ranges = disjoint_udp_ranges([RTP_RANGE] * nodes + [DAEMON_RTP_PORTS] * (nodes * daemons))
        node_rtp, daemon_rtp = ranges[:nodes], ranges[nodes:]
        state: dict[str, Any] = {
            "db_password": secrets.token_hex(12), "api_key": "sk-cluster-" + secrets.token_hex(8),
            "db": {"primary": {"port": closed_tcp_port()}, "replica": {"port": closed_tcp_port()}},
            "stt": {"port": closed_tcp_port(), "pid": None},
            "nodes": [{"name": NODE_NAMES[n], "number": n + 1, "pid": None,
                       "ports": asdict(PbxPorts(sip=free_udp_port(), http=closed_tcp_port(), rtp_start=node_rtp[n],
                                                rtp_end=node_rtp[n] + RTP_RANGE - 1)),
                       "creds": asdict(PbxSecrets.random()),
                       "daemons": [{"index": i + 1, "pid": None, "rtp": daemon_rtp[n * daemons + i]}
                                   for i in range(daemons)]} for n in range(nodes)],
            "front_door": {"port": closed_tcp_port(kamailio.FRONT_DOOR_HOST), "pid": None},
        }
        cluster = cls(base, state)
        cluster.save()
        return cluster

    @classmethod
    def load(cls, base: Path) -> Cluster:
        return cls(base, json.loads((base / STATE_FILE).read_text()))

    def save(self) -> None:
        with self._lock:
            self._save()

    def _save(self) -> None:
        tmp = self.base / (STATE_FILE + ".tmp")
        tmp.write_text(json.dumps(self.state, indent=1))
        tmp.replace(self.base / STATE_FILE)

    # --- parts ----------------------------------------------------------------------------------------------
    def db(self, role: str = "primary") -> PgServer:
        return PgServer(self.base / "db" / role, self.state["db"][role]["port"], self.state["db_password"])

    @property
    def node_names(self) -> list[str]:
        return [n["name"] for n in self.state["nodes"]]

    def _node_state(self, name: str) -> dict[str, Any]:
        return next(n for n in self.state["nodes"] if n["name"] == name)

    def node(self, name: str) -> ClusterNode:
        n = self._node_state(name)
        return ClusterNode(name, n["number"], self.base / name / "asterisk", daemons=len(n["daemons"]),
                           ports=PbxPorts(**n["ports"]), creds=PbxSecrets(**n["creds"]))

    def daemon_dir(self, node: str, index: int) -> Path:
        return self.base / node / f"daemon-{index}"

    def daemon_log(self, node: str, index: int) -> Path:
        return self.daemon_dir(node, index) / "daemon.log"

    def daemon_env_file(self, node: str, index: int) -> Path:
        """`<node>/etc/<index>.env`: a node's env files side by side, as install-system.sh --instances writes
        them, so `ai-operator doctor` on one compares it with its siblings."""
        return self.base / node / "etc" / f"{index}.env"

    def daemons(self) -> list[tuple[str, int]]:
        return [(n["name"], d["index"]) for n in self.state["nodes"] for d in n["daemons"]]

    def events(self, node: str, index: int, name: str | None = None, **fields: Any) -> list[dict[str, Any]]:
        return log_events(self.daemon_log(node, index), name, **fields)

    @property
    def stt_url(self) -> str:
        return f"http://127.0.0.1:{self.state['stt']['port']}/v1"

    @property
    def front_door_dir(self) -> Path:
        return self.base / "front-door"

    @property
    def front_door(self) -> tuple[str, int]:
        return kamailio.FRONT_DOOR_HOST, int(self.state["front_door"]["port"])

    # --- up -------------------------------------------------------------------------------------------------
    def up(self) -> None:
        """Start every part, in order; on any failure stop what started and raise."""
        try:
            self._start_database()
            self._start_stt()
            with ThreadPoolExecutor(len(self.state["nodes"])) as pool:
                list(pool.map(self.start_node, self.node_names))
            self._write_daemon_envs()
            # every daemon at once on the fresh database: the migrations run once (advisory lock), no race
            with ThreadPoolExecutor(len(self.daemons())) as pool:
                list(pool.map(lambda d: self.start_daemon(*d), self.daemons()))
            kb_ingest(self.daemon_env_file(*self.daemons()[0]))
            self._start_front_door()
        except BaseException:
            self.down()
            raise

    def _start_database(self) -> None:
        primary, replica = self.db("primary"), self.db("replica")
        primary.init_primary()
        primary.start()
        self.state["db"]["primary"]["pid"] = primary.pid
        self.save()
        replica.init_replica(primary)
        replica.start()
        self.state["db"]["replica"]["pid"] = replica.pid
        self.save()

    def _start_stt(self) -> None:
        stt = self.state["stt"]
        log = self.base / "stt.log"
        with log.open("ab") as out:
            proc = subprocess.Popen([sys.executable, "-m", "ai_operator.sim.openai_server", "--port",
                                     str(stt["port"]), "--api-key", self.state["api_key"]],
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=subprocess.STDOUT,
                                    start_new_session=True)
        stt["pid"] = proc.pid
        self.save()
        poll(lambda: log.read_text().strip() or None, 30, what="the STT server's address")

    def start_node(self, name: str) -> None:
        node = self.node(name)
        node.run_dir.mkdir(parents=True, exist_ok=True)
        node.start()
        assert node.proc is not None
        self._node_state(name)["pid"] = node.proc.pid
        self.save()

    def _write_daemon_envs(self) -> None:
        for name, index in self.daemons():
            env = self.daemon_env_file(name, index)
            env.parent.mkdir(parents=True, exist_ok=True)
            rtp = self._daemon_state(name, index)["rtp"]
            env.write_text(self.node(name).daemon_env_text(
                index, self.daemon_dir(name, index) / "state", self.stt_url, self.state["api_key"],
                DATABASE_URL=self.db("primary").dsn, KB_DATABASE_URL=self.db("replica").dsn, RTP_PORT_MIN=str(rtp),
                RTP_PORT_MAX=str(rtp + DAEMON_RTP_PORTS - 1)))
            env.chmod(0o600)

    def _daemon_state(self, node: str, index: int) -> dict[str, Any]:
        return next(d for d in self._node_state(node)["daemons"] if d["index"] == index)

    def start_daemon(self, node: str, index: int) -> None:
        """`ai-operator run --env <its env file>`, its log to daemon.log; returns once it logged `ready`."""
        log = self.daemon_log(node, index)
        log.parent.mkdir(parents=True, exist_ok=True)
        before = len(log_events(log, "ready"))
        with log.open("ab") as out:
            proc = subprocess.Popen([sys.executable, "-m", "ai_operator", "run", "--env",
                                     str(self.daemon_env_file(node, index))],
                                    stdin=subprocess.DEVNULL, stdout=out, stderr=out, start_new_session=True)
        self._daemon_state(node, index)["pid"] = proc.pid
        self.save()

        def ready() -> bool:
            if proc.poll() is not None:
                raise RuntimeError(f"{node} daemon {index} exited {proc.returncode}; see {log}")
            return len(log_events(log, "ready")) > before
        poll(ready, DAEMON_READY_TIMEOUT_S, what=f"{node} daemon {index} ready")

    def _start_front_door(self) -> None:
        run_dir = self.front_door_dir
        kamailio.render(run_dir, self.front_door[1], [self.node(n).sip_uri for n in self.node_names])
        kamailio.check_config(run_dir)
        with (run_dir / "kamailio.log").open("ab") as out:
            proc = subprocess.Popen(kamailio.command(run_dir), stdin=subprocess.DEVNULL, stdout=out,
                                    stderr=subprocess.STDOUT, start_new_session=True)
        self.state["front_door"]["pid"] = proc.pid
        self.save()
        self.wait_dispatcher({self.node(n).sip_uri: True for n in self.node_names})

    # --- control --------------------------------------------------------------------------------------------
    def dispatcher(self) -> dict[str, bool]:
        """Node SIP URI -> whether the front door sends it calls now."""
        return {uri: flags.startswith("A") for uri, flags in kamailio.dispatcher_states(self.front_door_dir).items()}

    def wait_dispatcher(self, want: dict[str, bool], timeout: float = FRONT_DOOR_TIMEOUT_S) -> None:
        def matches() -> bool:
            try:
                now = self.dispatcher()
            except RuntimeError:
                return False
            return all(now.get(uri) == up for uri, up in want.items())
        poll(matches, timeout, what=f"front door dispatcher states {want}")

    def kill_node(self, name: str) -> None:
        """SIGKILL the node's Asterisk: gone without a word (its daemons stay up and reconnect later)."""
        kill_pid(self._node_state(name)["pid"])

    def daemon_pid(self, node: str, index: int) -> int:
        return int(self._daemon_state(node, index)["pid"])

    def stop_daemon(self, node: str, index: int, timeout: float = 90.0) -> None:
        stop_pid(self._daemon_state(node, index)["pid"], term_timeout=timeout)

    # --- down / status --------------------------------------------------------------------------------------
    def down(self) -> list[str]:
        """Stop every part (front door, daemons, nodes, STT, replica, primary); the parts still running after
        it (should be none)."""
        stop_pid(self.state["front_door"].get("pid"))
        for name, index in self.daemons():
            stop_pid(self._daemon_state(name, index).get("pid"), term_timeout=60)
        for name in self.node_names:
            pid = self._node_state(name).get("pid")
            if alive(pid):
                node = self.node(name)
                with contextlib.suppress(OSError, subprocess.SubprocessError):
                    node.cli("core stop now", timeout=10)
                stop_pid(pid, term_timeout=20)
        stop_pid(self.state["stt"].get("pid"))
        for role in ("replica", "primary"):
            if (self.base / "db" / role / "PG_VERSION").exists():
                self.db(role).stop()
                stop_pid(self.state["db"][role].get("pid"), term_timeout=10, group=False)
        return [line for line in self.status() if " running" in line]

    def parts(self) -> list[tuple[str, int | None, str]]:
        """(part, pid, where it listens) for every part."""
        host, port = self.front_door
        out: list[tuple[str, int | None, str]] = [(
            "front door (kamailio)", self.state["front_door"].get("pid"), f"sip udp {host}:{port}")]
        for n in self.state["nodes"]:
            node = self.node(n["name"])
            out.append((f"{n['name']} asterisk", n.get("pid"),
                        f"sip udp 127.0.0.1:{node.ports.sip}, ARI {node.ari_url}, "
                        f"rtp {node.ports.rtp_start}-{node.ports.rtp_end}"))
            for d in n["daemons"]:
                env = dict(line.split("=", 1) for line in self.daemon_env_file(n["name"], d["index"]).read_text()
                           .splitlines() if "=" in line and not line.startswith("#")) \
                    if self.daemon_env_file(n["name"], d["index"]).exists() else {}
                out.append((f"{n['name']} daemon {d['index']} ({app_name(d['index'])})", d.get("pid"),
                            f"metrics http://127.0.0.1:{env.get('METRICS_PORT', '?')}/metrics, "
                            f"rtp {env.get('RTP_PORT_MIN', '?')}-{env.get('RTP_PORT_MAX', '?')}, "
                            f"log {self.daemon_log(n['name'], d['index'])}"))
        out.append(("stt (local OpenAI-compatible)", self.state["stt"].get("pid"), self.stt_url))
        for role in ("primary", "replica"):
            db = self.db(role)
            out.append((f"postgresql {role}", db.pid if db.pgdata.exists() else None,
                        f"postgresql://postgres@127.0.0.1:{db.port}/postgres (password in {self.base / STATE_FILE})"))
        return out

    def status(self) -> list[str]:
        return [f"{name:<40} {'running' if alive(pid) else 'stopped':<8} pid {pid or '-':<8} {where}"
                for name, pid, where in self.parts()]

