"""`route_of(settings, name)`: the route a test's settings must hold, typed (`Settings.route` may say None);
`options_of`: its options, parsed."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ai_operator.config import Route, Settings


def route_of(settings: Settings, name: str) -> Route:
    found = settings.route(name)
    assert found is not None, f"no route {name} in {settings.source}"
    return found


def options_of(settings: Settings, name: str) -> Mapping[str, Any]:
    """The route's own options, parsed (the settings' routes are bound)."""
    options = route_of(settings, name).options
    assert options is not None, f"route {name} is not bound"
    return options
