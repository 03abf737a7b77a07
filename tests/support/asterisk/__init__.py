"""The real-Asterisk test harness (issue 14): a real Asterisk 22, the real daemon process and a real SIP caller.

API (stable; `tests/asterisk/conftest.py` gives the fixtures):

- `Stack.start(work_dir, **env_values)` / `stack.stop()`: a whole environment, each part a child process:
  - `stack.pbx`: `Asterisk` (pbx.py) built by `scripts/asterisk-build.sh` (`asterisk_binary()` is None when it
    is not), configured from `etc/asterisk/` with only ports, paths and the sample passwords substituted;
    `pbx.ports` (sip, http, rtp range), `pbx.creds`, `pbx.ari(method, path)`, `pbx.channels()`,
    `pbx.bridges()`, `pbx.cli("core show channels")`, `pbx.restart()`, `pbx.crash()`, `pbx.stop()`.
  - `stack.openai`: `LocalOpenAI` (speech.py), the STT the daemon uses; `stack.openai.recogniser.expect(text,
    pcm)` arms a clip (`SipCaller`-side `stack.say` does it for you); `Stack.start(recogniser=LineRecogniser())`
    for a streaming STT (`STT_PROVIDER=openai_realtime`).
  - `stack.daemon`: `DaemonProcess` (daemon_proc.py), `ai-operator run --env stack.env_file`, started after
    `ai-operator kb ingest`; `daemon.events("call_ended")`, `daemon.wait_event(...)`, `daemon.signal(SIGHUP)`,
    `daemon.stop()` (SIGTERM, returns the exit code). `stack.start_daemon()` starts it again (same env file).
  - `stack.env_file`: the env file (edit it and SIGHUP to reload); `stack.state_dir`.
- `stack.dial("100")` -> `SipCaller` (caller.py): sipp as `test-caller` with the sample's password, media on a
  Python RTP peer (`caller.rtp`: kernel-timestamped receive records, `caller.say(pcm)`), `caller.channel_id()`,
  `caller.wait_media()`, `caller.wait_ended()` -> `Ending(how="bye_received"|"bye_sent", at_ns, exit_code)`.
  `dial(..., hangup_after_s=S)` makes the caller hang up itself after S seconds.
- `stack.say(caller, text, language)`: speak an espeak-ng clip and arm the STT to recognise it; returns `Said`.
- `stack.arm_pieces(pieces, language)`: arm the STT for a line said in pieces with pauses between them (each
  utterance is heard as the pieces it holds); returns their clips.
- `stack.record(call_id)`: the call's row with its turns from the daemon's database, once it has ended.
- heard.py: `talkspurts(caller.rtp, since_ns)`, `wait_reply(caller.rtp, after_ns)`, `contains(heard, line)`,
  `last_voiced_ns`, `voice_to_voice_ms(caller.rtp, said, pcm)` (issue 26's caller-side figure) and
  `voice_to_voice_report`; `bot_line(text, language, policy)` is a bot line's audio as the daemon plays it.
"""

from __future__ import annotations

from tests.support.asterisk.caller import Ending, SipCaller
from tests.support.asterisk.daemon_proc import DaemonProcess, daemon_env, kb_ingest
from tests.support.asterisk.heard import (
                                          Spurt,
                                          contains,
                                          last_voiced_ns,
                                          talkspurts,
                                          voice_to_voice_ms,
                                          voice_to_voice_report,
                                          wait_reply,
)
from tests.support.asterisk.pbx import (
                                        Asterisk,
                                        PbxPorts,
                                        PbxSecrets,
                                        asterisk_binary,
                                        asterisk_prefix,
                                        asterisk_sources,
                                        asterisk_sources_present,
)
from tests.support.asterisk.rtp_peer import RtpPeer, Said
from tests.support.asterisk.speech import LocalOpenAI, caller_clip
from tests.support.asterisk.stack import Stack, bot_line

__all__ = ["Asterisk", "DaemonProcess", "Ending", "LocalOpenAI", "PbxPorts", "PbxSecrets", "RtpPeer", "Said",
           "SipCaller", "Spurt", "Stack", "asterisk_binary", "asterisk_prefix", "asterisk_sources",
           "asterisk_sources_present", "bot_line", "caller_clip",
           "contains", "daemon_env", "kb_ingest", "last_voiced_ns", "talkspurts", "voice_to_voice_ms",
           "voice_to_voice_report", "wait_reply"]
