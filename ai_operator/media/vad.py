"""Caller speech segmentation with webrtcvad: 20 ms frames in, SpeechStarted / UtteranceEnded out. No I/O.

An utterance starts after `start_ms` of consecutive speech frames and carries `PREROLL_MS` of audio from before
the first speech frame; it ends after `end_silence_ms` of non-speech (the audio is trimmed to the last speech
frame plus `POSTROLL_MS`), or is cut at `max_utterance_s` (truncated=True).

`feed_silent` is `feed` of a frame of digital silence (all samples 0) without the work: the caller's line is
silent most of a call. It is exact, not an approximation: webrtcvad's state under zero input settles (its
filter states decay to a fixed point; its model is only updated above a minimum energy; its hangover counts
down to 0), so after `VAD_SETTLE_FRAMES` zero frames another one changes nothing and its verdict is "no
speech". The first `VAD_SETTLE_FRAMES` silent frames of a run still go through webrtcvad.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import webrtcvad

from ai_operator.media.frames import FRAME_MS, SAMPLE_RATE

PREROLL_MS = 200
# webrtcvad calls the first ~4 frames speech for any noise while its noise model adapts; ignore them
WARMUP_MS = 100
POSTROLL_MS = 200
VALID_FRAME_MS = (10, 20, 30)
SILENCE_PEAK = 100  # int16 peak (about -50 dBFS): quieter frames are never speech (line noise, digital silence)
VALID_SAMPLE_RATES = (8000, 16000, 32000, 48000)
# zero frames webrtcvad gets before its state is known to be settled (its longest hangover is 14 frames of 10 ms;
# its filters forget a full-scale frame in a few frames): from then on a zero frame is not fed to it
VAD_SETTLE_FRAMES = 16


@dataclass(frozen=True)
class SpeechStarted:
    """Speech was confirmed; `at` is the time of the first speech frame of the run."""

    at: float


@dataclass(frozen=True)
class UtteranceEnded:
    """One utterance: int16 audio, when speech started and ended, when the end was detected."""

    audio: np.ndarray
    speech_started_at: float
    speech_ended_at: float
    detected_at: float
    truncated: bool


class UtteranceSegmenter:
    """Feeds webrtcvad one frame at a time and cuts the caller's audio into utterances."""

    def __init__(
        self,
        aggressiveness: int,
        start_ms: int,
        end_silence_ms: int,
        max_utterance_s: float,
        sample_rate: int = SAMPLE_RATE,
        frame_ms: int = FRAME_MS,
    ) -> None:
        if not 0 <= aggressiveness <= 3:
            raise ValueError(f"VAD aggressiveness {aggressiveness} outside 0..3")
        if sample_rate not in VALID_SAMPLE_RATES:
            raise ValueError(f"VAD sample_rate {sample_rate} not one of {VALID_SAMPLE_RATES}")
        if frame_ms not in VALID_FRAME_MS:
            raise ValueError(f"VAD frame_ms {frame_ms} not one of {VALID_FRAME_MS}")
        if start_ms <= 0 or end_silence_ms <= 0 or max_utterance_s <= 0:
            raise ValueError("VAD start_ms, end_silence_ms and max_utterance_s must be positive")
        self._vad = webrtcvad.Vad(aggressiveness)
        self.sample_rate = sample_rate
        self.frame_ms = frame_ms
        self.frame_samples = sample_rate * frame_ms // 1000
        self._start_frames = max(1, -(-start_ms // frame_ms))
        self._end_frames = max(1, -(-end_silence_ms // frame_ms))
        self._max_frames = max(1, int(max_utterance_s * 1000 // frame_ms))
        self._post_frames = POSTROLL_MS // frame_ms
        self._warmup_frames = WARMUP_MS // frame_ms
        self._frames_seen = 0
        self._preroll: deque[np.ndarray] = deque(maxlen=PREROLL_MS // frame_ms + self._start_frames)
        self._zero = np.zeros(self.frame_samples, dtype=np.int16)
        self._zero.setflags(write=False)  # shared by every silent frame kept (utterance audio is concatenated)
        self._zero_run = 0  # consecutive frames of digital silence fed (webrtcvad settled after VAD_SETTLE_FRAMES)
        self.reset()

    def reset(self) -> None:
        """Forget any speech in progress."""
        self._preroll.clear()
        self._run = 0  # consecutive speech frames before the start is confirmed
        self._run_started_at = 0.0
        self._frames: list[np.ndarray] = []
        self._silence = 0
        self._last_speech_index = 0
        self._speech_started_at = 0.0
        self._last_speech_at = 0.0
        self.in_speech = False
        self.last_frame_speech = False

    def is_speech(self, frame: np.ndarray) -> bool:
        """The webrtcvad verdict on one frame (adapts the VAD's noise model; no segmentation)."""
        return self._verdict(self._check(frame))

    def _verdict(self, arr: np.ndarray) -> bool:
        self._zero_run = 0
        speech = self._vad.is_speech(arr.tobytes(), self.sample_rate)
        self._frames_seen += 1
        return speech and self._frames_seen > self._warmup_frames

    def _check(self, frame: np.ndarray) -> np.ndarray:
        arr = np.asarray(frame)
        if arr.dtype != np.int16 or arr.shape != (self.frame_samples,):
            raise ValueError(
                f"VAD frame must be {self.frame_samples} int16 samples ({self.frame_ms} ms at {self.sample_rate} Hz), "
                f"got {arr.shape} {arr.dtype}"
            )
        return arr

    def feed(self, frame: np.ndarray, now: float) -> list[SpeechStarted | UtteranceEnded]:
        """One frame received at `now`; returns what happened (usually nothing)."""
        arr = self._check(frame)
        return self._segment(arr, self._verdict(arr), now, arr.copy)

    def feed_silent(self, now: float) -> list[SpeechStarted | UtteranceEnded]:
        """Exactly `feed(zeros, now)`: a frame of digital silence, given to webrtcvad only until it has settled."""
        zero = self._zero
        run = self._zero_run
        if self.skip_if_settled():  # the usual case, `_idle` of a non-speech frame
            return []
        if run < VAD_SETTLE_FRAMES:
            speech = self._verdict(zero)  # may still say speech: webrtcvad's hangover
        else:
            self._frames_seen += 1
            speech = False
        self._zero_run = run + 1
        return self._segment(zero, speech, now, self._shared_zero)

    def skip_if_settled(self) -> bool:
        """Idle on digital silence long enough (webrtcvad settled, no utterance in progress) that another silent
        frame is these counters only: counted (True), else nothing done (False). One call for most frames."""
        if self._zero_run < VAD_SETTLE_FRAMES or self.in_speech:
            return False
        self._frames_seen += 1
        self._zero_run += 1
        self.last_frame_speech = False
        self._preroll.append(self._zero)
        self._run = 0
        return True

    def _shared_zero(self) -> np.ndarray:
        return self._zero

    def _segment(
        self, arr: np.ndarray, speech: bool, now: float, keep: Callable[[], np.ndarray]
    ) -> list[SpeechStarted | UtteranceEnded]:
        self.last_frame_speech = speech
        if not self.in_speech:
            return self._idle(keep(), speech, now)
        self._frames.append(keep())
        # webrtcvad keeps saying "speech" for a few frames after speech stops (its hangover, 60-100 ms); for the
        # end of the utterance a frame whose peak is below SILENCE_PEAK is silence whatever the VAD says
        if speech and arr is not self._zero and int(np.abs(arr).max()) >= SILENCE_PEAK:
            self._silence = 0
            self._last_speech_index = len(self._frames)
            self._last_speech_at = now
        else:
            self._silence += 1
        if self._silence >= self._end_frames:
            return [self._finish(now, truncated=False)]
        if len(self._frames) >= self._max_frames:
            return [self._finish(now, truncated=True)]
        return []

    def _idle(self, kept: np.ndarray, speech: bool, now: float) -> list[SpeechStarted | UtteranceEnded]:
        self._preroll.append(kept)
        if not speech:
            self._run = 0
            return []
        if self._run == 0:
            self._run_started_at = now
        self._run += 1
        if self._run < self._start_frames:
            return []
        self.in_speech = True
        self._frames = list(self._preroll)
        self._preroll.clear()
        self._silence = 0
        self._last_speech_index = len(self._frames)
        self._speech_started_at = self._run_started_at
        self._last_speech_at = now
        self._run = 0
        return [SpeechStarted(at=self._speech_started_at)]

    @property
    def frames_seen(self) -> int:
        """Frames fed so far (every frame, silent or not): a count of the caller's line, in its own time."""
        return self._frames_seen

    @property
    def starting(self) -> bool:
        """Between utterances, speech frames have begun a run that may still become an utterance."""
        return not self.in_speech and self._run > 0

    @property
    def silent_frames(self) -> int:
        """Frames of silence since the last speech frame of the utterance in progress (0 when none is)."""
        return self._silence if self.in_speech else 0

    def audio_so_far(self) -> tuple[np.ndarray, float]:
        """The utterance in progress as it would end now (its audio, trimmed as `UtteranceEnded`'s is, and its
        last speech frame's time): what a speculative transcript is made of at a pause."""
        return self._trimmed(truncated=False), self._last_speech_at

    def frames_since(self, start: int) -> tuple[float, list[np.ndarray]]:
        """The utterance in progress (its start time) and its frames from index `start` on, as far as
        `audio_so_far` keeps them (no copy of their audio): what a live transcription stream is fed."""
        keep = min(len(self._frames), self._last_speech_index + self._post_frames)
        return self._speech_started_at, self._frames[start:keep]

    def end_now(self, now: float) -> UtteranceEnded | None:
        """End the utterance in progress at `now` as `end_silence_ms` of silence would (the policy heard it
        complete at a shorter pause); None when no utterance is in progress."""
        return self._finish(now, truncated=False) if self.in_speech else None

    def _trimmed(self, *, truncated: bool) -> np.ndarray:
        keep = len(self._frames) if truncated else min(len(self._frames), self._last_speech_index + self._post_frames)
        return np.concatenate(self._frames[:keep]) if keep else np.zeros(0, dtype=np.int16)

    def _finish(self, now: float, *, truncated: bool) -> UtteranceEnded:
        audio = self._trimmed(truncated=truncated)
        event = UtteranceEnded(
            audio=audio,
            speech_started_at=self._speech_started_at,
            speech_ended_at=self._last_speech_at,
            detected_at=now,
            truncated=truncated,
        )
        last = self.last_frame_speech
        self.reset()
        self.last_frame_speech = last
        return event
