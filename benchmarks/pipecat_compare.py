"""Pipecat's voice-to-voice latency on our provider latency profiles, measured at the caller as our bench does.

Issue 26 asks what Pipecat's figures would be on the same profile, measured the same way. This runs a Pipecat
voice pipeline (its own defaults unless told otherwise: Silero VAD, the smart-turn v3 stop strategy, segmented
OpenAI STT, a streamed OpenAI chat model, streamed OpenAI TTS) behind a websocket with Twilio's media-stream
serializer (8 kHz mu-law in 20 ms frames, the shape a telephony provider sends). Its OpenAI services point at our
`FakeOpenAI` with the chosen latency profile (`ai_operator/sim/latency_profiles.py`), which transcribes every
line as the bench's Russian question and answers it with the bench's model answer (`latency_plan.MODEL_ANSWERS`),
so the work per turn is our model turn's. The caller speaks that question (espeak-ng, trimmed, paced in real
time, silence between lines) and measures from the last voiced frame it sent to the first voiced frame it
received (RMS over `VOICED_RMS`): the figure `benchmarks/latency.py` reports as a model turn.

Three processes, so that none of them stalls another's event loop: this one (the caller, our venv), the speech
services (our venv, `--serve`) and the bot (a venv with Pipecat, `--bot`). Pipecat is not a dependency of ours:

    python3 -m venv /tmp/pcvenv && /tmp/pcvenv/bin/pip install 'pipecat-ai[openai,silero,websocket]==1.14.0'
    .venv/bin/python -m benchmarks.pipecat_compare --pipecat-python /tmp/pcvenv/bin/python --turns 12 \\
        [--ttfs 0.6] [--no-smart-turn --stop-secs 0.6] --report benchmarks/reports/pipecat-cloud-defaults.json

`--ttfs` is Pipecat's `ttfs_p99_latency` (how long its turn stop waits for a transcript after the speech ended;
its default for OpenAI STT is its measured 2.01 s); `--no-smart-turn --stop-secs` ends turns on silence only.
"""

from __future__ import annotations

import argparse
import asyncio
import base64
import json
import os
import socket
import statistics
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import websockets

from ai_operator.media.g711 import ulaw_decode, ulaw_encode

TURNS = 12
FRAME = 160  # 20 ms at 8 kHz
VOICED_RMS = 400.0  # a received 20 ms frame this loud is the bot's voice
CALLER_WPM = 200  # as the bench's callers speak
SPEECH_LEVEL = 500  # |sample| above this is the caller's voice (the clip is trimmed to it)
ANSWER_WITHIN_S = 10.0  # as `latency_analysis.ANSWER_WITHIN_S`
QUIET_AFTER_S = 1.5  # the reply is over when nothing voiced arrived for this long
LEAD_IN_FRAMES = 50  # 1 s of silence before the first line
GAP_FRAMES = 25  # 0.5 s of silence after a reply, before the next line
BOT_START_S = 90.0  # Pipecat's import and model loading
STREAM_SID = "MZbench"
QUESTION = "сколько стоит домашний интернет"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


async def caller_clip(text: str) -> np.ndarray:
    """`text` in espeak-ng's Russian voice, 8 kHz int16, silence trimmed at both ends."""
    from ai_operator.speech.espeak import EspeakTTS

    chunks = [c async for c in EspeakTTS(rate_wpm=CALLER_WPM).stream(text, "ru")]
    pcm = np.concatenate(chunks)
    loud = np.flatnonzero(np.abs(pcm.astype(np.int32)) > SPEECH_LEVEL)
    return pcm[loud[0] : loud[-1] + 1]


