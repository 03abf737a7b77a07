"""The media benchmark's conversations, prepared before a run: the callers' scripted operator dialogues, what
the daemon must answer to each line, and the audio on both sides.

`prepare(settings, out_dir)` (the daemon's settings; its embedded PostgreSQL must hold the knowledge base):
1. runs each dialogue of `SCRIPTS` through the operator policy with the real knowledge base, the code the daemon
   runs (`Conversation`), and checks it goes language -> region -> an answer from the knowledge base with a
   citation -> goodbye and hang-up (a script that does not is an error, not a quieter benchmark);
2. synthesises every reply with the daemon's TTS (espeak-ng behind the line cache in STATE_DIR/tts-cache: this
   prewarms the daemon's cache) and counts the 20 ms frames each reply must contain;
3. synthesises the caller's lines (espeak-ng, trimmed to the frames webrtcvad calls speech).
It writes `plan.json` and one raw int16 file per caller line, read by the caller and daemon processes.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import webrtcvad

from ai_operator.config import Settings
from ai_operator.media.codecs import get_codec
from ai_operator.media.frames import FRAME_SAMPLES

SAMPLE_RATE = 8000
CALLER_WPM = 200
VAD_MODE = 2
LOUD_PEAK = 2000  # int16 peak of a frame that is unmistakably speech
# (caller language, lines): language, region, a knowledge-base question, goodbye. ASR-style: lower case, no
# punctuation, fillers, code-switching; Russian and Kazakh.
SCRIPTS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("ru", ("ну по-русски давайте", "я живу в караганде", "сколько стоит домашний интернет",
            "всё понятно спасибо до свидания")),
    ("kk", ("қазақша", "мен астанада тұрамын", "үй интернеті қанша тұрады", "рахмет сау болыңыз")),
    ("ru", ("русский пожалуйста", "эээ павлодар", "как оплатить интернет картой", "спасибо пока")),
    ("kk", ("қазақ тілінде", "шымкент қаласы", "wi-fi құпиясөзін қалай өзгертемін", "жарайды рахмет сау болыңыз")),
)
EXPECTED_STATES = ("REGION_SELECTION", "READY_TO_HELP")


class PlanError(RuntimeError):
    """A scripted dialogue does not go the way the benchmark needs."""


@dataclass(frozen=True)
class Variant:
    language: str
    lines: tuple[str, ...]
    replies: tuple[str, ...]  # greeting first, then the reply to each line
    languages: tuple[str, ...]  # the language each reply is spoken in
    frames: tuple[int, ...]  # 20 ms frames of each reply

    @property
    def seconds(self) -> float:
        return sum(self.frames) * FRAME_SAMPLES / SAMPLE_RATE


@dataclass(frozen=True)
class Plan:
    codec: str
    variants: tuple[Variant, ...]
    caller_audio: dict[str, np.ndarray]  # line -> int16 8 kHz, whole frames

    def expected(self) -> dict[int, list[int]]:
        return {i: list(v.frames) for i, v in enumerate(self.variants)}

    def received_audio(self) -> dict[str, np.ndarray]:
        """Each caller line as the daemon decodes it (the codec is lossy): what `ScriptedSTT` recognises."""
        codec = get_codec(self.codec)
        return {text: codec.decode(codec.encode(pcm)) for text, pcm in self.caller_audio.items()}

    def call_seconds(self, think_s: float, end_silence_s: float) -> float:
        """About how long one call lasts: bot speech, caller speech, end-of-utterance silence, thinking."""
        per = []
        for v in self.variants:
            said = sum(len(self.caller_audio[line]) for line in v.lines) / SAMPLE_RATE
            per.append(v.seconds + said + len(v.lines) * (think_s + end_silence_s))
        return sum(per) / len(per)


def speech_clip(pcm: np.ndarray) -> np.ndarray:
    """Synthetic speech from its first frame webrtcvad calls speech to its last LOUD one, in whole frames. The
    line ends on a frame any VAD calls speech, and digital silence follows, so the last frame sent is where the
    daemon's VAD sees the speech end (a soft tail would let it decide a few frames earlier or later)."""
    vad = webrtcvad.Vad(VAD_MODE)
    n = len(pcm) // FRAME_SAMPLES
    frames = [pcm[i * FRAME_SAMPLES : (i + 1) * FRAME_SAMPLES] for i in range(n)]
    voiced = [i for i, f in enumerate(frames) if vad.is_speech(f.tobytes(), SAMPLE_RATE)]
    loud = [i for i in voiced if int(np.abs(frames[i].astype(np.int32)).max()) >= LOUD_PEAK]
    if not loud:
        raise PlanError("caller line: espeak-ng produced no loud frame that webrtcvad calls speech")
    return np.concatenate(frames[voiced[0] : loud[-1] + 1]).astype(np.int16)


