"""ARI error types: what the REST client, the event stream and the event parser raise.

No message ever carries the ARI password: errors name the method, path and server message only.
"""

from __future__ import annotations


class AriError(Exception):
    """Base of every ARI failure."""


class AriHttpError(AriError):
    """Asterisk answered a REST request with an HTTP error; `message` is the server's own message."""

    def __init__(self, status: int, method: str, path: str, message: str) -> None:
        self.status = status
        self.method = method
        self.path = path
        self.message = message
        super().__init__(f"ARI {method} {path} failed: HTTP {status}: {message}")


class AriAuthError(AriHttpError):
    """HTTP 401: the ARI user or password is wrong."""

    def __init__(self, method: str, path: str, message: str = "Authentication required") -> None:
        super().__init__(401, method, path, message)
        self.args = (
            f"ARI {method} {path}: HTTP 401 {message} - the ARI credentials were refused; "
            "check ARI_USER/ARI_PASSWORD and the matching user in Asterisk's ari.conf",
        )

    def __str__(self) -> str:
        return str(self.args[0])


class AriUnavailable(AriError):
    """Asterisk could not be reached (connection refused, reset or timed out)."""

    def __init__(self, url: str, reason: str) -> None:
        self.url = url
        self.reason = reason
        super().__init__(
            f"ARI unreachable at {url}: {reason} - check ARI_URL, that Asterisk is running, that http.conf "
            "enables the HTTP server on that address/port, and that res_ari is loaded"
        )


class ModelError(AriError):
    """A JSON object does not match an ARI model: `field` is the dotted path, `reason` what is wrong."""

    def __init__(self, model: str, field: str, reason: str) -> None:
        self.model = model
        self.field = field
        self.reason = reason
        super().__init__(f"ARI {model}: field {field!r}: {reason}")


class EventError(ModelError):
    """A malformed event: names the event type, the field and the reason."""

    def __init__(self, event_type: str, field: str, reason: str) -> None:
        super().__init__(event_type, field, reason)
        self.event_type = event_type
        self.args = (f"malformed ARI event {event_type}: field {field!r}: {reason}",)

    def __str__(self) -> str:
        return str(self.args[0])
