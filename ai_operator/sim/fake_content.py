"""What the local OpenAI-compatible test server answers with (pure helpers, plus one espeak-ng run for speech).

Chat completions in the real response format, deterministic hashed bag-of-words embeddings (similar texts get
similar vectors, so knowledge-base tests are meaningful), and 24 kHz speech audio for a text: espeak-ng in the
voice the text's script suggests (Devanagari -> hi, Kazakh letters -> kk, Cyrillic -> ru, else en), or a tone
when espeak-ng is missing.
"""

from __future__ import annotations

import hashlib
import json
import re
import shutil
import subprocess
import time
from typing import Any

import numpy as np

from ai_operator.sim.instant import DEFAULT_SECONDS_PER_CHAR, tone
from ai_operator.speech.resample import resample
from ai_operator.speech.wav import WavError, decode_wav

SPEECH_RATE = 24000
MIN_TONE_S = 0.2
ESPEAK_TIMEOUT_S = 20.0
WORD_RE = re.compile(r"\w+", re.UNICODE)
KAZAKH_LETTERS = set("әғқңөұүһіӘҒҚҢӨҰҮҺІ")


def guess_voice(text: str) -> str:
    """espeak-ng voice for `text` from its script."""
    if any("\u0900" <= ch <= "\u097f" for ch in text):
        return "hi"
    if any(ch in KAZAKH_LETTERS for ch in text):
        return "kk"
    if any("\u0400" <= ch <= "\u04ff" for ch in text):
        return "ru"
    return "en"


def speech_audio(text: str) -> np.ndarray:
    """24 kHz int16 speech for `text` (espeak-ng, resampled), or a tone when espeak-ng is missing or fails."""
    exe = shutil.which("espeak-ng")
    if exe is not None and text.strip():
        try:
            out = subprocess.run(
                [exe, "-v", guess_voice(text), "-b", "1", "--stdout", "--stdin"],
                input=text.encode("utf-8"),
                capture_output=True,
                timeout=ESPEAK_TIMEOUT_S,
                check=False,
            )
            if out.returncode == 0:
                pcm, rate = decode_wav(out.stdout)
                if pcm.size:
                    return resample(pcm, rate, SPEECH_RATE)
        except (OSError, subprocess.SubprocessError, WavError):
            pass
    return tone(max(MIN_TONE_S, len(text) * DEFAULT_SECONDS_PER_CHAR), SPEECH_RATE)


def embedding(text: str, dim: int) -> list[float]:
    """Unit vector of signed hashed word counts; texts sharing words point the same way."""
    vec = np.zeros(dim, dtype=np.float64)
    for word in WORD_RE.findall(text.lower()):
        h = hashlib.sha256(word.encode("utf-8")).digest()
        vec[int.from_bytes(h[:4], "little") % dim] += 1.0 if h[4] & 1 else -1.0
    norm = float(np.linalg.norm(vec))
    if norm == 0.0:
        seed = int.from_bytes(hashlib.sha256(text.encode("utf-8")).digest()[:8], "little")
        vec = np.random.default_rng(seed).standard_normal(dim)
        norm = float(np.linalg.norm(vec))
    return (vec / norm).tolist()


def count_tokens(text: str) -> int:
    return max(1, len(WORD_RE.findall(text)))


def chat_response(body: dict[str, Any], item: dict[str, Any], seq: int) -> dict[str, Any]:
    """A chat.completion object for one scripted item `{"content": ...}` or `{"tool_calls": [...]}`."""
    message: dict[str, Any] = {"role": "assistant", "content": item.get("content"), "refusal": None}
    finish = "stop"
    calls = item.get("tool_calls") or []
    if calls:
        message["tool_calls"] = [
            {
                "id": call.get("id") or f"call_{seq}_{i}",
                "type": "function",
                "function": {
                    "name": call["name"],
                    "arguments": call["arguments"]
                    if isinstance(call.get("arguments"), str)
                    else json.dumps(call.get("arguments", {}), ensure_ascii=False),
                },
            }
            for i, call in enumerate(calls)
        ]
        finish = "tool_calls"
    prompt = sum(count_tokens(str(m.get("content") or "")) for m in body.get("messages", []))
    completion = count_tokens(str(item.get("content") or "")) + 5 * len(calls)
    return {
        "id": f"chatcmpl-fake{seq:06d}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": body.get("model", "unknown"),
        "system_fingerprint": "fp_fake",
        "choices": [{"index": 0, "message": message, "finish_reason": finish, "logprobs": None}],
        "usage": {
            "prompt_tokens": prompt,
            "completion_tokens": completion,
            "total_tokens": prompt + completion,
        },
    }


def error_body(message: str, etype: str, code: str | None = None) -> dict[str, Any]:
    """OpenAI's error envelope."""
    return {"error": {"message": message, "type": etype, "param": None, "code": code}}
