"""The ARI contract: load Asterisk's Swagger 1.x description and check requests and JSON objects against it.

Used by the contract tests (and usable by `doctor`): `AriSpec.load()` reads resources.json plus api-docs/*.json
from `AI_OPERATOR_ARI_SPEC` or `tests/data/asterisk-ari` (a copy kept in the repository); `check_request` and `check_model` return a list
of human-readable problems (empty = conforms). Checking is pure; only `load` touches files.
"""

from __future__ import annotations

import json
import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ai_operator.ari.models import parse_ari_date

SPEC_ENV = "AI_OPERATOR_ARI_SPEC"
_PRIMITIVES = {"string", "int", "long", "boolean", "double", "Date", "object", "void", "containers", "binary"}


def default_spec_dir() -> Path:
    """`$AI_OPERATOR_ARI_SPEC`, else the copy in `tests/data/asterisk-ari`."""
    env = os.environ.get(SPEC_ENV)
    if env:
        return Path(env)
    return Path(__file__).resolve().parents[1] / "data" / "asterisk-ari"


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # e.g. /channels/{channelId}/answer
    nickname: str
    params: dict[str, dict[str, Any]]
    errors: dict[int, str]


@dataclass
class AriSpec:
    operations: list[Operation] = field(default_factory=list)
    models: dict[str, dict[str, Any]] = field(default_factory=dict)
    api_version: str = ""

    @classmethod
    def load(cls, spec_dir: str | Path | None = None) -> AriSpec:
        root = Path(spec_dir) if spec_dir else default_spec_dir()
        resources_path = root / "resources.json"
        if not resources_path.is_file():
            raise FileNotFoundError(f"ARI spec not found: {resources_path} (set {SPEC_ENV} to its directory)")
        resources = _read_json(resources_path)
        spec = cls(api_version=resources.get("apiVersion", ""))
        for api in resources["apis"]:
            name = api["path"].rsplit("/", 1)[-1].replace(".{format}", ".json")
            doc = _read_json(root / "api-docs" / name)
            spec.models.update(doc.get("models", {}))
            for entry in doc["apis"]:
                for op in entry["operations"]:
                    params = {p["name"]: p for p in op.get("parameters", [])}
                    errors = {e["code"]: e["reason"] for e in op.get("errorResponses", [])}
                    spec.operations.append(
                        Operation(op["httpMethod"], entry["path"], op["nickname"], params, errors)
                    )
        return spec

    def find_operation(self, method: str, path: str) -> Operation | None:
        """The operation for a concrete path (`/channels/123/answer`); literal segments beat `{templates}`."""
        segments = path.strip("/").split("/")
        best: tuple[int, Operation] | None = None
        for op in self.operations:
            if op.method != method:
                continue
            tmpl = op.path.strip("/").split("/")
            if len(tmpl) != len(segments):
                continue
            score = 0
            for t, s in zip(tmpl, segments, strict=True):
                if t.startswith("{") and t.endswith("}"):
                    continue
                if t != s:
                    break
                score += 1
            else:
                if best is None or score > best[0]:
                    best = (score, op)
        return best[1] if best else None

    def check_request(self, method: str, path: str, query: dict[str, str], body: Any = None) -> list[str]:
        """Problems with one request (`path` relative to /ari); [] when it matches the spec exactly."""
        op = self.find_operation(method, path)
        if op is None:
            return [f"{method} {path}: no such operation in the ARI spec"]
        problems: list[str] = []
        where = f"{method} {op.path} ({op.nickname})"
        for name, value in query.items():
            p = op.params.get(name)
            if p is None:
                problems.append(f"{where}: query parameter {name!r} is not declared")
                continue
            if p["paramType"] != "query":
                problems.append(f"{where}: {name!r} sent in the query but declared as {p['paramType']}")
                continue
            values = value.split(",") if p.get("allowMultiple") else [value]
            for v in values:
                problems.extend(f"{where}: {name}: {msg}" for msg in _check_scalar(p, v))
        body_params = [p for p in op.params.values() if p["paramType"] == "body"]
        if body is not None:
            if not isinstance(body, dict):
                problems.append(f"{where}: body must be a JSON object")
            else:
                declared = {p["name"] for p in body_params}
                for key in body:
                    if key not in declared:
                        problems.append(f"{where}: body key {key!r} is not a declared body parameter")
        for p in op.params.values():
            if not p.get("required"):
                continue
            if p["paramType"] == "query" and p["name"] not in query:
                problems.append(f"{where}: required query parameter {p['name']!r} missing")
            if p["paramType"] == "body" and not (isinstance(body, dict) and p["name"] in body):
                problems.append(f"{where}: required body parameter {p['name']!r} missing")
        return problems

    def check_model(self, model: str, data: Any, path: str = "") -> list[str]:
        """Problems with a JSON object claimed to be `model` (events: model = the event type).

        Inherited properties (Message -> Event -> the event) are included; undeclared keys are reported.
        """
        where = path or model
        if model not in self.models:
            return [f"{where}: unknown model {model}"]
        if not isinstance(data, dict):
            return [f"{where}: expected object for {model}"]
        props = self.properties(model)
        problems: list[str] = []
        for name, prop in props.items():
            if name not in data:
                if prop.get("required"):
                    problems.append(f"{where}.{name}: required property missing")
                continue
            problems.extend(self._check_type(prop["type"], data[name], f"{where}.{name}"))
        for name in data:
            if name not in props:
                problems.append(f"{where}.{name}: property not declared in model {model}")
        return problems

    def properties(self, model: str) -> dict[str, dict[str, Any]]:
        """All properties of `model`, including those of the models it extends (via subTypes)."""
        props: dict[str, dict[str, Any]] = {}
        for parent, m in self.models.items():
            if model in m.get("subTypes", []):
                props.update(self.properties(parent))
        props.update(self.models[model].get("properties", {}))
        return props

    def required(self, model: str) -> set[str]:
        return {n for n, p in self.properties(model).items() if p.get("required")}

    def _check_type(self, kind: str, value: Any, where: str) -> list[str]:
        m = re.fullmatch(r"List\[(.+)\]", kind)
        if m:
            if not isinstance(value, list):
                return [f"{where}: expected {kind}"]
            out: list[str] = []
            for i, v in enumerate(value):
                out.extend(self._check_type(m.group(1), v, f"{where}[{i}]"))
            return out
        if kind in _PRIMITIVES:
            ok = {
                "string": isinstance(value, str),
                "int": isinstance(value, int) and not isinstance(value, bool),
                "long": isinstance(value, int) and not isinstance(value, bool),
                "double": isinstance(value, int | float) and not isinstance(value, bool),
                "boolean": isinstance(value, bool),
                "object": isinstance(value, dict),
                "Date": isinstance(value, str) and _is_date(value),
            }.get(kind, True)
            return [] if ok else [f"{where}: expected {kind}, got {value!r}"]
        return self.check_model(kind, value, where)


def _read_json(path: Path) -> Any:
    """One spec file; a file that is not JSON raises ValueError naming it, the line and the reason."""
    try:
        return json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise ValueError(f"ARI spec {path}: line {exc.lineno}: invalid JSON: {exc.msg}") from None


def _is_date(value: str) -> bool:
    try:
        parse_ari_date(value)
    except ValueError:
        return False
    return True


def _check_scalar(param: dict[str, Any], value: str) -> list[str]:
    problems = []
    kind = param.get("dataType")
    if kind in ("int", "long") and not re.fullmatch(r"-?\d+", value):
        problems.append(f"{value!r} is not an integer")
    if kind == "boolean" and value not in ("true", "false"):
        problems.append(f"{value!r} is not true/false")
    allowed = (param.get("allowableValues") or {}).get("values")
    if allowed and value not in allowed:
        problems.append(f"{value!r} not in allowableValues {allowed}")
    return problems


__all__ = ["SPEC_ENV", "AriSpec", "Operation", "default_spec_dir"]
