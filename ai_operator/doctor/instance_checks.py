"""Doctor check of several daemons on one host: the env files beside the checked one must not collide.

Several daemons per Asterisk node (`ai-operator@N.service`, `/etc/ai-operator/N.env`) each need their own ARI
application (per ARI_URL), RTP port range (per RTP_HOST), METRICS_PORT (per METRICS_HOST) and STATE_DIR, and
should share one DATABASE_URL. Every `*.env` file in the checked file's folder is taken as a daemon of this host;
every pair is compared, and each collision is one line naming both files, the key and the value.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from ai_operator.config import ConfigError, EnvFileError, Settings, load_settings
from ai_operator.dialogue import CheckResult

NAME = "instances on this host"
ANY_ADDRESS = {"0.0.0.0", "::", ""}
LOOPBACK = {"127.0.0.1", "localhost", "::1"}


@dataclass(frozen=True)
class Instance:
    """One env file's settings that must differ between daemons of one host."""

    file: str
    ari: tuple[str, str]  # (normalised ARI_URL, ARI_APP)
    rtp_host: str
    rtp: tuple[int, int]
    metrics_host: str
    metrics_port: int
    state_dir: Path
    database_url: str

    @classmethod
    def of(cls, path: Path, s: Settings) -> Instance:
        return cls(file=path.name, ari=(_same_server(s.ari.url), s.ari.app), rtp_host=s.rtp.host,
                   rtp=(s.rtp.port_min, s.rtp.port_max), metrics_host=s.ops.metrics_host,
                   metrics_port=s.ops.metrics_port, state_dir=_resolved(path.parent, s.storage.state_dir),
                   database_url=s.storage.database_url)


def _same_server(url: str) -> str:
    """`http://localhost:8088/ari/` and `http://127.0.0.1:8088/ari` name the same ARI."""
    parts = urlsplit(url.strip())
    host = (parts.hostname or "").lower()
    host = "loopback" if host in LOOPBACK or host.startswith("127.") else host
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return f"{parts.scheme}://{host}:{port}{parts.path.rstrip('/')}"


def _resolved(base: Path, path: Path) -> Path:
    return (path if path.is_absolute() else base / path).resolve()


def _addresses_meet(a: str, b: str) -> bool:
    """Two bind addresses can clash on a port: the same one, or either is the wildcard."""
    return a == b or a in ANY_ADDRESS or b in ANY_ADDRESS or (a in LOOPBACK and b in LOOPBACK)


def collisions(a: Instance, b: Instance) -> list[str]:
    """Each way `a` and `b` cannot run side by side on one host, one sentence each."""
    pair = f"{a.file} and {b.file}"
    found = []
    if a.ari == b.ari:
        found.append(f"{pair} both use ARI_APP={a.ari[1]} on the same ARI ({a.ari[0]}): Asterisk gives an app to one "
                     "connection (the other gets ApplicationReplaced); give each daemon its own ARI_APP and split the "
                     "dialplan over them")
    if _addresses_meet(a.rtp_host, b.rtp_host) and a.rtp[0] <= b.rtp[1] and b.rtp[0] <= a.rtp[1]:
        lo, hi = max(a.rtp[0], b.rtp[0]), min(a.rtp[1], b.rtp[1])
        found.append(f"{pair} overlap in RTP ports {lo}-{hi} (RTP_PORT_MIN..RTP_PORT_MAX {a.rtp[0]}-{a.rtp[1]} and "
                     f"{b.rtp[0]}-{b.rtp[1]}): give each daemon its own range")
    if a.metrics_port and a.metrics_port == b.metrics_port and _addresses_meet(a.metrics_host, b.metrics_host):
        found.append(f"{pair} both use METRICS_PORT={a.metrics_port}: the second daemon cannot start; "
                     "give each its own port (or 0 to disable)")
    if a.state_dir == b.state_dir:
        embedded = " and its embedded PostgreSQL" if not (a.database_url and b.database_url) else ""
        found.append(f"{pair} both use STATE_DIR={a.state_dir}: the record spool, TTS cache{embedded} would be "
                     "shared; give each daemon its own (ai-operator@N: /var/lib/ai-operator/N)")
    return found


def instance_checks(env_path: str | Path) -> list[CheckResult]:
    """The env files beside `env_path` (itself included) compared pairwise."""
    env = Path(env_path)
    folder = env.parent
    files = sorted({*folder.glob("*.env"), env}, key=lambda p: p.name)
    results: list[CheckResult] = []
    instances = []
    for path in files:
        try:
            instances.append(Instance.of(path, load_settings(path, environ={})))
        except (EnvFileError, ConfigError, OSError) as exc:
            results.append(CheckResult(NAME, "WARN", f"cannot compare {path.name} with the others: {exc}"))
    if len(instances) < 2:
        return [*results, CheckResult(NAME, "OK", f"one env file in {folder}: one daemon on this host")]
    for a, b in itertools.combinations(instances, 2):
        results.extend(CheckResult(NAME, "FAIL", line) for line in collisions(a, b))
    embedded = [i.file for i in instances if not i.database_url]
    if embedded:
        results.append(CheckResult(NAME, "WARN", f"{', '.join(embedded)} leave DATABASE_URL empty: each daemon runs "
                                   f"its own embedded PostgreSQL in its STATE_DIR (records split over "
                                   f"{len(embedded)} databases, the knowledge base ingested into each); set one "
                                   "DATABASE_URL for every daemon of the node"))
    if not any(r.status == "FAIL" for r in results):
        names = ", ".join(i.file for i in instances)
        results.append(CheckResult(NAME, "OK", f"{len(instances)} env files in {folder} ({names}): each its own "
                                   "ARI_APP, RTP range, METRICS_PORT and STATE_DIR"))
    return results
