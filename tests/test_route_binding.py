"""A route meets its policy where the runtime is assembled, not in the settings loader: configuration keeps a
policy's options as text and knows no policy; binding finds the policy and has it parse them, with one line
naming the file, line, key, value and what is allowed; the policy is shown its own view of the route; the
route's HOLD_S is the runtime's and applies to whatever policy the route runs."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_operator.config import ConfigError, load_settings
from ai_operator.dialogue import RouteView
from ai_operator.route_binding import bind_routes, route_view
from ai_operator.wiring import new_session
from policies.freight import DEFAULT_HOLD_S
from tests.support.envfiles import example_text
from tests.support.routes import route_of


def env_file(tmp_path: Path, **values: str) -> Path:
    env = tmp_path / "ai-operator.env"
    env.write_text(example_text(**values), encoding="utf-8")
    return env


def line_of(env: Path, key: str) -> int:
    return next(n for n, text in enumerate(env.read_text().splitlines(), 1) if text.startswith(f"{key}="))


def test_the_settings_loader_keeps_a_policys_options_as_text_and_binding_parses_them(tmp_path: Path) -> None:
    env = env_file(tmp_path, ROUTE_FREIGHT_LOAD="missing.json")
    loaded = load_settings(env, environ={})  # no policy looked up, no load file read
    freight = route_of(loaded, "freight")
    assert freight is not None and freight.option_text["LOAD"] == "missing.json" and freight.options is None
    with pytest.raises(ConfigError) as err:
        bind_routes(loaded)
    line = line_of(env, "ROUTE_FREIGHT_LOAD")
    assert str(err.value).startswith(f"{env}:{line}: ROUTE_FREIGHT_LOAD='missing.json': ")
    assert "not found" in str(err.value) and "\n" not in str(err.value)


def test_a_missing_policy_is_refused_when_bound_naming_the_line_and_the_policies_there_are(tmp_path: Path) -> None:
    env = env_file(tmp_path, ROUTE_TEST_POLICY="nosuch")
    loaded = load_settings(env, environ={})
    assert route_of(loaded, "test").policy == "nosuch"
    with pytest.raises(ConfigError, match=rf"^{env}:{line_of(env, 'ROUTE_TEST_POLICY')}: ROUTE_TEST_POLICY: route "
                                          r"test is enabled with policy 'nosuch', which does not exist$"):
        bind_routes(loaded)


def test_a_disabled_routes_bad_or_unknown_option_is_a_warning_naming_it(tmp_path: Path) -> None:
    env = env_file(tmp_path, ROUTE_FREIGHT_ENABLED="false", ROUTE_FREIGHT_LOAD="missing.json", ROUTE_TEST_COLOUR="red")
    bound = bind_routes(load_settings(env, environ={}))
    assert any(w.startswith(f"{env}:{line_of(env, 'ROUTE_FREIGHT_LOAD')}: ROUTE_FREIGHT_LOAD='missing.json'")
               and w.endswith("(route freight is disabled)") for w in bound.warnings)
    assert any("unknown route option ROUTE_TEST_COLOUR (known: ENABLED, POLICY, HANDOFF" in w for w in bound.warnings)


def test_binding_twice_keeps_the_bound_routes_and_adds_no_warning(tmp_path: Path) -> None:
    bound = bind_routes(load_settings(env_file(tmp_path, ROUTE_TEST_COLOUR="red"), environ={}))
    again = bind_routes(bound)
    assert again.warnings == bound.warnings
    assert all(again.routes[name] is route for name, route in bound.routes.items())


def test_the_policy_is_shown_its_route_name_and_its_own_options_only(tmp_path: Path) -> None:
    bound = bind_routes(load_settings(env_file(tmp_path), environ={}))
    view = route_view(bound, route_of(bound, "freight"))
    assert isinstance(view, RouteView) and view.name == "freight" and set(view.options) == {"LOAD", "LOADS_DIR"}
    assert view.option("load").vendor_name  # the load file, read and checked by the policy


@pytest.mark.parametrize(("route", "hold", "expected"), [
    ("freight", None, DEFAULT_HOLD_S),  # the policy's own
    ("freight", "0", 0.0),
    ("test", "0.7", 0.7),  # the operator never holds by itself; the route's HOLD_S still applies
])
def test_the_routes_hold_applies_over_the_policys_own(tmp_path: Path, route: str, hold: str | None,
                                                      expected: float) -> None:
    values = {f"ROUTE_{route.upper()}_HOLD_S": hold} if hold is not None else {"ROUTE_FREIGHT_HOLD_S": ""}
    settings = bind_routes(load_settings(env_file(tmp_path, **values), environ={}))
    assert new_session(settings, route_of(settings, route), "hold-1").hold_s == expected


def test_a_session_on_routes_nobody_bound_is_bound_on_the_way(tmp_path: Path) -> None:
    """Tests and benchmarks start sessions from settings they loaded themselves: the route is bound then."""
    settings = load_settings(env_file(tmp_path), environ={})
    session = new_session(settings, route_of(settings, "freight"), "unbound-1")
    assert session.spoken_language == "hi" and session.hold_s == 1.5
