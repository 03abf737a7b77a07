"""Doctor checks for Asterisk ARI: reachable, credentials, version, externalMedia, the Stasis app and who is
subscribed to it (this STATE_DIR's daemon, or another client whose calls a daemon started now would take)."""

from __future__ import annotations

from typing import Any

from ai_operator.config import Settings
from ai_operator.dialogue import CheckResult
from ai_operator.storage.state_lock import holder_of

MIN_ARI_MAJOR_FOR_EXTERNAL_MEDIA = 5  # externalMedia arrived with Asterisk 16.6 (ARI 5.x)


async def ari_checks(settings: Settings) -> list[CheckResult]:
    from ai_operator.ari.errors import AriAuthError, AriError, AriHttpError, AriUnavailable
    from ai_operator.ari.rest import AriRestClient

    url, app = settings.ari.url, settings.ari.app
    if not settings.ari.user or not settings.ari.password:
        return [CheckResult("ARI credentials", "FAIL", "ARI_USER/ARI_PASSWORD not set: copy them from ari.conf")]
    out: list[CheckResult] = []
    async with AriRestClient(url, settings.ari.user, settings.ari.password, timeout_s=3.0) as ari:
        try:
            info = await ari.asterisk_info()
        except AriAuthError:
            return [CheckResult("ARI credentials", "FAIL", f"{url} refused ARI_USER={settings.ari.user}: check ari.conf")]
        except AriUnavailable as exc:
            return [CheckResult("ARI reachable", "FAIL", f"{exc}")]
        except AriHttpError as exc:  # Asterisk's HTTP server answers, with an HTML page: not an ARI address
            hint = (" - check that ARI_URL ends in /ari and that res_ari is loaded "
                    "(asterisk -rx 'module show like res_ari')") if exc.status == 404 else ""
            return [CheckResult("ARI reachable", "FAIL",
                                f"{url} answered HTTP {exc.status} to GET /asterisk/info: not ARI{hint}")]
        except AriError as exc:
            return [CheckResult("ARI reachable", "FAIL", f"{url}: {exc}")]
        version = (info.get("system") or {}).get("version", "?")
        out.append(CheckResult("ARI reachable", "OK", f"{url}, Asterisk {version}"))
        out.append(CheckResult("ARI credentials", "OK", f"user {settings.ari.user} accepted"))
        try:
            resources = await ari.api_docs_resources()
            api_version = str(resources.get("apiVersion", "0"))
            major = int(api_version.split(".")[0] or 0)
            if major >= MIN_ARI_MAJOR_FOR_EXTERNAL_MEDIA:
                out.append(CheckResult("ARI externalMedia", "OK", f"ARI {api_version} supports POST /channels/externalMedia"))
            else:
                out.append(CheckResult("ARI externalMedia", "FAIL",
                                       f"ARI {api_version} predates externalMedia: Asterisk 16.6+ needed (22 LTS targeted)"))
        except AriError as exc:
            out.append(CheckResult("ARI externalMedia", "WARN", f"could not read /api-docs/resources.json: {exc}"))
        try:
            out.append(subscriber_check(settings, await ari.get_application(app)))
        except AriHttpError as exc:
            if exc.status == 404:
                out.append(CheckResult("ARI application", "WARN",
                                       f"Stasis app {app!r} not registered: the daemon is not connected (start `ai-operator run`)"))
            else:
                out.append(CheckResult("ARI application", "FAIL", str(exc)))
    return out


def subscriber_check(settings: Settings, application: dict[str, Any]) -> CheckResult:
    """The app is registered: by the daemon holding this STATE_DIR (fine), or by another client (a daemon
    started with these settings would replace it and take over the calls in it)."""
    app, state_dir = settings.ari.app, settings.storage.state_dir
    channels = len(application.get("channel_ids") or [])
    holder = holder_of(state_dir)
    if holder is not None:
        return CheckResult("ARI application", "OK",
                           f"Stasis app {app!r} subscribed; the daemon of {state_dir} runs (PID {holder}); {channels} channels")
    return CheckResult("ARI application", "WARN",
                       f"another client is subscribed to Stasis app {app!r} ({channels} channels in it) while no daemon "
                       f"holds {state_dir}: a daemon started now would take over its calls (ApplicationReplaced) - "
                       "stop the other client or give this daemon its own ARI_APP")
