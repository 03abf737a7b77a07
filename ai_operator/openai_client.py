"""The OpenAI client plumbing shared by STT, TTS, the chat model and embeddings: client construction, error
wording, the retry test.

An error message names the provider and what failed (timeout, HTTP status, connection, bad response) and never
carries an API key: the key and anything shaped like one are scrubbed from upstream text.
"""

from __future__ import annotations

import re

import openai

from ai_operator.logs import redact, register_secret

KEY_SHAPE_RE = re.compile(r"\b(sk|rk|pk)-[A-Za-z0-9_\-*]{6,}")
MAX_UPSTREAM_MESSAGE = 200
RETRYABLE_STATUS = frozenset({408, 409, 429, 500, 502, 503, 504})


def scrub(text: str, api_key: str | None = None) -> str:
    """Remove the API key (and anything key-shaped) from `text`."""
    if api_key:
        text = text.replace(api_key, "***")
    text = KEY_SHAPE_RE.sub("***", text)
    return redact(text)


def make_client(*, api_key: str, base_url: str | None, timeout_s: float) -> openai.AsyncOpenAI:
    """An AsyncOpenAI client with the SDK's own retries off (callers bound retries and total time themselves)."""
    register_secret(api_key)
    kwargs: dict[str, object] = {"api_key": api_key or "unset", "timeout": timeout_s, "max_retries": 0}
    if base_url:
        kwargs["base_url"] = base_url
    return openai.AsyncOpenAI(**kwargs)  # type: ignore[arg-type]


def describe_failure(exc: BaseException, api_key: str | None = None) -> str:
    """A short, key-free description of what went wrong with an OpenAI call."""
    if isinstance(exc, TimeoutError | openai.APITimeoutError):
        return "timeout"
    if isinstance(exc, openai.APIStatusError):
        detail = ""
        body = exc.body
        if isinstance(body, dict):
            err = body.get("error", body)
            if isinstance(err, dict) and err.get("message"):
                detail = str(err["message"])[:MAX_UPSTREAM_MESSAGE]
        text = f"HTTP {exc.status_code}" + (f": {detail}" if detail else "")
        return scrub(text, api_key)
    if isinstance(exc, openai.APIConnectionError):
        return "connection failed"
    if isinstance(
        exc, openai.APIResponseValidationError | ValueError | KeyError | TypeError | AttributeError
    ):
        return scrub(f"bad response ({type(exc).__name__}: {str(exc)[:MAX_UPSTREAM_MESSAGE]})", api_key)
    return scrub(f"{type(exc).__name__}: {str(exc)[:MAX_UPSTREAM_MESSAGE]}", api_key)


def is_retryable(exc: BaseException) -> bool:
    """Timeouts, connection failures and 408/409/429/5xx are worth another attempt; other 4xx are not."""
    if isinstance(exc, TimeoutError | openai.APITimeoutError | openai.APIConnectionError):
        return True
    if isinstance(exc, openai.APIStatusError):
        return exc.status_code in RETRYABLE_STATUS
    return False
