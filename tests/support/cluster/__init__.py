"""A cluster on one machine from real parts (issue 28), for `scripts/cluster.sh` and `tests/cluster/`.

- `cluster.Cluster`: `create(dir)` + `up()` / `load(dir)` + `down()` / `status()`; parts: `db("primary" |
  "replica")` (postgres.py), `node(name)` (nodes.py: an Asterisk from the samples plus a node's identity, the
  front-door endpoint and the dialplan split), the daemons (`start_daemon`, `stop_daemon`, `daemon_pid`,
  `events(node, i, name)` from their JSON logs), the front door (kamailio.py: `dispatcher()`,
  `wait_dispatcher(...)`), `kill_node(name)` / `start_node(name)`.
- `caller.FrontDoorCaller`: a sipp caller through the front door; `node()`, `channel_id()`, `wait_ended()`.
- procs.py: processes found again by pid (`alive`, `stop_pid`, `kill_pid`), `poll`, `log_events`.
"""
