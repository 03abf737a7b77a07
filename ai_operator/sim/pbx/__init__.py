"""The simulated PBX: an Asterisk 22 test double speaking real ARI (REST + events websocket) and real RTP.

Used by the tests, the benchmarks and the newcomer's demo. See `server.SimulatedPbx` and `call.SimCall`.
"""

from ai_operator.sim.pbx.call import SimCall
from ai_operator.sim.pbx.server import SimulatedPbx, serve_forever

__all__ = ["SimCall", "SimulatedPbx", "serve_forever"]
