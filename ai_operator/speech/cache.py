"""Cache of synthesised lines over any `TextToSpeech` (transport: reads and writes cache files).

Canned lines (greetings, the freight pitch, goodbyes) are synthesised once per voice and kept on disk as raw
int16 8 kHz files named `{provider}-{voice}-{sha256(text)}.pcm`, with an in-memory LRU on top, so they play
with no synthesis delay. A line is stored only once it was synthesised completely (an interrupted stream
stores nothing); files are written atomically (temporary file + rename), 0600 in a 0700 folder whatever the
umask. A damaged file is ignored and the line synthesised again.

The disk cache has a size bound (`max_disk_bytes`, TTS_CACHE_MAX_MB): after a line is stored, the least
recently used files go until the cache fits (`tts_cache_evicted`). "Used" is the file's access time, which a
hit sets itself (at most once a minute per line, so noatime mounts and restarts keep the order); lines made by
`prewarm` (greetings, closing lines, fixed replies, knowledge-base answers) are pinned for the life of the
process and never evicted, as long as the pinned files fit in `PREWARM_CACHE_SHARE` of the bound; past that a
line is not prewarmed (`skipped`) and is made on its first use like any other.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import os
import re
import threading
import time
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Iterable
from pathlib import Path

import numpy as np

from ai_operator.logs import get_logger
from ai_operator.speech.tts import TextToSpeech, synthesize
from ai_operator.storage.private import open_private, private_dir

log = get_logger("speech")

MEMORY_LIMIT_BYTES = 32 * 1024 * 1024
CACHED_CHUNK_SAMPLES = 1600  # 200 ms per yielded chunk of a cached line
SAFE_NAME_RE = re.compile(r"[^A-Za-z0-9_.+-]+")
TOUCH_INTERVAL_S = 60.0  # a hit re-stamps the file's access time at most this often
_PINNED: dict[str, dict[str, int]] = {}  # cache dir -> prewarmed files and sizes, shared by every CachedTTS on it
_PINNED_TOTALS: dict[str, list[int]] = {}  # cache dir -> [bytes, characters] of its pinned lines, bytes held
PREWARM_CONCURRENCY = 2  # lines synthesised at once by `prewarm`: a provider's live requests keep their room
PREWARM_CACHE_SHARE = 0.8  # pinned lines stay within this share of the disk bound: the rest is LRU for the others
PREWARM_OUTCOMES = ("made", "cached", "failed", "skipped")


def _safe(part: str) -> str:
    return SAFE_NAME_RE.sub("_", part) or "_"


class CachedTTS:
    """Disk + memory cache around `inner`; `stream(..., cache=False)` passes straight through."""

    def __init__(
        self,
        inner: TextToSpeech,
        cache_dir: Path,
        *,
        memory_limit_bytes: int = MEMORY_LIMIT_BYTES,
        max_disk_bytes: int | None = None,
    ) -> None:
        self.inner = inner
        self.cache_dir = Path(cache_dir)
        self.memory_limit_bytes = memory_limit_bytes
        self.max_disk_bytes = max_disk_bytes or None  # None: no bound
        self._pinned = _PINNED.setdefault(os.path.abspath(self.cache_dir), {})
        self._pinned_totals = _PINNED_TOTALS.setdefault(os.path.abspath(self.cache_dir), [0, 0, 0])
        self._used: dict[str, float] = {}  # path -> last use (epoch s) seen by this process
        self._touched: dict[str, float] = {}  # path -> when its access time was last written
        self._index: dict[str, list[float]] | None = None  # path -> [last use, size]: built at the first bound check
        self._index_lock = threading.Lock()
        self._memory: OrderedDict[str, np.ndarray] = OrderedDict()
        self._memory_bytes = 0
        self.hits = 0
        self.prewarm_errors: list[str] = []
        self.prewarm_counts: dict[str, int] = dict.fromkeys(PREWARM_OUTCOMES, 0)

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
                if start:
                    await asyncio.sleep(0)  # one chunk per loop step: a long line never holds the pacer up
                yield audio[start : start + CACHED_CHUNK_SAMPLES]
            return
        parts: list[np.ndarray] = []
        async for chunk in self.inner.stream(text, language):
            parts.append(chunk)
            yield chunk
        if sum(part.size for part in parts):  # no audio at all is not worth a cache entry
            await self._store(path, np.concatenate(parts).astype(np.int16, copy=False))

    async def prewarm(self, lines: Iterable[tuple[str, str]], *, concurrency: int = PREWARM_CONCURRENCY) -> int:
        """Synthesise and store every (text, language) not cached yet, in order, `concurrency` at a time; returns
        how many were synthesised now. Prewarmed lines are pinned while the pinned files fit in
        `PREWARM_CACHE_SHARE` of the disk bound; a line that would not fit is skipped (made on first use).

        A line that fails is logged and listed in `prewarm_errors`; the others still go on. `prewarm_counts`
        says how many lines were made, already cached, failed and skipped."""
        self.prewarm_errors = []
        counts = self.prewarm_counts = dict.fromkeys(PREWARM_OUTCOMES, 0)
        todo = iter(dict.fromkeys(lines))  # each line once, in order

        async def worker() -> None:
            for text, language in todo:
                counts[await self._prewarm_line(text, language)] += 1

        await asyncio.gather(*(worker() for _ in range(max(1, concurrency))))
        return counts["made"]

    async def _prewarm_line(self, text: str, language: str) -> str:
        """One line of `prewarm`: its outcome, one of PREWARM_OUTCOMES. Its expected size is held against the
        budget from the start (before any wait), so the lines after it, made meanwhile, see it: the most urgent
        lines get the room whatever order the syntheses finish in."""
        path = self.path_for(text, language)
        key = str(path)
        reserved = 0 if key in self._pinned else self._estimate_bytes(text)
        fits = key in self._pinned or self._pin_fits(reserved)
        self._pinned_totals[2] += reserved if fits else 0
        made = False
        try:
            audio = await self._lookup(path)
            if audio is None and fits:
                audio = await synthesize(self.inner, text, language)
                made = True
        except Exception as exc:  # SpeechError, or a provider's own: the other lines still go on
            self.prewarm_errors.append(f"{language}: {text[:40]!r}: {exc}")
            log.warning("tts_prewarm_failed", provider=self.inner.name, language=language, reason=str(exc))
            return "failed"
        finally:
            self._pinned_totals[2] -= reserved if fits else 0
        if audio is None:
            return "skipped"  # not cached, and no room left to pin it: made on its first use
        if not audio.size:
            return "failed"
        self._pin(key, audio.nbytes, len(text))  # before storing: the bound never evicts it
        if made:
            await self._store(path, audio)
        return "made" if made else "cached"

    def _pin(self, key: str, size: int, chars: int) -> None:
        if key not in self._pinned and self._pin_fits(size):
            self._pinned[key] = size
            self._pinned_totals[0] += size
            self._pinned_totals[1] += chars

    def _pin_fits(self, size: int) -> bool:
        pinned, _, held = self._pinned_totals
        return self.max_disk_bytes is None or pinned + held + size <= self.max_disk_bytes * PREWARM_CACHE_SHARE

    def _estimate_bytes(self, text: str) -> int:
        """The size a line of `text` will take, per character as the lines pinned so far (0 before any: tried)."""
        size, chars, _ = self._pinned_totals
        return int(len(text) * size / chars) if chars > 0 else 0

    def is_cached(self, text: str, language: str) -> bool:
        path = self.path_for(text, language)
        return str(path) in self._memory or path.is_file()

    async def _lookup(self, path: Path) -> np.ndarray | None:
        key = str(path)
        audio = self._memory.get(key)
        if audio is not None:
            self._memory.move_to_end(key)
            await self._note_use(path)
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
        await self._note_use(path)
        return audio

    async def _store(self, path: Path, audio: np.ndarray) -> None:
        self._remember(str(path), audio)
        data = audio.astype("<i2").tobytes()
        try:
            await asyncio.to_thread(self._write, path, data)
        except OSError as exc:
            log.warning("tts_cache_write_failed", path=str(path), reason=str(exc))
            return
        now = time.time()
        self._used[str(path)] = self._touched[str(path)] = now
        if self.max_disk_bytes is not None:
            await asyncio.to_thread(self._keep_bound, str(path), len(data), now)

    async def _note_use(self, path: Path) -> None:
        """A hit: remember it, and stamp the file's access time (at most every TOUCH_INTERVAL_S)."""
        key, now = str(path), time.time()
        self._used[key] = now
        if self._index is not None and key in self._index:
            self._index[key][0] = now
        if now - self._touched.get(key, 0.0) >= TOUCH_INTERVAL_S:
            self._touched[key] = now
            with contextlib.suppress(OSError):
                await asyncio.to_thread(_touch, path, now)

    def _keep_bound(self, key: str, size: int, now: float) -> None:
        """After storing `key`: remove the least recently used unpinned files until the cache fits."""
        assert self.max_disk_bytes is not None
        with self._index_lock:
            if self._index is None:
                self._index = self._scan()
            self._index[key] = [now, float(size)]
            total = sum(size for _, size in self._index.values())
            if total <= self.max_disk_bytes:
                return
            freed = removed = 0
            for _, victim in sorted((used, k) for k, (used, _) in self._index.items() if k not in self._pinned):
                if total - freed <= self.max_disk_bytes:
                    break
                with contextlib.suppress(FileNotFoundError):
                    Path(victim).unlink()
                freed += int(self._index.pop(victim)[1])
                removed += 1
                self._used.pop(victim, None)
        log.info("tts_cache_evicted", files=removed, freed_bytes=freed, total_bytes=total - freed,
                 max_bytes=self.max_disk_bytes)

    def _scan(self) -> dict[str, list[float]]:
        """Every cache file with its last use (its access time, or a later use this process saw) and size."""
        index: dict[str, list[float]] = {}
        if not self.cache_dir.is_dir():
            return index
        with os.scandir(self.cache_dir) as entries:
            for entry in entries:
                if entry.name.startswith(".") or not entry.name.endswith(".pcm"):
                    continue
                try:
                    st = entry.stat()
                except OSError:
                    continue
                index[entry.path] = [max(st.st_atime, self._used.get(entry.path, 0.0)), float(st.st_size)]
        return index

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


def _touch(path: Path, when: float) -> None:
    """Set the access time of `path` (its modification time unchanged)."""
    os.utime(path, (when, path.stat().st_mtime))
