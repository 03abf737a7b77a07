"""Doctor checks for speech: espeak-ng voices for the enabled routes' languages; STT/TTS/model endpoints."""

from __future__ import annotations

from ai_operator.config import Settings
from ai_operator.dialogue import CheckResult
from policies import PolicyNotFound, load_policy

ENDPOINT_TIMEOUT_S = 5.0


async def _endpoint_check(settings: Settings) -> CheckResult:
    import openai

    client = openai.AsyncOpenAI(
        api_key=settings.speech.openai_api_key, base_url=settings.speech.openai_base_url or None, timeout=ENDPOINT_TIMEOUT_S, max_retries=0
    )
    where = settings.speech.openai_base_url or "api.openai.com"
    try:
        await client.models.list()
    except openai.AuthenticationError:
        return CheckResult("OpenAI endpoint", "FAIL", f"{where} rejected OPENAI_API_KEY: check the key")
    except openai.APIError as exc:
        return CheckResult("OpenAI endpoint", "FAIL", f"{where} not reachable: {type(exc).__name__}")
    finally:
        await client.close()
    return CheckResult("OpenAI endpoint", "OK", f"{where} reachable with the configured key")


async def speech_checks(settings: Settings) -> list[CheckResult]:
    from ai_operator.doctor.system_checks import espeak_voices
    from ai_operator.providers import llm_provider, stt_provider, tts_provider

    out: list[CheckResult] = []
    languages: set[str] = set()
    needs_openai = False
    for route in settings.routes.values():
        if not route.enabled:
            continue
        try:
            policy = load_policy(route.policy)
        except PolicyNotFound:
            continue  # reported by the dialogue checks
        stt, tts, llm = stt_provider(settings, route), tts_provider(settings, route), llm_provider(settings, route)
        if tts == "espeak":
            languages.update(policy.languages)
        needs_openai |= "openai" in (stt, tts, llm)
        if stt == "none":
            out.append(CheckResult(f"route {route.name} speech recognition", "WARN",
                                   "no STT configured (OPENAI_API_KEY empty): callers can only use DTMF"))
    if languages:
        out.append(espeak_voices(languages))
    if needs_openai:
        out.append(await _endpoint_check(settings))
    return out
