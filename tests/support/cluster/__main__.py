"""`python -m tests.support.cluster up|down|status [--dir DIR]`: what scripts/cluster.sh runs."""

from __future__ import annotations

import argparse
import os
import shutil
import sys
import time
from pathlib import Path

from tests.support.cluster.cluster import STATE_FILE, Cluster

DEFAULT_DIR = Path("/tmp/ai-operator-cluster")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="scripts/cluster.sh", description=__doc__)
    parser.add_argument("command", choices=("up", "down", "status"))
    parser.add_argument("--dir", type=Path, default=Path(os.environ.get("AI_OPERATOR_CLUSTER_DIR") or DEFAULT_DIR),
                        help=f"the cluster's folder (default {DEFAULT_DIR}; env AI_OPERATOR_CLUSTER_DIR)")
    parser.add_argument("--nodes", type=int, default=2, help="Asterisk nodes (up)")
    parser.add_argument("--daemons", type=int, default=2, help="daemons per node (up)")
    args = parser.parse_args(argv)
    base: Path = args.dir.resolve()
    if args.command == "up":
        started = time.monotonic()
        cluster = Cluster.create(base, nodes=args.nodes, daemons=args.daemons)
        try:
            cluster.up()
        except BaseException:  # up() stopped what it started
            shutil.rmtree(base, ignore_errors=True)
            raise
        print(f"cluster up in {time.monotonic() - started:.0f} s ({base}); call the front door: "
              f"sip:100@{cluster.front_door[0]}:{cluster.front_door[1]}")
        print("\n".join(cluster.status()))
        return 0
    if not (base / STATE_FILE).exists():
        print(f"no cluster in {base}")
        return 0 if args.command == "down" else 3
    cluster = Cluster.load(base)
    if args.command == "status":
        lines = cluster.status()
        print("\n".join(lines))
        return 0 if all(" running " in line for line in lines) else 3
    left = cluster.down()
    if left:
        print("still running after down:\n" + "\n".join(left), file=sys.stderr)
        return 1
    shutil.rmtree(base, ignore_errors=True)
    print(f"cluster down ({base} removed): nothing left running")
    return 0


if __name__ == "__main__":
    sys.exit(main())
