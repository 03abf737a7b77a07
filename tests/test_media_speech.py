"""VAD segmenter and barge-in with real speech from espeak-ng (resampled to 8 kHz with soxr) and real webrtcvad."""

from __future__ import annotations

import io
import shutil
import subprocess
import wave

import numpy as np
import pytest
import soxr

from ai_operator.config.schema import VadSettings
from ai_operator.media.bargein import BargeInDetector
from ai_operator.media.frames import FRAME_S, FRAME_SAMPLES, SAMPLE_RATE
from ai_operator.media.levels import frame_level_db, frame_power
from ai_operator.media.listener import BargedIn, CallerListener
from ai_operator.media.vad import SpeechStarted, UtteranceEnded, UtteranceSegmenter

RATE = SAMPLE_RATE
FRAME = FRAME_SAMPLES


def segmenter(**kw: float) -> UtteranceSegmenter:
    """A segmenter with the shipped VAD settings, some replaced."""
    v = VadSettings()
    return UtteranceSegmenter(
        int(kw.get("aggressiveness", v.aggressiveness)),
        int(kw.get("start_ms", v.start_ms)),
        int(kw.get("end_silence_ms", v.end_silence_ms)),
        float(kw.get("max_utterance_s", v.max_utterance_s)),
    )
pytestmark = pytest.mark.skipif(shutil.which("espeak-ng") is None, reason="espeak-ng not installed")


def speak(text: str, voice: str = "ru") -> np.ndarray:
    wav = subprocess.run(["espeak-ng", "-v", voice, "--stdout", text], check=True, capture_output=True).stdout
    with wave.open(io.BytesIO(wav)) as w:
        rate = w.getframerate()
        pcm = np.frombuffer(w.readframes(w.getnframes()), dtype="<i2")
    out = soxr.resample(pcm, rate, RATE)
    # trim espeak's own leading/trailing silence so the test knows where speech is
    loud = np.flatnonzero(np.abs(out) > 500)
    return out[loud[0] : loud[-1] + 1].astype(np.int16)


@pytest.fixture(scope="module")
def caller_speech() -> np.ndarray:
    return speak("Здравствуйте, я хотел бы узнать баланс моего счёта")


@pytest.fixture(scope="module")
def bot_speech() -> np.ndarray:
    return speak("Добрый день, оператор слушает, чем могу помочь вам сегодня?")


def noise(n: int, amplitude: float = 8.0, seed: int = 0) -> np.ndarray:
    return (np.random.default_rng(seed).standard_normal(n) * amplitude).astype(np.int16)


def frames_of(pcm: np.ndarray) -> list[np.ndarray]:
    pad = (-len(pcm)) % FRAME
    pcm = np.concatenate((pcm, np.zeros(pad, dtype=np.int16)))
    return [pcm[i : i + FRAME] for i in range(0, len(pcm), FRAME)]


def test_one_utterance_with_sensible_boundaries(caller_speech: np.ndarray) -> None:
    lead, tail = 1.0, 1.5
    signal = np.concatenate((noise(int(lead * RATE)), caller_speech, noise(int(tail * RATE), seed=1)))
    speech_s = len(caller_speech) / RATE
    seg = segmenter()
    events: list[SpeechStarted | UtteranceEnded] = []
    for i, frame in enumerate(frames_of(signal)):
        now = (i + 1) * FRAME_S  # the time the frame has fully arrived
        events += seg.feed(frame, now)
    assert [type(e) for e in events] == [SpeechStarted, UtteranceEnded]
    started, ended = events
    assert isinstance(started, SpeechStarted) and isinstance(ended, UtteranceEnded)
    assert lead - 0.05 <= started.at <= lead + 0.2
    assert ended.speech_started_at == started.at
    assert lead + speech_s - 0.25 <= ended.speech_ended_at <= lead + speech_s + 0.1
    assert ended.detected_at == pytest.approx(ended.speech_ended_at + 0.6, abs=0.021)
    assert not ended.truncated
    assert ended.audio.dtype == np.int16
    # the audio holds the whole speech plus a little pre-roll, not the long silences around it
    assert speech_s <= len(ended.audio) / RATE <= speech_s + 0.5
    assert np.abs(ended.audio[: int(0.1 * RATE)]).max() < 200  # starts in pre-roll silence
    assert not seg.in_speech


def test_long_speech_is_cut_and_truncated(caller_speech: np.ndarray) -> None:
    seg = segmenter(max_utterance_s=1.0)
    ended: list[UtteranceEnded] = []
    for i, frame in enumerate(frames_of(np.concatenate((noise(8000), caller_speech)))):
        ended += [e for e in seg.feed(frame, i * FRAME_S) if isinstance(e, UtteranceEnded)]
    assert ended and ended[0].truncated
    assert len(ended[0].audio) == RATE  # exactly max_utterance_s of audio
    assert ended[0].detected_at - ended[0].speech_started_at == pytest.approx(1.0 - 0.2 + 0.02, abs=0.1)


