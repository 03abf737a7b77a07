"""One real-Asterisk test environment: Asterisk, the local OpenAI-compatible server (STT), the daemon process
with the sample knowledge base, and the SIP callers placed in it. See the package docstring for the API."""

from __future__ import annotations

import asyncio
import functools
import shutil
import tempfile
from pathlib import Path
from typing import Any

import numpy as np

from tests.support.asterisk.caller import SipCaller
from tests.support.asterisk.daemon_proc import DaemonProcess, daemon_env, kb_ingest
from tests.support.asterisk.pbx import Asterisk, new_run_dir
from tests.support.asterisk.rtp_peer import Said
from tests.support.asterisk.speech import ClipRecogniser, LocalOpenAI, caller_clip
from tests.support.wait import eventually_sync

RECORD_TIMEOUT_S = 60.0


@functools.lru_cache(maxsize=64)
def clip(text: str, language: str) -> np.ndarray:
    return caller_clip(text, language)


@functools.lru_cache(maxsize=64)
def bot_line(text: str, language: str, policy: str = "operator") -> np.ndarray:
    """A bot line's audio as the daemon plays it: espeak-ng at the daemon's rate, voiced as the policy says
    (e.g. the greeting's Kazakh line in the kk voice), the silence around it trimmed as the speaker does."""
    from ai_operator.speech.cache import CachedTTS
    from ai_operator.speech.espeak import EspeakTTS
    from tests.support.daemon import bot_line_audio

    with tempfile.TemporaryDirectory(prefix="ai-operator-bot-line-") as cache:
        return asyncio.run(bot_line_audio(CachedTTS(EspeakTTS(), Path(cache)), text, language, policy))


class Stack:
    def __init__(self, work_dir: Path, pbx: Asterisk, openai: LocalOpenAI, env_file: Path) -> None:
        self.work_dir = work_dir
        self.pbx = pbx
        self.openai = openai
        self.env_file = env_file
        self.state_dir = work_dir / "state"
        self.daemon: DaemonProcess | None = None
        self.callers: list[SipCaller] = []

    @classmethod
    def start(cls, work_dir: Path | None = None, *, daemon: bool = True, recogniser: ClipRecogniser | None = None,
              **env_values: str) -> Stack:
        """Asterisk up (ARI answering, fully booted), the sample KB ingested, the daemon `ready` (unless
        `daemon=False`). `env_values` override keys of the daemon's env file; `recogniser` is the STT's script
        (`speech.LineRecogniser` for a streaming STT)."""
        work_dir = work_dir or Path(tempfile.mkdtemp(prefix="ai-operator-asterisk-tests-"))
        pbx = Asterisk(new_run_dir())
        openai = LocalOpenAI(recogniser)
        stack = cls(work_dir, pbx, openai, work_dir / "ai-operator.env")
        try:
            pbx.start()
            openai.start()
            stack.env_file.write_text(daemon_env(pbx, stack.state_dir, openai.url, openai.api_key, **env_values))
            stack.env_file.chmod(0o600)
            kb_ingest(stack.env_file)
            if daemon:
                stack.start_daemon()
        except BaseException:
            stack.stop()
            raise
        return stack

    def start_daemon(self, **extra_env: str) -> DaemonProcess:
        self.daemon = DaemonProcess(self.env_file, extra_env=extra_env).start()
        return self.daemon

    def dial(self, exten: str = "100", **kwargs: Any) -> SipCaller:
        caller = SipCaller.dial(self.pbx, exten, self.work_dir / f"caller-{len(self.callers)}", **kwargs)
        self.callers.append(caller)
        return caller

    def say(self, caller: SipCaller, text: str, language: str) -> Said:
        """The caller says `text` (an espeak-ng clip); the daemon's STT will recognise it."""
        pcm = clip(text, language)
        self.openai.recogniser.expect(text, pcm)
        return caller.say(pcm)

    def arm_pieces(self, pieces: tuple[str, ...], language: str) -> list[np.ndarray]:
        """The caller is about to say one line in `pieces`, pausing between them (`ClipRecogniser.expect_pieces`):
        the STT hears what was said so far. Their espeak-ng clips, in order."""
        clips = [clip(text, language) for text in pieces]
        self.openai.recogniser.expect_pieces(list(zip(pieces, clips, strict=True)))
        return clips

    def record(self, call_id: str, timeout: float = RECORD_TIMEOUT_S) -> dict[str, Any]:
        """The call's record (row + turns) from the daemon's database once the call has ended."""
        from ai_operator.storage.database import Database
        from ai_operator.storage.records import RecordStore

        async def fetch() -> dict[str, Any] | None:
            db = await Database.open(None, self.state_dir, max_size=1)
            try:
                return await RecordStore(db, self.work_dir / "spool-reader.jsonl").get_call(call_id)
            finally:
                await db.close()

        def ended() -> dict[str, Any] | None:
            rec = asyncio.run(fetch())
            return rec if rec is not None and rec.get("ended_at") is not None else None

        return eventually_sync(ended, timeout, f"an ended record for {call_id}", poll_s=0.5)

    def stop(self) -> None:
        for caller in self.callers:
            caller.close()
        if self.daemon is not None:
            self.daemon.stop()
        self.openai.stop()
        self.pbx.remove()
        shutil.rmtree(self.work_dir, ignore_errors=True)
