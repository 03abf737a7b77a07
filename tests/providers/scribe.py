"""A test-only STT provider of the streaming shape: the whole of what adding a provider takes is this module and
one `register(PROVIDER)` line (see tests/test_provider_registry.py). It declares its own settings group
(`ScribeSettings`: `SCRIBE_PARTIAL_EVERY`), which the env file then accepts and checks like any key.

`ScribeSTT` is the streaming test double: it hears the frames fed to it, yields a partial transcript every
`PARTIAL_EVERY` frames and the scripted line as the final one when the stream is finished (`script`, or else
what the simulated caller is saying now: `HEARD.current`, set by `Caller.say` when the stage's transcripts are
`HEARD`). Its language hook maps
the policy's ISO 639-1 code to a BCP-47 locale, as cloud recognizers want.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from dataclasses import dataclass

import numpy as np

from ai_operator.config import Settings
from ai_operator.config.schema import setting
from ai_operator.media.frames import FRAME_SAMPLES
from ai_operator.providers.registry import ProviderSpec
from ai_operator.sim.stage import ScriptedTranscripts
from ai_operator.speech.errors import SpeechError
from ai_operator.speech.streaming_stt import Transcript

PARTIAL_EVERY = 10  # frames (the default of SCRIBE_PARTIAL_EVERY)
LOCALES = {"ru": "ru-RU", "kk": "kk-KZ", "hi": "hi-IN"}
HEARD = ScriptedTranscripts()


class ScribeStream:
    def __init__(self, owner: ScribeSTT, language: str | None) -> None:
        self.owner, self.language = owner, language
        self.frames = 0
        self._results: list[Transcript] = []
        self._new = asyncio.Event()
        self.finished = False
        self.closed = False

    async def feed(self, frame: np.ndarray) -> None:  # a frame, or several at once (live_stt sends 100 ms)
        for _ in range(max(1, len(frame) // FRAME_SAMPLES)):
            self._frame()

    def _frame(self) -> None:
        self.frames += 1
        every = self.owner.partial_every
        if self.frames % every == 0:
            words = (self.owner.script or HEARD.current).split()
            self._results.append(Transcript(" ".join(words[: self.frames // every]), final=False))
            self._new.set()

    async def finish(self) -> None:
        if self.owner.fail:
            raise SpeechError("stt provider scribe: down (test)")
        text = self.owner.script if self.owner.script is not None else HEARD(b"", {})
        self._results.append(Transcript(text, final=True))
        self.finished = True
        self._new.set()

    async def results(self) -> AsyncIterator[Transcript]:
        """Live: each result as it is made, until the final one after `finish`."""
        seen = 0
        while True:
            while seen < len(self._results):
                seen += 1
                yield self._results[seen - 1]
            if self.finished:
                return
            self._new.clear()
            await self._new.wait()

    async def aclose(self) -> None:
        self.closed = True


@dataclass(frozen=True)
class ScribeSettings:
    """The provider's own settings group."""

    partial_every: int = setting("SCRIBE_PARTIAL_EVERY", PARTIAL_EVERY, "frames between partial transcripts",
                                 lo=1, hi=100)


class ScribeSTT:
    name = "scribe"

    def __init__(self, partial_every: int = PARTIAL_EVERY) -> None:
        self.partial_every = partial_every
        self.script: str | None = None
        self.fail = False
        self.streams: list[ScribeStream] = []

    async def open(self, language: str | None) -> ScribeStream:
        stream = ScribeStream(self, language)
        self.streams.append(stream)
        return stream


INSTANCES: list[ScribeSTT] = []


def build_stt(settings: Settings) -> ScribeSTT:
    stt = ScribeSTT(settings.group(ScribeSettings).partial_every)
    INSTANCES.append(stt)
    return stt


async def check(_settings: Settings) -> str | None:
    return None


PROVIDER = ProviderSpec(name="scribe", doc="test-only streaming recognizer", settings=ScribeSettings, stt=build_stt,
                        check=check, language=lambda code: LOCALES.get(code, code))
