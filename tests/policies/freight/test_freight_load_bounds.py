"""Freight load files: every field has a bound (issue 24.5). A 100,000-character vendor name used to be accepted
and spoken in full; now each text field has a length limit, a weight given as a number is a plausible tonnage,
a rate has a bounded number of digits, control characters are refused, and an oversized file is not read. The
error is one line naming the file, the field, the value (cut short) and what is allowed, whichever way the
load arrives: `call --arg load=FILE`, the route's `LOAD` in the env file, or a call's own `load=` argument."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_operator.cli import main
from ai_operator.config import ConfigError, load_settings
from ai_operator.route_binding import bind_routes, call_files
from policies.freight import LoadError, load_from_file
from policies.freight.load import MAX_FILE_BYTES, MAX_RATE, MAX_TEXT_CHARS, MAX_WEIGHT_TONNES, SHOWN_CHARS
from tests.support.envfiles import example_text
from tests.support.policies import freight_route
from tests.support.quiet_logs import logs_to_nowhere

GOOD = {"vendor_name": "रमेश", "origin": "दिल्ली", "destination": "जयपुर", "vehicle": "32 फीट कंटेनर", "weight": 15,
        "material": "कपड़ा", "pickup": "कल सुबह", "anchor": 20000, "ceiling": 26000}


@pytest.fixture(autouse=True)
def _logging_not_left_on_a_captured_stream() -> Iterator[None]:
    """`main()` points the logs at the test's captured stdout; the next test must not write to it once closed."""
    yield
    logs_to_nowhere()  # and a later test's captured logs see its info lines


def write(folder: Path, data: object, name: str = "load.json") -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(data if isinstance(data, str) else json.dumps(data, ensure_ascii=False), encoding="utf-8")
    return path


def refused(path: Path) -> LoadError:
    with pytest.raises(LoadError) as err:
        load_from_file(path)
    return err.value


@pytest.mark.parametrize("field", sorted(MAX_TEXT_CHARS))
def test_each_text_field_is_bounded_and_the_error_shows_the_value_cut_short(tmp_path: Path, field: str) -> None:
    limit = MAX_TEXT_CHARS[field]
    size = max(limit + 1, SHOWN_CHARS + 10)
    long_value = "क" * size if field != "weight" else "1" * size + " टन"
    err = refused(write(tmp_path, {**GOOD, field: long_value}))
    message = str(err)
    assert err.field == field and message.startswith(f"{tmp_path / 'load.json'}: field '{field}': ")
    assert f"at most {limit} allowed" in message
    assert long_value[:SHOWN_CHARS] in message and long_value not in message  # cut short
    assert len(message) < 300


@pytest.mark.parametrize("field", sorted(MAX_TEXT_CHARS))
def test_a_value_at_the_limit_is_accepted(tmp_path: Path, field: str) -> None:
    limit = MAX_TEXT_CHARS[field]
    value = "क" * limit if field != "weight" else "क" * (limit - 3) + " टन"
    load = load_from_file(write(tmp_path, {**GOOD, field: value}))
    assert getattr(load, field) == value


def test_a_100000_character_vendor_name_is_refused(tmp_path: Path) -> None:
    err = refused(write(tmp_path, {**GOOD, "vendor_name": "रमेश" * 25_000}))
    assert "field 'vendor_name'" in str(err) and "(100000 characters)" in str(err) and "at most 60" in str(err)


@pytest.mark.parametrize("weight", [0, -3, 101, 1e9, "0", "250", "nan", "inf", "-inf", "1e308"])
def test_a_numeric_weight_is_a_plausible_tonnage(tmp_path: Path, weight: object) -> None:
    err = refused(write(tmp_path, {**GOOD, "weight": weight}))
    assert err.field == "weight" and f"at most {MAX_WEIGHT_TONNES:g}" in str(err)