def test_silence_and_noise_make_no_utterance() -> None:
    seg = segmenter(aggressiveness=3)
    events = []
    for i, frame in enumerate(frames_of(noise(3 * RATE, amplitude=30))):
        events += seg.feed(frame, i * FRAME_S)
    assert events == [] and not seg.last_frame_speech


def test_bad_frames_are_rejected_with_the_reason() -> None:
    seg = segmenter()
    with pytest.raises(ValueError, match="160 int16 samples"):
        seg.feed(np.zeros(100, dtype=np.int16), 0.0)
    with pytest.raises(ValueError, match="aggressiveness"):
        segmenter(aggressiveness=5)


def run_barge_in(bot: np.ndarray, caller: np.ndarray, threshold_ms: int, echo_margin_db: float = 12.0) -> list[int]:
    """Bot speaks `bot` (its frames feed the echo reference as they are sent); `caller` is what comes back from
    the line; returns the frames at which the listener reported a barge-in."""
    listener = CallerListener(segmenter(), BargeInDetector(threshold_ms), echo_margin_db=echo_margin_db)
    hits = []
    bot_frames, caller_frames = frames_of(bot), frames_of(caller)
    for i, cf in enumerate(caller_frames):
        t = 1000.0 + i * FRAME_S
        if i < len(bot_frames):
            listener.note_bot_power(frame_power(bot_frames[i]), t)
        if any(isinstance(ev, BargedIn) for ev in listener.feed(cf, t, bot_speaking=True)):
            hits.append(i)
    return hits


def echo_of(bot: np.ndarray, db: float = -20.0, delay_frames: int = 3) -> np.ndarray:
    gain = 10 ** (db / 20)
    delayed = np.concatenate((np.zeros(delay_frames * FRAME), bot.astype(np.float64)))
    return (delayed * gain).astype(np.int16)


def test_sustained_caller_speech_triggers_within_threshold(bot_speech: np.ndarray, caller_speech: np.ndarray) -> None:
    onset = 25  # frames of the bot alone, with its echo, before the caller talks
    echo = echo_of(bot_speech)
    line = echo[: len(caller_speech) + onset * FRAME].astype(np.int32)
    line[onset * FRAME : onset * FRAME + len(caller_speech)] += caller_speech
    line = np.clip(line, -32768, 32767).astype(np.int16)
    hits = run_barge_in(bot_speech, line, 200)
    assert len(hits) == 1  # exactly once
    # 200 ms of counted speech; the first syllable ("Зд", ~-30 dBFS) is below the bot reference minus the
    # margin, so allow up to 160 ms for the caller's level to rise over it
    assert onset + 10 <= hits[0] <= onset + 10 + 8


def test_short_burst_does_not_trigger(bot_speech: np.ndarray, caller_speech: np.ndarray) -> None:
    burst = caller_speech[4000 : 4000 + 800]  # 100 ms from the middle of a word
    line = np.concatenate((noise(RATE // 2), burst, noise(RATE, seed=2)))
    seg = segmenter()
    speech_frames = sum(seg.is_speech(f) for f in frames_of(line))
    assert 4 <= speech_frames <= 12  # the burst really is speech to the VAD (plus its hangover)
    assert run_barge_in(bot_speech, line, 200) == []
    assert len(run_barge_in(bot_speech, line, 60)) == 1  # loud enough to count


def test_bot_echo_at_minus_20_db_does_not_trigger(bot_speech: np.ndarray) -> None:
    echo = echo_of(bot_speech)
    seg = segmenter()
    assert sum(seg.is_speech(f) for f in frames_of(echo)) > 20  # VAD alone would call the echo speech
    assert run_barge_in(bot_speech, echo, 200) == []
    # without the echo margin the same echo is sustained speech: the level check is what rejects it
    assert run_barge_in(bot_speech, echo, 200, echo_margin_db=30)
    assert frame_level_db(bot_speech[:FRAME * 50]) - frame_level_db(echo[FRAME * 3 : FRAME * 53]) == pytest.approx(20, abs=0.5)


def test_no_trigger_when_bot_is_silent_and_rearm_after(caller_speech: np.ndarray) -> None:
    listener = CallerListener(segmenter(), BargeInDetector(100))
    fired = []
    for i, cf in enumerate(frames_of(caller_speech)):
        events = listener.feed(cf, i * FRAME_S, bot_speaking=i >= 40)
        fired.append(any(isinstance(ev, BargedIn) for ev in events))
    assert fired[:40] == [False] * 40
    assert sum(fired) == 1
