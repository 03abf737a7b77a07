"""Freight: the load file, route validation, session options and the seeded concession."""

from __future__ import annotations

import dataclasses
import json
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ai_operator.config import ConfigError, Route, build_settings, parse_env_text
from ai_operator.dialogue import OptionContext, SessionOptions
from ai_operator.route_binding import bind_routes, call_files
from policies.freight import DEFAULT_HOLD_S, POLICY, Load, LoadError, concession_for, load_from_file
from policies.freight.selftest import SAMPLE_LOAD_PATH
from tests.support.policies import freight_route, session, view

GOOD = {
    "vendor_name": "रमेश",
    "origin": "दिल्ली",
    "destination": "जयपुर",
    "vehicle": "32 फीट कंटेनर",
    "weight": 15,
    "material": "कपड़ा",
    "pickup": "कल सुबह",
    "anchor": 20000,
    "ceiling": 26000,
}


def write(tmp_path: Path, data: object, name: str = "load.json") -> Path:
    path = tmp_path / name
    path.write_text(
        json.dumps(data, ensure_ascii=False) if not isinstance(data, str) else data, encoding="utf-8"
    )
    return path


def test_sample_load_is_valid() -> None:
    load = load_from_file(SAMPLE_LOAD_PATH)
    assert load.anchor < load.ceiling
    assert POLICY.doctor_checks() and all(c.status == "OK" for c in POLICY.doctor_checks())


def test_good_load_and_default_band(tmp_path: Path) -> None:
    load = load_from_file(write(tmp_path, GOOD))
    assert (load.anchor, load.ceiling, load.concession_band) == (20000, 26000, (0.3, 0.6))
    spoken = load.spoken()
    assert spoken["weight"] == "पंद्रह टन" and spoken["vehicle"] == "बत्तीस फीट कंटेनर"
    assert not any(ch.isdigit() for v in spoken.values() for ch in v)


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        ({"anchor": None}, "anchor", "missing"),
        ({"vendor_name": None}, "vendor_name", "missing"),
        ({"ceiling": "lots"}, "ceiling", "number of rupees"),
        ({"anchor": "20k"}, "anchor", "number of rupees"),
        ({"anchor": True}, "anchor", "number of rupees"),
        ({"anchor": 20000.5}, "anchor", "whole rupees"),
        ({"anchor": -5}, "anchor", "between"),
        ({"anchor": 26000}, "anchor", "below ceiling"),
        ({"anchor": 27000}, "anchor", "below ceiling"),
        ({"concession_band": [0.7, 0.2]}, "concession_band", "0 < low <= high < 1"),
        ({"concession_band": [0.3]}, "concession_band", "two fractions"),
        ({"origin": ""}, "origin", "empty"),
        ({"orgin": "x"}, "orgin", "unknown field"),
    ],
)
def test_bad_load_names_the_field(tmp_path: Path, change: dict, field: str, reason: str) -> None:
    data = {**GOOD, **change}
    data = {k: v for k, v in data.items() if v is not None}
    path = write(tmp_path, data)
    with pytest.raises(LoadError) as err:
        load_from_file(path)
    assert err.value.field == field
    assert f"'{field}'" in str(err.value) and reason in str(err.value) and str(path) in str(err.value)


def test_numeric_string_rates_are_accepted(tmp_path: Path) -> None:
    load = load_from_file(write(tmp_path, {**GOOD, "anchor": "20,000", "ceiling": "26000"}))
    assert (load.anchor, load.ceiling) == (20000, 26000)


def test_bad_json_names_the_line(tmp_path: Path) -> None:
    path = write(tmp_path, '{\n  "anchor": 20000,\n  "ceiling": \n}')
    with pytest.raises(LoadError, match=r"load\.json:4: invalid JSON"):
        load_from_file(path)


def test_missing_file(tmp_path: Path) -> None:
    with pytest.raises(LoadError, match="not found"):
        load_from_file(tmp_path / "nope.json")


