#!/usr/bin/env bash
# A cluster on this machine from real parts (README "Scaling out"): Kamailio (dispatcher) as the SIP front door,
# two Asterisk 22 nodes (scripts/asterisk-build.sh) each with two ai-operator daemons behind the dialplan split,
# one PostgreSQL (pgserver's, with pgvector) on TCP with password authentication and a streaming read replica.
# Every part is a process on loopback, on ports asked of the OS; `up` prints where each listens.
#
# Usage: scripts/cluster.sh up|status|down [--dir DIR] [--nodes N] [--daemons K]
#   up      start everything (about 1-2 minutes); the state is DIR/cluster.json
#   status  each part: running or stopped, pid, where it listens (exit 3 when a part is stopped)
#   down    stop everything; exit 1 if anything is still running after it
# Needs: make install (the .venv), kamailio (make install's system-deps), the Asterisk build
# (AI_OPERATOR_ASTERISK_PREFIX, default /opt/ai-operator-asterisk). DIR: AI_OPERATOR_CLUSTER_DIR or
# /tmp/ai-operator-cluster.
set -euo pipefail
cd "$(dirname "$0")/.."
PY="${PYTHON:-.venv/bin/python}"
[ -x "$PY" ] || { echo "cluster: $PY missing: run make install first" >&2; exit 2; }
command -v kamailio >/dev/null 2>&1 || [ -x /usr/sbin/kamailio ] || {
    echo "cluster: kamailio is not installed (make install installs it: scripts/system-deps.sh)" >&2; exit 2; }
exec "$PY" -m tests.support.cluster "$@"
