"""Typed ARI models (Channel, Bridge, CallerID, DialplanCEP) and the field-checking parser they share. Pure.

Each model declares its JSON fields once in `FIELDS` (name, kind, required), mirroring the Swagger models of
Asterisk 22 (channels.json, bridges.json); `parse_fields` checks presence and types against that table, so a
test can compare the table with the official spec.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any, ClassVar

from ai_operator.ari.errors import ModelError

ARI_DATE_FORMAT = "%Y-%m-%dT%H:%M:%S.%f%z"  # Asterisk: 2026-11-30T05:16:54.123+0000


@dataclass(frozen=True)
class FieldSpec:
    """One JSON property: `kind` is a Swagger type (string, int, long, boolean, Date, object, List[string])
    or a model name (Channel, Bridge, CallerID, DialplanCEP)."""

    name: str
    kind: str
    required: bool = True


def parse_ari_date(value: str) -> datetime:
    """Parse an Asterisk timestamp (`2026-11-30T05:16:54.123+0000`); ValueError when it is not one."""
    return datetime.strptime(value, ARI_DATE_FORMAT)


def format_ari_date(when: datetime) -> str:
    """Format an aware datetime the way Asterisk does (milliseconds, numeric offset)."""
    return when.strftime("%Y-%m-%dT%H:%M:%S.") + f"{when.microsecond // 1000:03d}" + when.strftime("%z")


def _check(model: str, path: str, kind: str, value: Any) -> Any:
    if kind == "string":
        if not isinstance(value, str):
            raise ModelError(model, path, f"expected string, got {type(value).__name__}")
        return value
    if kind in ("int", "long"):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ModelError(model, path, f"expected {kind}, got {type(value).__name__}")
        return value
    if kind == "boolean":
        if not isinstance(value, bool):
            raise ModelError(model, path, f"expected boolean, got {type(value).__name__}")
        return value
    if kind == "Date":
        if not isinstance(value, str):
            raise ModelError(model, path, f"expected date string, got {type(value).__name__}")
        try:
            parse_ari_date(value)
        except ValueError:
            raise ModelError(model, path, f"not an ARI date: {value!r}") from None
        return value
    if kind == "object":
        if not isinstance(value, dict):
            raise ModelError(model, path, f"expected object, got {type(value).__name__}")
        return dict(value)
    if kind.startswith("List[") and kind.endswith("]"):
        if not isinstance(value, list):
            raise ModelError(model, path, f"expected list, got {type(value).__name__}")
        inner = kind[5:-1]
        return [_check(model, f"{path}[{i}]", inner, v) for i, v in enumerate(value)]
    cls = MODELS.get(kind)
    if cls is None:  # pragma: no cover - a programming error in a FIELDS table
        raise ModelError(model, path, f"unknown kind {kind}")
    if not isinstance(value, dict):
        raise ModelError(model, path, f"expected {kind} object, got {type(value).__name__}")
    return cls.from_json(value, model=model, prefix=f"{path}.")


def parse_fields(model: str, data: Any, fields: tuple[FieldSpec, ...], prefix: str = "") -> dict[str, Any]:
    """Check `data` against `fields`; return {name: value} (None for absent optional fields).

    Raises `ModelError(model, dotted_field, reason)` on a missing required field or a wrong type.
    """
    if not isinstance(data, dict):
        raise ModelError(model, prefix.rstrip(".") or "<root>", f"expected object, got {type(data).__name__}")
    out: dict[str, Any] = {}
    for spec in fields:
        path = prefix + spec.name
        if spec.name not in data or data[spec.name] is None:
            if spec.required:
                raise ModelError(model, path, "missing required field")
            out[spec.name] = None
            continue
        out[spec.name] = _check(model, path, spec.kind, data[spec.name])
    return out


class _Model:
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = ()
    MODEL: ClassVar[str] = ""

    @classmethod
    def from_json(cls, data: Any, *, model: str | None = None, prefix: str = "") -> Any:
        """Parse a JSON object; errors are reported against `model` (the enclosing event or response)."""
        return cls(**parse_fields(model or cls.MODEL, data, cls.FIELDS, prefix))


@dataclass(frozen=True)
class CallerID(_Model):
    MODEL: ClassVar[str] = "CallerID"
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (FieldSpec("name", "string"), FieldSpec("number", "string"))
    name: str
    number: str


@dataclass(frozen=True)
class DialplanCEP(_Model):
    MODEL: ClassVar[str] = "DialplanCEP"
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("context", "string"),
        FieldSpec("exten", "string"),
        FieldSpec("priority", "long"),
        FieldSpec("app_name", "string"),
        FieldSpec("app_data", "string"),
    )
    context: str
    exten: str
    priority: int
    app_name: str
    app_data: str


@dataclass(frozen=True)
class Channel(_Model):
    MODEL: ClassVar[str] = "Channel"
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("id", "string"),
        FieldSpec("protocol_id", "string"),
        FieldSpec("name", "string"),
        FieldSpec("state", "string"),
        FieldSpec("caller", "CallerID"),
        FieldSpec("connected", "CallerID"),
        FieldSpec("accountcode", "string"),
        FieldSpec("dialplan", "DialplanCEP"),
        FieldSpec("creationtime", "Date"),
        FieldSpec("language", "string"),
        FieldSpec("channelvars", "object", required=False),
        FieldSpec("caller_rdnis", "string", required=False),
        FieldSpec("tenantid", "string", required=False),
    )
    id: str
    protocol_id: str
    name: str
    state: str
    caller: CallerID
    connected: CallerID
    accountcode: str
    dialplan: DialplanCEP
    creationtime: str
    language: str
    channelvars: dict[str, Any] | None = None
    caller_rdnis: str | None = None
    tenantid: str | None = None

    def var(self, name: str) -> str | None:
        """A channel variable from `channelvars`, or None when not present."""
        if not self.channelvars:
            return None
        value = self.channelvars.get(name)
        return None if value is None else str(value)


@dataclass(frozen=True)
class Bridge(_Model):
    MODEL: ClassVar[str] = "Bridge"
    FIELDS: ClassVar[tuple[FieldSpec, ...]] = (
        FieldSpec("id", "string"),
        FieldSpec("technology", "string"),
        FieldSpec("bridge_type", "string"),
        FieldSpec("bridge_class", "string"),
        FieldSpec("creator", "string"),
        FieldSpec("name", "string"),
        FieldSpec("channels", "List[string]"),
        FieldSpec("video_mode", "string", required=False),
        FieldSpec("video_source_id", "string", required=False),
        FieldSpec("creationtime", "Date"),
        FieldSpec("bridgevars", "object", required=False),
    )
    id: str
    technology: str
    bridge_type: str
    bridge_class: str
    creator: str
    name: str
    channels: list[str]
    creationtime: str
    video_mode: str | None = None
    video_source_id: str | None = None
    bridgevars: dict[str, Any] | None = None


MODELS: dict[str, type[_Model]] = {
    "CallerID": CallerID,
    "DialplanCEP": DialplanCEP,
    "Channel": Channel,
    "Bridge": Bridge,
}

__all__ = [
    "ARI_DATE_FORMAT",
    "MODELS",
    "Bridge",
    "CallerID",
    "Channel",
    "DialplanCEP",
    "FieldSpec",
    "format_ari_date",
    "parse_ari_date",
    "parse_fields",
]