async def _caller_line(text: str, language: str) -> np.ndarray:
    from ai_operator.speech.espeak import EspeakTTS
    from ai_operator.speech.tts import synthesize

    return speech_clip(await synthesize(EspeakTTS(rate_wpm=CALLER_WPM), text, language))


async def _dialogue(settings: Settings, route: Any, knowledge: Any, lines: tuple[str, ...]) -> list[Any]:
    from ai_operator.conversation import Conversation
    from ai_operator.dialogue import knowledge_profile
    from ai_operator.wiring import new_session
    from policies import load_policy

    conversation = Conversation(new_session(settings, route, "bench-plan"), knowledge=knowledge,
                                knowledge_profile=knowledge_profile(load_policy(route.policy)))
    return [await conversation.start(), *[await conversation.utterance(line) for line in lines]]


def _check(lines: tuple[str, ...], outcomes: list[Any]) -> None:
    replies = [o.reply for o in outcomes]
    states = tuple(str(r.fields.get("state")) for r in replies[1:3])
    problem = ""
    if states != EXPECTED_STATES:
        problem = f"states after the first two lines are {states}, expected {EXPECTED_STATES}"
    elif not replies[3].fields.get("citations"):
        problem = f"the question {lines[2]!r} found nothing in the knowledge base ({replies[3].text!r})"
    elif not replies[4].hang_up:
        problem = f"the goodbye {lines[3]!r} did not end the call ({replies[4].text!r})"
    elif any(not r.text for r in replies):
        problem = "a line got no spoken reply"
    if problem:
        raise PlanError(f"benchmark script {list(lines)}: {problem}")


async def _frames(tts: Any, segments: Any, text: str, language: str) -> int:
    """Frames the daemon plays for `text`: its voice segments through the TTS cache (chunked as a cache hit is),
    with the silence around the line trimmed as the daemon's speaker trims it."""
    from ai_operator.media.trim import SilenceTrimmer

    parts = segments(text, language)
    await tts.prewarm(parts)  # synthesised and stored first, so the count below sees what a cache hit yields
    trimmer = SilenceTrimmer()
    samples = 0
    for part, voice in parts:
        async for chunk in tts.stream(part, voice, cache=True):
            samples += trimmer.push(chunk).size
    samples += trimmer.end().size
    return -(-samples // FRAME_SAMPLES)


async def prepare(settings: Settings, out_dir: Path, route_name: str = "test") -> Plan:
    """See the module docstring. The knowledge base is opened (and closed) here."""
    from ai_operator.kb.embeddings import build_embedder
    from ai_operator.kb.store import KnowledgeBase
    from ai_operator.providers import build_tts
    from ai_operator.storage.database import Database
    from policies import load_policy

    route = settings.route(route_name)
    if route is None:
        raise PlanError(f"benchmark: route {route_name!r} is not configured")
    segments = load_policy(route.policy).voice_segments
    state_dir = Path(settings.storage.state_dir)
    tts = build_tts(settings, route, state_dir / "tts-cache")
    db = await Database.open(settings.storage.database_url or None, state_dir)
    knowledge = KnowledgeBase(db, build_embedder(settings))
    variants = []
    try:
        for language, lines in SCRIPTS:
            outcomes = await _dialogue(settings, route, knowledge, lines)
            _check(lines, outcomes)
            replies = tuple(o.reply.text for o in outcomes)
            languages = tuple(o.reply.language for o in outcomes)
            frames = [await _frames(tts, segments, o.reply.text, o.reply.language) for o in outcomes]
            variants.append(Variant(language, lines, replies, languages, tuple(frames)))
    finally:
        await knowledge.close()
        await db.close()
    audio = {line: await _caller_line(line, v.language) for v in variants for line in v.lines}
    plan = Plan(settings.rtp.codec, tuple(variants), audio)
    save(plan, out_dir)
    return plan


def save(plan: Plan, out_dir: Path) -> Path:
    out_dir.mkdir(parents=True, exist_ok=True)
    files = {}
    for i, (text, pcm) in enumerate(plan.caller_audio.items()):
        name = f"line-{i}.pcm"
        (out_dir / name).write_bytes(pcm.astype("<i2").tobytes())
        files[text] = name
    doc = {"codec": plan.codec, "caller_audio": files,
           "variants": [{"language": v.language, "lines": list(v.lines), "replies": list(v.replies),
                         "languages": list(v.languages), "frames": list(v.frames)} for v in plan.variants]}
    path = out_dir / "plan.json"
    path.write_text(json.dumps(doc, ensure_ascii=False, indent=1))
    return path


def load(path: Path) -> Plan:
    doc = json.loads(Path(path).read_text())
    audio = {text: np.frombuffer((path.parent / name).read_bytes(), dtype="<i2").astype(np.int16)
             for text, name in doc["caller_audio"].items()}
    variants = tuple(Variant(v["language"], tuple(v["lines"]), tuple(v["replies"]), tuple(v["languages"]),
                             tuple(v["frames"])) for v in doc["variants"])
    return Plan(doc["codec"], variants, audio)