async def run_bot(port: int, base_url: str, args: argparse.Namespace) -> None:
    """The Pipecat pipeline (in the Pipecat venv): transport in -> STT -> user context -> LLM -> TTS -> out."""
    from pipecat.audio.vad.silero import SileroVADAnalyzer
    from pipecat.audio.vad.vad_analyzer import VADParams
    from pipecat.pipeline.pipeline import Pipeline
    from pipecat.pipeline.runner import PipelineRunner
    from pipecat.pipeline.task import PipelineParams, PipelineTask
    from pipecat.processors.aggregators.llm_context import LLMContext
    from pipecat.processors.aggregators.llm_response_universal import (
        LLMContextAggregatorPair,
        LLMUserAggregatorParams,
    )
    from pipecat.serializers.twilio import TwilioFrameSerializer
    from pipecat.services.openai.llm import OpenAILLMService
    from pipecat.services.openai.stt import OpenAISTTService
    from pipecat.services.openai.tts import OpenAITTSService
    from pipecat.transcriptions.language import Language
    from pipecat.transports.websocket.server import WebsocketServerParams, WebsocketServerTransport
    from pipecat.turns.user_stop import SpeechTimeoutUserTurnStopStrategy
    from pipecat.turns.user_turn_strategies import UserTurnStrategies

    serializer = TwilioFrameSerializer(stream_sid=STREAM_SID,
                                       params=TwilioFrameSerializer.InputParams(auto_hang_up=False))
    transport = WebsocketServerTransport(host="127.0.0.1", port=port, params=WebsocketServerParams(
        audio_in_enabled=True, audio_out_enabled=True, add_wav_header=False, serializer=serializer,
        allowed_origins=[]))
    ttfs = {} if args.ttfs is None else {"ttfs_p99_latency": args.ttfs}
    stt = OpenAISTTService(api_key="test-key", base_url=base_url, model="whisper-1", language=Language.RU, **ttfs)
    llm = OpenAILLMService(api_key="test-key", base_url=base_url, model="gpt-4o-mini")
    tts = OpenAITTSService(api_key="test-key", base_url=base_url, voice="alloy", model="gpt-4o-mini-tts",
                           sample_rate=24000)
    context = LLMContext([{"role": "system", "content": "Ты оператор связи. Отвечай коротко."}])
    vad = SileroVADAnalyzer(params=VADParams(stop_secs=args.stop_secs)) if args.stop_secs else SileroVADAnalyzer()
    strategies = {} if not args.no_smart_turn else {
        "user_turn_strategies": UserTurnStrategies(stop=[SpeechTimeoutUserTurnStopStrategy()])}
    pair = LLMContextAggregatorPair(context, user_params=LLMUserAggregatorParams(vad_analyzer=vad, **strategies))
    pipeline = Pipeline([transport.input(), stt, pair.user(), llm, tts, transport.output(), pair.assistant()])
    task = PipelineTask(pipeline, params=PipelineParams(audio_in_sample_rate=8000, audio_out_sample_rate=8000))
    await PipelineRunner(handle_sigint=False).run(task)


async def serve(profile: str, seed: int) -> None:
    """The speech services (our venv): prints the base URL, then serves until killed."""
    from ai_operator.sim.openai_server import FakeOpenAI
    from benchmarks.latency_plan import MODEL_ANSWERS

    server = FakeOpenAI(latency=profile, seed=seed)
    server.transcripts = lambda _wav, _fields: QUESTION
    server.chat_script = lambda _body: {"content": MODEL_ANSWERS["ru"]}
    print(await server.start(), flush=True)
    await asyncio.Event().wait()


def _voiced(frame: bytes) -> bool:
    pcm = ulaw_decode(frame).astype(np.float64)
    return bool(np.sqrt(np.mean(pcm * pcm)) >= VOICED_RMS)


async def caller(port: int, clip: np.ndarray, turns: int) -> list[float | None]:
    """Say `clip` `turns` times, sending silence in between as a phone line does; each turn's voice-to-voice ms
    (None: nothing voiced within `ANSWER_WITHIN_S`)."""
    frames = [ulaw_encode(clip[i : i + FRAME]) for i in range(0, len(clip) - FRAME + 1, FRAME)]
    silence = ulaw_encode(np.zeros(FRAME, dtype=np.int16))
    results: list[float | None] = []
    heard: dict[str, float | None] = {"last": 0.0, "first_after_mark": None, "mark": None}

    async with websockets.connect(f"ws://127.0.0.1:{port}") as ws:
        async def receive() -> None:
            async for message in ws:
                data = json.loads(message)
                if data.get("event") != "media":
                    continue
                payload = base64.b64decode(data["media"]["payload"])
                now = time.monotonic()
                if any(_voiced(payload[i : i + FRAME]) for i in range(0, len(payload) - FRAME + 1, FRAME)):
                    heard["last"] = now
                    if heard["mark"] is not None and heard["first_after_mark"] is None:
                        heard["first_after_mark"] = now

        start = time.monotonic()
        sent = 0

        async def send(frame: bytes) -> None:
            nonlocal sent
            await asyncio.sleep(max(0.0, start + sent * FRAME / 8000 - time.monotonic()))
            await ws.send(json.dumps({"event": "media", "streamSid": STREAM_SID,
                                      "media": {"payload": base64.b64encode(frame).decode()}}))
            sent += 1

        await ws.send(json.dumps({"event": "connected", "protocol": "Call", "version": "1.0.0"}))
        await ws.send(json.dumps({"event": "start", "streamSid": STREAM_SID, "start": {
            "streamSid": STREAM_SID, "callSid": "CAbench", "tracks": ["inbound"],
            "mediaFormat": {"encoding": "audio/x-mulaw", "sampleRate": 8000, "channels": 1}}}))
        receiver = asyncio.create_task(receive())
        for _ in range(LEAD_IN_FRAMES):
            await send(silence)
        for _turn in range(turns):
            for frame in frames:
                await send(frame)
            mark = heard["mark"] = time.monotonic()
            heard["first_after_mark"] = None
            while True:
                await send(silence)
                now, first = time.monotonic(), heard["first_after_mark"]
                if first is None and now > mark + ANSWER_WITHIN_S:
                    results.append(None)
                    break
                if first is not None and now - (heard["last"] or 0.0) > QUIET_AFTER_S:
                    results.append((first - mark) * 1000)
                    break
            heard["mark"] = None
            for _ in range(GAP_FRAMES):
                await send(silence)
        receiver.cancel()
    return results