def test_the_route_load_is_read_and_checked_with_the_env_file(tmp_path: Path) -> None:
    (tmp_path / "loads").mkdir()
    write(tmp_path / "loads", GOOD, "good.json")
    write(tmp_path / "loads", {**GOOD, "ceiling": 100}, "bad.json")
    env = tmp_path / "ai.env"
    env.write_text("ROUTE_FREIGHT_ENABLED=true\nROUTE_FREIGHT_POLICY=freight\nROUTE_FREIGHT_LOAD=good.json\n")
    s = bind_routes(build_settings(parse_env_text(env.read_text(), str(env)), environ={}, source=str(env)))
    assert s.routes["freight"].options["LOAD"].vendor_name == "रमेश"
    env.write_text("ROUTE_BAD_ENABLED=true\nROUTE_BAD_POLICY=freight\nROUTE_BAD_LOAD=bad.json\n")
    with pytest.raises(ConfigError, match=r"ai.env:3: ROUTE_BAD_LOAD='bad.json': .*'anchor'"):
        bind_routes(build_settings(parse_env_text(env.read_text(), str(env)), environ={}, source=str(env)))


def test_new_session_takes_the_route_load_or_a_confined_call_argument(tmp_path: Path) -> None:
    loads = tmp_path / "loads"
    loads.mkdir()
    route_load = write(loads, GOOD, "route.json")
    write(loads, {**GOOD, "vendor_name": "सुरेश"}, "other.json")
    outside = write(tmp_path, {**GOOD, "vendor_name": "बाहर"}, "outside.json")
    ctx = OptionContext(base_dir=tmp_path, folders={"LOADS_DIR": loads})
    route = freight_route(route_load, hold_s=2.5)
    route = dataclasses.replace(route, options={**(route.options or {}), "LOADS_DIR": loads})  # as bound
    s1 = session(route, "c1", context=ctx)  # as the runtime starts it: the route's HOLD_S over the policy's own
    assert s1.load.vendor_name == "रमेश" and s1.hold_s == 2.5 and not s1.model_available
    assert POLICY.new_session("c1", view(route), SessionOptions(context=ctx)).hold_s == DEFAULT_HOLD_S
    # a call's own `load=` argument: read by the runtime (`call_files`) inside the route's LOADS_DIR only
    files = call_files(route, {"load": str(loads / "other.json")})
    s2 = POLICY.new_session("c2", view(route), SessionOptions(model_available=True, context=ctx, files=files))
    assert s2.load.vendor_name == "सुरेश" and s2.model_available
    s3 = POLICY.new_session("c3", view(route), SessionOptions(context=ctx, files=call_files(route, {"load": "other.json"})))
    assert s3.load.vendor_name == "सुरेश"  # relative to LOADS_DIR
    for refused in (str(outside), "../outside.json", "/etc/passwd"):
        with pytest.raises(ValueError, match="outside ROUTE_FREIGHT_LOADS_DIR"):
            call_files(route, {"load": refused})
    s5 = session(freight_route(route_load, hold_s=0), "c5", context=ctx)
    assert not s5.utterance_may_continue("तो मेरा rate लगभग")  # hold 0: never hold
    with pytest.raises(LoadError, match="'load'"):
        POLICY.new_session("c6", view(Route("freight", True, "freight")), SessionOptions(context=ctx))


def test_concession_deterministic_per_call_id() -> None:
    load = Load(**{**GOOD, "weight": "15", "anchor": 20000, "ceiling": 26000})
    assert concession_for("call-abc", load) == concession_for("call-abc", load)
    figures = {concession_for(f"call-{i}", load) for i in range(50)}
    assert len(figures) > 5  # the seed really depends on the call id
    assert all(20000 + 0.3 * 6000 - 50 <= f <= 20000 + 0.6 * 6000 + 50 for f in figures)


@settings(max_examples=300, deadline=None)
@given(
    anchor=st.integers(min_value=1_000, max_value=5_00_000),
    gap=st.integers(min_value=2, max_value=2_00_000),
    lo=st.floats(min_value=0.01, max_value=0.98),
    width=st.floats(min_value=0.0, max_value=0.5),
    call_id=st.text(min_size=1, max_size=20),
)
def test_concession_strictly_inside_and_in_band(
    anchor: int, gap: int, lo: float, width: float, call_id: str
) -> None:
    hi = min(lo + width, 0.99)
    load = Load(
        **{**GOOD, "weight": "15", "anchor": anchor, "ceiling": anchor + gap, "concession_band": (lo, hi)}
    )
    c = concession_for(call_id, load)
    assert anchor < c < anchor + gap
    if gap >= 1000:  # enough room for the band to hold a whole rupee figure
        assert anchor + lo * gap - 1 <= c <= anchor + hi * gap + 1