@pytest.mark.parametrize("weight", [0.5, 15, "7.5", "20 टन", "बीस टन", MAX_WEIGHT_TONNES])
def test_plausible_weights_are_accepted_and_spoken(tmp_path: Path, weight: object) -> None:
    load = load_from_file(write(tmp_path, {**GOOD, "weight": weight}))
    assert load.spoken()["weight"]


@pytest.mark.parametrize("field", ["vendor_name", "origin", "pickup"])
@pytest.mark.parametrize("control", ["\u0000", "\n", "\u001b[31m", "\u202e"])
def test_control_characters_are_refused(tmp_path: Path, field: str, control: str) -> None:
    err = refused(write(tmp_path, {**GOOD, field: f"रमेश{control}जी"}))
    assert err.field == field and "control character U+" in str(err) and "printable" in str(err)


@pytest.mark.parametrize("rate", ["9" * 100_000, "1" * 13, 10**15])
def test_a_rate_with_too_many_digits_is_refused(tmp_path: Path, rate: object) -> None:
    err = refused(write(tmp_path, {**GOOD, "ceiling": rate}))
    assert err.field == "ceiling" and f"between 1 and {MAX_RATE} rupees" in str(err) and len(str(err)) < 300


def test_a_number_of_thousands_of_digits_is_invalid_json_not_a_crash(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps(GOOD)[:-1] + ', "_n": ' + "7" * 5000 + "}")
    err = refused(path)
    assert str(err).startswith(f"{path}: invalid JSON")


def test_an_oversized_file_is_not_read(tmp_path: Path) -> None:
    path = write(tmp_path, json.dumps({**GOOD, "_comment": "x" * MAX_FILE_BYTES}))
    err = refused(path)
    assert f"at most {MAX_FILE_BYTES} allowed" in str(err) and str(path) in str(err)


def test_a_long_unknown_key_is_cut_short(tmp_path: Path) -> None:
    err = refused(write(tmp_path, {**GOOD, "k" * 5000: 1}))
    assert err.field == "k" * SHOWN_CHARS and "unknown field" in str(err)


def test_a_bom_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "bom.json"
    path.write_bytes(b"\xef\xbb\xbf" + json.dumps(GOOD, ensure_ascii=False).encode())
    assert load_from_file(path).vendor_name == "रमेश"


# --- every way a load arrives ---------------------------------------------------------------------------------------

def test_call_load_on_the_command_line_is_one_line_and_exit_2(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.chdir(tmp_path)
    write(tmp_path, {**GOOD, "vendor_name": "व" * 100_000}, "huge.json")
    env = tmp_path / "ai.env"
    env.write_text(example_text(), encoding="utf-8")
    assert main(["call", "--route", "freight", "--env", str(env), "--arg", "load=huge.json"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "huge.json" in err and "'vendor_name'" in err and "at most 60 allowed" in err
    assert "Traceback" not in err and len(err) < 400


def test_the_route_load_in_the_env_file_stops_the_start(tmp_path: Path) -> None:
    write(tmp_path / "loads", {**GOOD, "material": "कपड़ा " * 1000}, "sample.json")
    env = tmp_path / "ai.env"
    env.write_text(example_text(ROUTE_FREIGHT_LOADS_DIR="loads"), encoding="utf-8")
    with pytest.raises(ConfigError) as err:
        bind_routes(load_settings(env, environ={}))
    assert "ROUTE_FREIGHT_LOAD='sample.json'" in str(err.value) and "'material'" in str(err.value)
    assert "at most 80 allowed" in str(err.value) and len(str(err.value)) < 400


def test_a_calls_own_load_argument_is_refused_with_the_field(tmp_path: Path) -> None:
    loads = tmp_path / "loads"
    good = write(loads, GOOD, "good.json")
    write(loads, {**GOOD, "destination": "ज" * 500}, "long.json")
    route = dataclasses.replace(freight_route(good), options={"LOAD": load_from_file(good), "LOADS_DIR": loads})
    with pytest.raises(LoadError) as err:
        call_files(route, {"load": "long.json"})
    assert err.value.field == "destination" and "at most 80 allowed" in str(err.value)