def summary(results: list[float | None], args: argparse.Namespace) -> dict[str, Any]:
    got = sorted(r for r in results if r is not None)
    return {
        "tool": "benchmarks.pipecat_compare", "kind": "model", "profile": args.profile, "n": 1,
        "pipecat": {"stt": "OpenAISTTService (segmented)", "ttfs_p99_latency_s": args.ttfs or "default",
                    "vad_stop_secs": args.stop_secs or "default", "smart_turn": not args.no_smart_turn},
        "turns": len(results), "unanswered": len(results) - len(got),
        "p50_ms": round(statistics.median(got)) if got else None,
        "p95_ms": round(got[min(len(got) - 1, int(0.95 * len(got)))]) if got else None,
        "max_ms": round(got[-1]) if got else None,
        "turn_ms": [None if r is None else round(r) for r in results],
        "load_average": os.getloadavg(),
    }


async def main() -> None:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.pipecat_compare",
                                     description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--profile", default="cloud", help="the speech services' latency profile")
    parser.add_argument("--turns", type=int, default=TURNS)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--ttfs", type=float, help="Pipecat's STT ttfs_p99_latency, s (its default if unset)")
    parser.add_argument("--stop-secs", type=float, help="Silero's stop_secs (Pipecat's default if unset)")
    parser.add_argument("--no-smart-turn", action="store_true", help="end turns on VAD silence only")
    parser.add_argument("--pipecat-python", default="/tmp/pcvenv/bin/python", help="a python with pipecat-ai")
    parser.add_argument("--report", type=Path, help="write the summary here as JSON")
    parser.add_argument("--bot-log", type=Path, help="Pipecat's own log (default: discarded)")
    parser.add_argument("--serve", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--bot", nargs=2, metavar=("BASE_URL", "PORT"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.serve:
        await serve(args.profile, args.seed)
        return
    if args.bot:
        await run_bot(int(args.bot[1]), args.bot[0], args)
        return
    env = {**os.environ, "PYTHONPATH": str(Path(__file__).resolve().parents[1])}
    services = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "benchmarks.pipecat_compare", "--serve", "--profile", args.profile,
        "--seed", str(args.seed), stdout=asyncio.subprocess.PIPE, env=env)
    assert services.stdout is not None
    base_url = (await services.stdout.readline()).decode().strip()
    port = free_port()
    bot_args = [*sys.argv[1:], "--bot", base_url, str(port)]
    log = args.bot_log.open("w") if args.bot_log else None
    bot = await asyncio.create_subprocess_exec(args.pipecat_python, "-m", "benchmarks.pipecat_compare", *bot_args,
                                               stdout=log or asyncio.subprocess.DEVNULL, stderr=log or
                                               asyncio.subprocess.DEVNULL, env=env)
    try:
        deadline = time.monotonic() + BOT_START_S
        while True:
            try:
                socket.create_connection(("127.0.0.1", port), timeout=0.2).close()
                break
            except OSError:
                if time.monotonic() > deadline or bot.returncode is not None:
                    raise SystemExit(f"pipecat_compare: the Pipecat bot did not listen on port {port}") from None
                await asyncio.sleep(0.1)
        results = await caller(port, await caller_clip(QUESTION), args.turns)
    finally:
        for proc in (bot, services):
            if proc.returncode is None:
                proc.terminate()
                await proc.wait()
        if log:
            log.close()
    report = summary(results, args)
    text = json.dumps(report, ensure_ascii=False, indent=2)
    if args.report:
        args.report.write_text(text + "\n")
    print(text)


if __name__ == "__main__":
    asyncio.run(main())
