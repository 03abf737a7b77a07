"""Doctor checks for speech: espeak-ng voices for the enabled routes' languages; each provider the routes use,
checked with its own check from the registry (the same authenticated request the daemon makes at start)."""

from __future__ import annotations

import asyncio

from ai_operator.config import Settings
from ai_operator.dialogue import CheckResult
from policies import PolicyNotFound, load_policy


async def _provider_check(settings: Settings, name: str, kinds: list[str]) -> CheckResult:
    import ai_operator.providers.registry as registry

    spec = registry.get(name)
    label = f"provider {name} ({', '.join(sorted(kinds))})"
    if spec.check is None:
        return CheckResult(label, "OK", "nothing to check")
    timeout_s = settings.speech.provider_check_timeout_s
    try:
        reason = await asyncio.wait_for(spec.check(settings), timeout_s)
    except TimeoutError:
        reason = f"no answer within {timeout_s:g} s (PROVIDER_CHECK_TIMEOUT_S)"
    if reason is None:
        return CheckResult(label, "OK", "reachable with the configured settings")
    return CheckResult(label, "FAIL", reason)


async def speech_checks(settings: Settings) -> list[CheckResult]:
    from ai_operator.doctor.system_checks import espeak_voices
    from ai_operator.providers import stt_provider, used_providers

    out: list[CheckResult] = []
    languages: set[str] = set()
    for route in settings.routes.values():
        if not route.enabled:
            continue
        try:
            policy = load_policy(route.policy)
        except PolicyNotFound:
            continue  # reported by the dialogue checks
        # every voice falls back to espeak-ng when its provider fails, so its voices are needed whatever TTS says
        languages.update(policy.languages)
        if stt_provider(settings, route) == "none":
            out.append(CheckResult(f"route {route.name} speech recognition", "WARN",
                                   "no STT configured (OPENAI_API_KEY empty): callers can only use DTMF"))
    if languages:
        out.append(espeak_voices(languages))
    kinds: dict[str, list[str]] = {}
    for name, kind in used_providers(settings):
        kinds.setdefault(name, []).append(kind)
    for name in sorted(kinds):
        if name != "espeak":  # its voices are checked above
            out.append(await _provider_check(settings, name, kinds[name]))
    return out
