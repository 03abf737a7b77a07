"""Pluggable dialogue policies, found by name.

A policy is a folder `<name>/` whose `__init__.py` exposes `POLICY`, an object following
`ai_operator.dialogue.PolicyDefinition`. The shipped ones live here; `POLICY_PATH` adds folders that hold more
(each becomes `policies.<name>`), so a new policy is a new folder, never an edit of the daemon.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, cast

if TYPE_CHECKING:
    from ai_operator.dialogue import PolicyDefinition

_NAME_RE = re.compile(r"^[a-z][a-z0-9_]*$")


class PolicyNotFound(LookupError):
    """No policy package of that name (or it does not expose `POLICY`)."""


def use_policy_path(policy_path: str, base_dir: Path | None = None) -> list[Path]:
    """Add the ':'-separated folders of `policy_path` (relative: to `base_dir`) to where policies are looked
    for. Idempotent; returns the folders added."""
    added: list[Path] = []
    for part in (p.strip() for p in policy_path.split(":")):
        if not part:
            continue
        folder = Path(part)
        if not folder.is_absolute() and base_dir is not None:
            folder = base_dir / folder
        text = str(folder.resolve())
        if text not in __path__:
            __path__.append(text)
            available_policies.cache_clear()
            added.append(Path(text))
    return added


@cache
def available_policies() -> list[str]:
    """Names of the policy packages found (shipped and on POLICY_PATH)."""
    return sorted(m.name for m in pkgutil.iter_modules(__path__) if m.ispkg and _NAME_RE.match(m.name))


def policy_exists(name: str) -> bool:
    return bool(_NAME_RE.match(name or "")) and name in available_policies()


@cache
def load_policy(name: str) -> PolicyDefinition:
    """The `POLICY` object of the policy folder `name`; raises `PolicyNotFound` with the reason."""
    if not policy_exists(name):
        raise PolicyNotFound(f"no policy named {name!r} (available: {', '.join(available_policies()) or 'none'})")
    module = importlib.import_module(f"policies.{name}")
    policy = getattr(module, "POLICY", None)
    if policy is None:
        raise PolicyNotFound(f"policies/{name}/ does not expose POLICY")
    return cast("PolicyDefinition", policy)
