"""Cache of synthesised lines over any `TextToSpeech` (transport: reads and writes cache files).

Canned lines (greetings, the freight pitch, goodbyes) are synthesised once per voice and kept on disk as raw
int16 8 kHz files named `{provider}-{voice}-{sha256(text)}.pcm`, with an in-memory LRU on top, so they play
with no synthesis delay. A line is stored only once it was synthesised completely (an interrupted stream
stores nothing); files are written atomically (temporary file + rename), 0600 in a 0700 folder whatever the
umask. A damaged file is ignored and the line synthesised again.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

import numpy as np

from ai_operator.logs import get_logger
from ai_operator.speech.errors import SpeechError
from ai_operator.speech.tts import TextToSpeech, synthesize
from ai_operator.storage.private import open_private, private_dir

log = get_logger("speech")

MEMORY_LIMIT_BYTES = 32 * 1024 * 1024
CACHED_CHUNK_SAMPLES = 1600  # 200 ms per yielded chunk of a cached line
SAFE_NAME_RE = re.compile(r"[^A-Za-z0-9_.+-]+")


def _safe(part: str) -> str:
    return SAFE_NAME_RE.sub("_", part) or "_"


class CachedTTS:
    """Disk + memory cache around `inner`; `stream(..., cache=False)` passes straight through."""

    def __init__(
        self, inner: TextToSpeech, cache_dir: Path, *, memory_limit_bytes: int = MEMORY_LIMIT_BYTES
    ) -> None:
        self.inner = inner
        self.cache_dir = Path(cache_dir)
        self.memory_limit_bytes = memory_limit_bytes
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memory_bytes = 0
        self.hits = 0
        self.prewarm_errors: list[str] = []

    @property
    def name(self) -> str:
        return self.inner.name

    def voice_id(self, language: str) -> str:
        return self.inner.voice_id(language)

    def path_for(self, text: str, language: str) -> Path:
        digest = hashlib.sha256(text.encode("utf-8")).hexdigest()
        return (
            self.cache_dir / f"{_safe(self.inner.name)}-{_safe(self.inner.voice_id(language))}-{digest}.pcm"
        )

    async def stream(self, text: str, language: str, *, cache: bool = True) -> AsyncIterator[np.ndarray]:
        if not cache:
            async for chunk in self.inner.stream(text, language):
                yield chunk
            return
        path = self.path_for(text, language)
        audio = await self._lookup(path)
        if audio is not None:
            self.hits += 1
            for start in range(0, audio.size, CACHED_CHUNK_SAMPLES):
                yield audio[start : start + CACHED_CHUNK_SAMPLES]
            return
        parts: list[np.ndarray] = []
        async for chunk in self.inner.stream(text, language):
            parts.append(chunk)
            yield chunk
        if sum(part.size for part in parts):  # no audio at all is not worth a cache entry
            await self._store(path, np.concatenate(parts).astype(np.int16, copy=False))

    async def prewarm(self, lines: Iterable[tuple[str, str]]) -> int:
        """Synthesise and store every (text, language) not cached yet; returns how many were synthesised now.

        A line that fails is logged and listed in `prewarm_errors`; the others still go on.
        """
        made = 0
        self.prewarm_errors = []
        for text, language in lines:
            try:
                path = self.path_for(text, language)
                if await self._lookup(path) is not None:
                    continue
                audio = await synthesize(self.inner, text, language)
            except SpeechError as exc:
                self.prewarm_errors.append(f"{language}: {text[:40]!r}: {exc}")
                log.warning(
                    "tts_prewarm_failed", provider=self.inner.name, language=language, reason=str(exc)
                )
                continue
            if audio.size:
                await self._store(path, audio)
                made += 1
        return made

    def is_cached(self, text: str, language: str) -> bool:
        path = self.path_for(text, language)
        return str(path) in self._memory or path.is_file()

    async def _lookup(self, path: Path) -> np.ndarray | None:
        key = str(path)
        audio = self._memory.get(key)
        if audio is not None:
            self._memory.move_to_end(key)
            return audio
        try:
            raw = await asyncio.to_thread(path.read_bytes)
        except FileNotFoundError:
            return None
        except OSError as exc:
            log.warning("tts_cache_unreadable", path=key, reason=str(exc))
            return None
        if not raw or len(raw) % 2:
            log.warning("tts_cache_damaged", path=key, size=len(raw))
            return None
        audio = np.frombuffer(raw, dtype="<i2").astype(np.int16)
        self._remember(key, audio)
        return audio

    async def _store(self, path: Path, audio: np.ndarray) -> None:
        self._remember(str(path), audio)
        try:
            await asyncio.to_thread(self._write, path, audio.astype("<i2").tobytes())
        except OSError as exc:
            log.warning("tts_cache_write_failed", path=str(path), reason=str(exc))

    @staticmethod
    def _write(path: Path, data: bytes) -> None:
        private_dir(path.parent)
        tmp = path.with_name(f".{path.name}.{os.getpid()}.{uuid.uuid4().hex[:8]}.tmp")
        try:
            with os.fdopen(open_private(tmp, os.O_WRONLY | os.O_EXCL), "wb") as fh:
                fh.write(data)
            os.replace(tmp, path)
        finally:
            with contextlib.suppress(FileNotFoundError):
                tmp.unlink()

    def _remember(self, key: str, audio: np.ndarray) -> None:
        if audio.nbytes > self.memory_limit_bytes:
            return
        old = self._memory.pop(key, None)
        if old is not None:
            self._memory_bytes -= old.nbytes
        self._memory[key] = audio
        self._memory_bytes += audio.nbytes
        while self._memory_bytes > self.memory_limit_bytes and self._memory:
            _, dropped = self._memory.popitem(last=False)
            self._memory_bytes -= dropped.nbytes
