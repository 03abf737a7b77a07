"""Files that hold call data (the record spool, its `.rejected` companion) and the TTS cache are private to the
service user whatever the umask of whoever started the process: files 0600, the folders we create 0700."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pytest

from ai_operator.sim.instant import InstantTTS
from ai_operator.speech.cache import CachedTTS
from ai_operator.speech.tts import synthesize
from ai_operator.storage.spool import Spool

UMASKS = [0o000, 0o022, 0o277]  # permissive, the usual one, one that would make files read-only


@contextmanager
def umask(mask: int) -> Iterator[None]:
    old = os.umask(mask)
    try:
        yield
    finally:
        os.umask(old)


def mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.mark.parametrize("mask", UMASKS, ids=oct)
def test_spool_files_are_0600_and_its_folders_0700(tmp_path: Path, mask: int) -> None:
    spool = Spool(tmp_path / "state" / "spool" / "records.jsonl")
    with umask(mask):
        spool.append({"kind": "call", "n": 1})
        spool.append({"kind": "call", "n": 2})
        assert mode(spool.path) == 0o600
        spool.replace([b'{"kind":"call","n":2}'])  # the atomic rewrite makes a new file
        assert mode(spool.path) == 0o600
        spool.reject(1, b'{"kind":"call","n":1}', "unknown call")
    assert spool.count() == 1
    assert mode(spool.rejected_path) == 0o600
    assert mode(tmp_path / "state" / "spool") == 0o700 and mode(tmp_path / "state") == 0o700
    assert not list(spool.path.parent.glob("*.tmp"))


def test_a_spool_left_readable_by_an_older_version_is_tightened(tmp_path: Path) -> None:
    folder = tmp_path / "spool"
    folder.mkdir(mode=0o755)
    folder.chmod(0o755)
    path = folder / "records.jsonl"
    path.write_text('{"kind":"call"}\n')
    path.chmod(0o644)
    rejected = path.with_suffix(".rejected")
    rejected.write_text("")
    rejected.chmod(0o666)
    spool = Spool(path)
    spool.append({"kind": "call", "n": 2})
    spool.reject(1, b"x", "bad")
    assert (mode(path), mode(rejected), mode(folder)) == (0o600, 0o600, 0o700)
    assert spool.count() == 2


@pytest.mark.parametrize("mask", UMASKS, ids=oct)
async def test_tts_cache_files_are_0600_and_its_folder_0700(tmp_path: Path, mask: int) -> None:
    cache_dir = tmp_path / "state" / "tts-cache"
    with umask(mask):
        tts = CachedTTS(InstantTTS(seconds_per_char=0.01), cache_dir)
        await synthesize(tts, "Добрый день!", "ru")
        await tts.prewarm([("Сәлеметсіз бе!", "kk")])
    files = list(cache_dir.iterdir())
    assert len(files) == 2 and all(f.suffix == ".pcm" for f in files)
    assert {mode(f) for f in files} == {0o600}
    assert mode(cache_dir) == 0o700 and mode(tmp_path / "state") == 0o700
    again = CachedTTS(InstantTTS(seconds_per_char=0.01), cache_dir)  # and they are still readable by us
    assert (await synthesize(again, "Добрый день!", "ru")).size and again.hits == 1
