"""Pluggable dialogue policies, found by name.

A policy is a sub-package `policies/<name>/` whose `__init__.py` exposes `POLICY`, an object following
`ai_operator.dialogue.PolicyDefinition`. Adding a third policy is a new folder, not an edit of the daemon.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import cache
from typing import Any

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


class PolicyNotFound(LookupError):
    """No policy package of that name (or it does not expose `POLICY`)."""


def available_policies() -> list[str]:
    """Names of the policy packages shipped under `policies/`."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg and _NAME_RE.match(m.name))


def policy_exists(name: str) -> bool:
    return bool(_NAME_RE.match(name or "")) and name in available_policies()


@cache
def load_policy(name: str) -> Any:
    """The `POLICY` object of `policies/<name>/`; raises `PolicyNotFound` with the reason."""
    if not policy_exists(name):
        raise PolicyNotFound(f"no policy named {name!r} (available: {', '.join(available_policies()) or 'none'})")
    module = importlib.import_module(f"policies.{name}")
    policy = getattr(module, "POLICY", None)
    if policy is None:
        raise PolicyNotFound(f"policies/{name}/ does not expose POLICY")
    return policy
