"""One Asterisk node of the cluster: the project's samples (as `tests/support/asterisk/pbx.py` renders them) plus
what a node behind a front door adds, and its daemons' env files.

What a node adds to the samples:
- `asterisk.conf [options]`: its own `systemname` (channel ids become `<systemname>-<time>.<n>`, unique across
  nodes, so two nodes' calls never share a record key) and `entityid` (each ARI event's `asterisk_id`: the
  node that served a call, recorded with it);
- `pjsip.conf`: the endpoint `front-door`, matched by the front door's source address, no authentication (the
  front door does admission; a digest challenge answered through a dispatcher could reach another node), calls
  into `[cluster-in]`;
- `extensions.conf`: the README's dialplan split ("Scaling out") over the node's daemons `ai-operator-1..K`;
  when every daemon refused, `Congestion()` (503) sends the call back to the front door, which tries another
  node.
"""

from __future__ import annotations

from pathlib import Path

from tests.support.asterisk.daemon_proc import daemon_env
from tests.support.asterisk.pbx import Asterisk, PbxPorts, PbxSecrets
from tests.support.cluster.kamailio import FRONT_DOOR_HOST

ROUTE_EXTEN = "100"  # the operator policy's test route, as in the samples

FRONT_DOOR_ENDPOINT = """
;---------------------------------------------------------------- cluster: the SIP front door (Kamailio)
[front-door]
type = endpoint
transport = ai-operator-udp
context = cluster-in
disallow = all
allow = ulaw,alaw
direct_media = no
rtp_symmetric = yes
dtmf_mode = rfc4733
language = en

[front-door]
type = identify
endpoint = front-door
match = {host}
"""

SPLIT_DIALPLAN = """
;---------------------------------------------------------------- cluster: calls from the front door
[cluster-in]
exten => {exten},1,Set(AIOP_ROUTE=test)
 same => n,Goto(ai-operator-split,s,1)

; README "Scaling out": the dialplan split over this node's daemons
[ai-operator-split]
exten => s,1,Set(GLOBAL(AIOP_NEXT)=$[(${{AIOP_NEXT}} + 1) % ${{AIOP_DAEMONS}}])
 same => n,Set(AIOP_I=${{AIOP_NEXT}})
 same => n,Set(AIOP_TRIED=0)
 same => n(try),Stasis(ai-operator-$[${{AIOP_I}} + 1],${{AIOP_ROUTE}})
 same => n,Set(AIOP_TRIED=$[${{AIOP_TRIED}} + 1])
 same => n,GotoIf($[${{AIOP_TRIED}} >= ${{AIOP_DAEMONS}}]?full)
 same => n,Set(AIOP_I=$[(${{AIOP_I}} + 1) % ${{AIOP_DAEMONS}}])
 same => n,Goto(try)
 same => n(full),Congestion()
"""


def app_name(index: int) -> str:
    """The ARI application of a node's daemon number `index` (1-based), as `install-system.sh --instances`."""
    return f"ai-operator-{index}"


class ClusterNode(Asterisk):
    """An Asterisk node: the samples plus the node's identity, the front-door endpoint and the split."""

    def __init__(self, name: str, number: int, run_dir: Path, *, daemons: int, ports: PbxPorts | None = None,
                 creds: PbxSecrets | None = None) -> None:
        super().__init__(run_dir, ports=ports, creds=creds)
        self.name = name
        self.number = number
        self.daemons = daemons

    @property
    def entity_id(self) -> str:
        return f"02:00:00:00:00:{self.number:02x}"

    @property
    def sip_uri(self) -> str:
        return f"sip:127.0.0.1:{self.ports.sip}"

    def write_config(self) -> None:
        super().write_config()
        etc = self.run_dir / "etc"
        with (etc / "asterisk.conf").open("a") as conf:  # [options] is its last section
            conf.write(f"systemname = {self.name}\nentityid = {self.entity_id}\n")
        with (etc / "pjsip.conf").open("a") as conf:
            conf.write(FRONT_DOOR_ENDPOINT.format(host=FRONT_DOOR_HOST))
        extensions = (etc / "extensions.conf").read_text()
        globals_ = f"[globals]\nAIOP_DAEMONS={self.daemons}\nAIOP_NEXT=0\n"
        if "[globals]\n" not in extensions:
            raise AssertionError("extensions.conf: no [globals] section to add the split's variables to")
        extensions = extensions.replace("[globals]\n", globals_, 1) + SPLIT_DIALPLAN.format(exten=ROUTE_EXTEN)
        (etc / "extensions.conf").write_text(extensions)

    def daemon_env_text(self, index: int, state_dir: Path, openai_url: str, api_key: str, **values: str) -> str:
        """The env file of this node's daemon `index`: its own app, RTP range, metrics port and STATE_DIR."""
        return daemon_env(self, state_dir, openai_url, api_key, ARI_APP=app_name(index), **values)
