"""Speculative transcripts at a short pause (`daemon/early_stt.py`) with real espeak-ng speech and real webrtcvad:
the transcript made at the utterance's last pause is the one the turn uses (the same audio, no second request);
one made at a pause the caller spoke on after is dropped and counted as wasted; and on the simulated PBX a
caller who pauses 300 ms mid-sentence is heard whole, once."""

from __future__ import annotations

import asyncio

import numpy as np
import pytest

from ai_operator.daemon.early_stt import EarlyTranscript
from ai_operator.media.frames import FRAME_S, SAMPLE_RATE
from ai_operator.media.vad import UtteranceEnded
from tests.support.daemon import Caller, caller_pcm, stage_for, trim_leading_silence
from tests.test_media_speech import frames_of, noise, segmenter, speak

PAUSE_S = 0.3


class Recorder:
    def __init__(self) -> None:
        self.sent: list[int] = []  # samples of each audio transcribed
        self.outcomes: list[str] = []

    async def transcribe(self, audio: np.ndarray) -> str:
        self.sent.append(len(audio))
        return f"{len(audio)} samples"


async def run(signal: np.ndarray, pause_ms: int = 240) -> tuple[Recorder, list[str | None], list[UtteranceEnded]]:
    rec = Recorder()
    early = EarlyTranscript(pause_ms, rec.transcribe, rec.outcomes.append)
    seg = segmenter()
    ended: list[UtteranceEnded] = []
    taken: list[str | None] = []
    for i, frame in enumerate(frames_of(signal)):
        for ev in seg.feed(frame, (i + 1) * FRAME_S):
            if isinstance(ev, UtteranceEnded):
                ended.append(ev)
                taken.append(await early.take(ev))
        early.frame(seg)
        await asyncio.sleep(0)  # the speculative request runs while frames arrive
    early.close()
    return rec, taken, ended


@pytest.fixture(scope="module")
def words() -> tuple[np.ndarray, np.ndarray]:
    return speak("я живу в городе"), speak("караганда")


async def test_the_transcript_made_at_the_last_pause_is_the_turns(words: tuple[np.ndarray, np.ndarray]) -> None:
    first, _ = words
    rec, taken, ended = await run(np.concatenate((noise(8000), first, noise(16000, seed=1))))
    assert len(ended) == 1
    assert rec.sent == [len(ended[0].audio)]  # one request, of exactly the audio the utterance ended with
    assert taken == [f"{len(ended[0].audio)} samples"] and rec.outcomes == ["used"]


async def test_a_pause_the_caller_spoke_on_after_is_an_extra_request(words: tuple[np.ndarray, np.ndarray]) -> None:
    first, second = words
    pause = np.zeros(int(PAUSE_S * SAMPLE_RATE), dtype=np.int16)
    rec, taken, ended = await run(np.concatenate((noise(8000), first, pause, second, noise(16000, seed=1))))
    assert len(ended) == 1  # 300 ms is a pause, not the end of the utterance
    assert len(rec.sent) == 2 and rec.sent[0] < rec.sent[1] == len(ended[0].audio)
    assert taken == [f"{len(ended[0].audio)} samples"]  # the whole utterance: no words lost
    assert rec.outcomes == ["wasted", "used"]


async def test_off_means_no_speculative_request(words: tuple[np.ndarray, np.ndarray]) -> None:
    rec, taken, _ = await run(np.concatenate((noise(8000), words[0], noise(16000, seed=1))), pause_ms=0)
    assert rec.sent == [] and taken == [None]


@pytest.mark.slow
async def test_a_caller_who_pauses_mid_sentence_is_heard_whole_and_answered_once(daemon_base) -> None:
    # the policy's early end of turn is off here: this is the speculative transcript alone (with it on, see
    # tests/test_daemon_early_turn.py)
    async with stage_for(daemon_base, VAD_END_SILENCE_MS=600, VAD_EARLY_STT_MS=240, VAD_EARLY_TURN=False) as stage:
        assert stage.fake_openai is not None
        first = trim_leading_silence(await caller_pcm("По-русски", "ru"))
        second = await caller_pcm("пожалуйста", "ru")
        # the STT double hears what the audio holds: the first word only in the audio up to the pause (with the
        # segmenter's 200 ms before and after it), both in the whole (bytes: 2 per sample)
        middle = len(first) + 3700 + (int(PAUSE_S * SAMPLE_RATE) + len(second)) // 2
        stage.fake_openai.transcripts = lambda wav, _f: "По-русски пожалуйста" if len(wav) > 2 * middle else "По-русски"
        caller = await Caller.place(stage)
        await caller.quiet(min_turns=1)
        pause = np.zeros(int(PAUSE_S * SAMPLE_RATE), dtype=np.int16)
        caller.sim.say(np.concatenate((first, pause, second)))
        await caller.sim.wait_said(timeout=60)
        await caller.quiet(min_turns=2)
        await caller.sim.hangup()
        record = await caller.record()
        metrics = stage.svc.metrics.render().decode()
    said = [t["caller_text"] for t in record["turns"] if t["caller_text"]]
    assert said == ["По-русски пожалуйста"]  # heard whole, one turn, one answer
    stt = [r for r in stage.fake_openai.requests if r["path"] == "/v1/audio/transcriptions"]
    assert 'ai_operator_early_stt_total{outcome="wasted"} 1.0' in metrics  # the pause's request, counted
    assert 'ai_operator_early_stt_total{outcome="used"} 1.0' in metrics
    # the wasted request is cancelled when the caller's next pause starts: on a very slow box it may not have
    # reached the server by then; it is counted by the daemon either way
    assert len(stt) in (1, 2)
