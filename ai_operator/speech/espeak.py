"""Local text-to-speech with espeak-ng (transport: runs the espeak-ng program).

espeak-ng runs as an asyncio subprocess with `--stdout`; the text goes in on stdin (so a line starting with "-"
is never read as an option). Its WAV stream (22050 Hz, with placeholder length fields) is parsed as it arrives
and resampled to 8 kHz chunk by chunk, so the first audio is yielded while espeak-ng is still speaking.
"""

from __future__ import annotations

import asyncio
import contextlib
import shutil
import subprocess
from collections.abc import AsyncIterator, Iterable, Mapping

import numpy as np

from ai_operator.logs import get_logger
from ai_operator.speech.errors import SpeechError
from ai_operator.speech.resample import StreamResampler
from ai_operator.speech.wav import WavError, WavHeader, parse_wav_header

log = get_logger("speech")

ESPEAK_BINARY = "espeak-ng"
DEFAULT_RATE_WPM = 160
READ_SIZE = 4096
READ_TIMEOUT_S = 15.0
VOICES_LIST_TIMEOUT_S = 10.0
MAX_STDERR = 300


class EspeakTTS:
    """espeak-ng voices per language: the voice named by the language code (ru, kk, hi, en, ...) unless `voices`
    maps a language to another voice; policies declare the languages their calls speak."""

    name = "espeak"

    def __init__(
        self,
        *,
        voices: Mapping[str, str] | None = None,
        rate_wpm: int = DEFAULT_RATE_WPM,
        binary: str = ESPEAK_BINARY,
    ) -> None:
        if rate_wpm <= 0:
            raise ValueError(f"EspeakTTS: rate_wpm must be positive, got {rate_wpm}")
        self.voices: dict[str, str] = dict(voices or {})
        self.rate_wpm = rate_wpm
        self.binary = binary
        self._known: set[str] | None = None

    def voice_for(self, language: str) -> str:
        voice = self.voices.get(language, language)
        if not voice or not voice.replace("-", "").replace("_", "").isalnum():
            raise SpeechError(f"tts provider espeak: no voice for language {language!r}")
        return voice

    def voice_id(self, language: str) -> str:
        return f"{self.voice_for(language)}-{self.rate_wpm}"

    def known_voices(self) -> set[str] | None:
        """Every voice name, language and file espeak-ng lists (lower-case); None when espeak-ng is missing."""
        if self._known is not None:
            return self._known
        exe = shutil.which(self.binary)
        if exe is None:
            return None
        try:
            out = subprocess.run(
                [exe, "--voices"], capture_output=True, text=True, timeout=VOICES_LIST_TIMEOUT_S, check=False
            ).stdout
        except (OSError, subprocess.SubprocessError):
            return None
        known: set[str] = set()
        for line in out.splitlines()[1:]:
            cols = line.split()
            if len(cols) >= 5:  # language, voice name, file (and its base name), other languages "(en 2)"
                known.update({cols[1].lower(), cols[3].lower(), cols[4].lower(), cols[4].rsplit("/", 1)[-1].lower()})
                known.update(c.strip("(").lower() for c in cols[5::2] if c.startswith("("))
        self._known = known
        return known

    def available_voices(self, languages: Iterable[str]) -> set[str]:
        """Which of `languages` espeak-ng can speak here (empty when espeak-ng is missing)."""
        known = self.known_voices() or set()
        return {lang for lang in languages if self.voices.get(lang, lang).split("+")[0].lower() in known}

    async def _check_voice(self, voice: str) -> None:
        # espeak-ng reading stdin silently falls back to its default voice for an unknown one: check first
        known = self._known if self._known is not None else await asyncio.to_thread(self.known_voices)
        if known is None:
            raise SpeechError(f"tts provider espeak: {self.binary} is not installed (voice {voice!r})")
        if voice.split("+")[0].lower() not in known:
            raise SpeechError(
                f"tts provider espeak: espeak-ng has no voice {voice!r} (see espeak-ng --voices)"
            )

    async def stream(self, text: str, language: str) -> AsyncIterator[np.ndarray]:
        voice = self.voice_for(language)
        if not text.strip():
            return
        await self._check_voice(voice)
        try:
            proc = await asyncio.create_subprocess_exec(
                self.binary,
                "-v",
                voice,
                "-s",
                str(self.rate_wpm),
                "-b",
                "1",
                "--stdout",
                "--stdin",
                stdin=asyncio.subprocess.PIPE,
                stdout=asyncio.subprocess.PIPE,
                stderr=asyncio.subprocess.PIPE,
            )
        except FileNotFoundError:
            raise SpeechError(
                f"tts provider espeak: {self.binary} is not installed (voice {voice!r})"
            ) from None
        except OSError as exc:
            raise SpeechError(
                f"tts provider espeak: cannot run {self.binary} for voice {voice!r}: {exc}"
            ) from None
        assert proc.stdin is not None and proc.stdout is not None and proc.stderr is not None
        stderr_task = asyncio.ensure_future(proc.stderr.read())
        produced = 0
        try:
            with contextlib.suppress(BrokenPipeError, ConnectionResetError):
                proc.stdin.write(text.encode("utf-8") + b"\n")
                await proc.stdin.drain()
                proc.stdin.close()
            async for chunk in self._decode(proc.stdout, voice):
                produced += chunk.size
                yield chunk
            rc = await asyncio.wait_for(proc.wait(), READ_TIMEOUT_S)
            err = (await stderr_task).decode("utf-8", "replace").strip()[:MAX_STDERR]
            if rc != 0 or produced == 0:
                raise SpeechError(
                    f"tts provider espeak: voice {voice!r} failed (exit {rc}, {produced} samples)"
                    + (f": {err}" if err else "")
                )
        except TimeoutError:
            raise SpeechError(f"tts provider espeak: voice {voice!r} timed out") from None
        finally:
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                with contextlib.suppress(Exception):
                    await proc.wait()
            if not stderr_task.done():
                stderr_task.cancel()

    async def _decode(self, stdout: asyncio.StreamReader, voice: str) -> AsyncIterator[np.ndarray]:
        buf = b""
        header: WavHeader | None = None
        resampler: StreamResampler | None = None
        remaining: int | None = None
        while True:
            async with asyncio.timeout(READ_TIMEOUT_S):  # not wait_for: on 3.11 it can swallow a cancellation
                block = await stdout.read(READ_SIZE)
            if not block:
                break
            buf += block
            if header is None:
                try:
                    header = parse_wav_header(buf)
                except WavError as exc:
                    raise SpeechError(f"tts provider espeak: voice {voice!r} wrote bad WAV: {exc}") from None
                if header is None:
                    continue
                if header.channels != 1:
                    raise SpeechError(
                        f"tts provider espeak: voice {voice!r} wrote {header.channels} channels"
                    )
                resampler = StreamResampler(header.rate)
                remaining = header.data_len
                buf = buf[header.data_offset :]
            assert resampler is not None
            usable = len(buf) - (len(buf) & 1)
            if remaining is not None:
                usable = min(usable, remaining)
                remaining -= usable
            data, buf = buf[:usable], buf[usable:]
            if remaining == 0:
                buf = b""
            out = resampler.process(np.frombuffer(data, dtype="<i2"))
            if out.size:
                yield out
        if resampler is not None:
            tail = resampler.flush()
            if tail.size:
                yield tail
