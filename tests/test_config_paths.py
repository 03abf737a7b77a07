"""One rule for every path (issue 24.1): a path given on the command line is relative to the current directory;
a path inside the env file (or in the environment overriding a key of it) is relative to the env file's folder.
Each option is checked from a current directory that is NOT the env file's folder, so the two readings differ,
and each test also shows that the other reading is not taken (a file only there is not found)."""

from __future__ import annotations

import io
import json
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_operator.cli import main
from ai_operator.config import ConfigError, load_settings
from ai_operator.daemon.dial import stasis_args
from ai_operator.logs import configure_logging
from ai_operator.option_args import dial_args
from ai_operator.route_binding import bind_routes
from ai_operator.sim.demo import demo_state_dir
from tests.support.envfiles import example_text
from tests.support.quiet_logs import logs_to_nowhere
from tests.support.routes import options_of
from tests.support.storage import fresh_dsn

REPO = Path(__file__).resolve().parents[1]
SAMPLE_LOAD = json.loads((REPO / "etc" / "loads" / "sample.json").read_text(encoding="utf-8"))


@pytest.fixture(autouse=True)
def _logging_not_left_on_a_captured_stream() -> Iterator[None]:
    """`main()` points the logs at the test's captured stdout; the next test must not write to it once closed."""
    yield
    logs_to_nowhere()  # and a later test's captured logs see its info lines


@pytest.fixture
def places(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> tuple[Path, Path]:
    """(the env file's folder, the current directory): two unrelated folders; the test runs in the second."""
    conf, here = tmp_path / "conf", tmp_path / "here"
    conf.mkdir()
    here.mkdir()
    monkeypatch.chdir(here)
    configure_logging("error", "json", stream=io.StringIO())  # not a stream an earlier test's capture closed
    for key in ("STATE_DIR", "ROUTE_FREIGHT_LOADS_DIR", "POLICY_PATH", "DATABASE_URL"):
        monkeypatch.delenv(key, raising=False)
    return conf, here


def write_env(conf: Path, **values: str) -> Path:
    env = conf / "ai-operator.env"
    env.write_text(example_text(**values), encoding="utf-8")
    env.chmod(0o600)
    return env


def write_load(folder: Path, name: str, vendor: str) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / name
    path.write_text(json.dumps({**SAMPLE_LOAD, "vendor_name": vendor}, ensure_ascii=False), encoding="utf-8")
    return path


# --- paths inside the env file: relative to its folder ----------------------------------------------------------

@pytest.mark.parametrize("written", ["state", "./state", "sub/state", "../state-beside"])
def test_state_dir_in_the_env_file_is_relative_to_its_folder(places: tuple[Path, Path], written: str) -> None:
    conf, here = places
    settings = load_settings(write_env(conf, STATE_DIR=written), environ={})
    assert settings.storage.state_dir == conf / written
    assert not settings.storage.state_dir.is_relative_to(here)


def test_state_dir_from_the_environment_is_read_like_the_file(places: tuple[Path, Path]) -> None:
    conf, _ = places
    settings = load_settings(write_env(conf), environ={"STATE_DIR": "elsewhere"})
    assert settings.storage.state_dir == conf / "elsewhere"


def test_absolute_state_dir_is_kept(places: tuple[Path, Path], tmp_path: Path) -> None:
    conf, _ = places
    assert load_settings(write_env(conf, STATE_DIR=str(tmp_path / "abs")), environ={}).storage.state_dir == tmp_path / "abs"


def test_loads_dir_and_the_route_load_are_relative_to_the_env_file(places: tuple[Path, Path]) -> None:
    conf, here = places
    write_load(conf / "loads", "sample.json", "सुरेश")
    write_load(here / "loads", "sample.json", "गलत")  # the current directory's copy must not be read
    settings = bind_routes(load_settings(write_env(conf, ROUTE_FREIGHT_LOADS_DIR="loads"), environ={}))
    assert options_of(settings, "freight")["LOADS_DIR"] == conf / "loads"
    assert options_of(settings, "freight")["LOAD"].vendor_name == "सुरेश"


def test_a_relative_loads_dir_missing_beside_the_env_file_is_an_error_naming_it(places: tuple[Path, Path]) -> None:
    conf, here = places
    write_load(here / "loads", "sample.json", "गलत")
    with pytest.raises(ConfigError) as err:
        bind_routes(load_settings(write_env(conf, ROUTE_FREIGHT_LOADS_DIR="loads"), environ={}))
    assert "ROUTE_FREIGHT_LOAD" in str(err.value) and str(conf / "loads" / "sample.json") in str(err.value)


def test_policy_path_in_the_env_file_is_relative_to_its_folder(places: tuple[Path, Path]) -> None:
    conf, here = places
    shutil.copytree(REPO / "tests" / "policies" / "survey", conf / "mine" / "survey")
    env = write_env(conf, POLICY_PATH="mine", ROUTE_SURVEY_ENABLED="true", ROUTE_SURVEY_POLICY="survey")
    (here / "answers.txt").write_text("yes\nyes\n", encoding="utf-8")
    # A fresh process: the folders POLICY_PATH adds are process-wide. The env file and the script are given
    # relative to the current directory, the policy folder relative to the env file.
    run = subprocess.run([sys.executable, "-m", "ai_operator", "call", "--route", "survey", "--env",
                          os.path.relpath(env, here), "--script", "answers.txt", "--json"],
                         cwd=here, capture_output=True, text=True, timeout=300, check=False,
                         env={k: v for k, v in os.environ.items() if k != "POLICY_PATH"})
    assert run.returncode == 0, run.stderr
    assert "Were you satisfied with our service?" in run.stdout


def test_policy_path_is_not_read_against_the_current_directory(places: tuple[Path, Path]) -> None:
    conf, here = places
    shutil.copytree(REPO / "tests" / "policies" / "survey", here / "mine" / "survey")
    env = write_env(conf, POLICY_PATH="mine", ROUTE_SURVEY_ENABLED="true", ROUTE_SURVEY_POLICY="survey")
    run = subprocess.run([sys.executable, "-m", "ai_operator", "doctor", "--check-dialogue", "--env", str(env)],
                         cwd=here, capture_output=True, text=True, timeout=300, check=False,
                         env={k: v for k, v in os.environ.items() if k != "POLICY_PATH"})
    assert run.returncode != 0
    assert "ROUTE_SURVEY_POLICY" in run.stdout + run.stderr


# --- paths on the command line: relative to the current directory -----------------------------------------------

def test_env_and_script_on_the_command_line_are_relative_to_the_current_directory(
    places: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    conf, here = places
    write_env(conf)
    (here / "lines.txt").write_text("по-русски\n", encoding="utf-8")
    (conf / "lines.txt").write_text("қазақша\n", encoding="utf-8")  # beside the env file: must not be read
    code = main(["call", "--route", "test", "--env", "../conf/ai-operator.env", "--script", "lines.txt", "--json",
                 "--no-knowledge"])
    assert code == 0
    turns = [json.loads(line) for line in capsys.readouterr().out.splitlines() if line.startswith("{")]
    assert any(t.get("caller") == "по-русски" for t in turns), turns
    assert not any(t.get("caller") == "қазақша" for t in turns), turns


def test_a_relative_env_that_exists_only_elsewhere_is_not_found(places: tuple[Path, Path],
                                                                 capsys: pytest.CaptureFixture[str]) -> None:
    write_env(places[0])
    assert main(["call", "--route", "test", "--env", "ai-operator.env"]) == 2
    assert "ai-operator.env:0: file not found" in capsys.readouterr().err


@pytest.mark.parametrize("given", ["mine.json", "./mine.json", "sub/../mine.json"])
def test_load_on_the_command_line_is_relative_to_the_current_directory(
    places: tuple[Path, Path], capsys: pytest.CaptureFixture[str], given: str
) -> None:
    conf, here = places
    write_load(conf / "loads", "sample.json", "रमेश")
    write_load(conf / "loads", "mine.json", "गलत")  # the same name in LOADS_DIR: must not be read
    write_load(here, "mine.json", "सुरेश")
    (here / "sub").mkdir()
    (here / "lines.txt").write_text("हां जी\n", encoding="utf-8")
    env = write_env(conf, ROUTE_FREIGHT_LOADS_DIR="loads")
    assert main(["call", "--route", "freight", "--env", str(env), "--arg", f"load={given}", "--script", "lines.txt"]) == 0
    out = capsys.readouterr().out
    assert "सुरेश" in out and "गलत" not in out and "रमेश" not in out


def test_load_option_on_the_command_line_is_relative_to_the_current_directory(
    places: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    conf, here = places
    write_load(conf / "loads", "sample.json", "रमेश")
    write_load(here, "mine.json", "सुरेश")
    (here / "lines.txt").write_text("हां जी\n", encoding="utf-8")
    env = write_env(conf, ROUTE_FREIGHT_LOADS_DIR="loads")
    assert main(["call", "--route", "freight", "--env", str(env), "--arg", "LOAD=mine.json",
                 "--script", "lines.txt"]) == 0
    assert "सुरेश" in capsys.readouterr().out


def test_a_load_only_in_loads_dir_is_not_found_from_the_command_line(
    places: tuple[Path, Path], capsys: pytest.CaptureFixture[str]
) -> None:
    conf, here = places
    write_load(conf / "loads", "sample.json", "रमेश")
    env = write_env(conf, ROUTE_FREIGHT_LOADS_DIR="loads")
    assert main(["call", "--route", "freight", "--env", str(env), "--arg", "load=sample.json"]) == 2
    err = capsys.readouterr().err
    assert "--arg load=sample.json: " in err and str(here / "sample.json") in err and "not found" in err


def test_dial_load_is_relative_to_the_current_directory(places: tuple[Path, Path]) -> None:
    conf, here = places
    settings = bind_routes(load_settings(write_env(conf), environ={}))
    args = dial_args(settings.routes["freight"], ["load=mine.json"])
    assert stasis_args("freight", args) == f"freight,outbound,load={here / 'mine.json'}"


@pytest.mark.parametrize("given", ["st", "./st", "a/b", "../up"])
def test_demo_state_dir_is_relative_to_the_current_directory(places: tuple[Path, Path], given: str) -> None:
    _, here = places
    assert demo_state_dir(given) == here / given
    assert demo_state_dir(given).is_absolute()


def test_demo_default_state_dir_is_the_per_user_cache(places: tuple[Path, Path], tmp_path: Path) -> None:
    assert demo_state_dir(None, {"XDG_CACHE_HOME": str(tmp_path / "c")}) == tmp_path / "c" / "ai-operator-demo"
    # XDG: a relative XDG_CACHE_HOME is invalid and ignored
    assert demo_state_dir(None, {"XDG_CACHE_HOME": "rel"}) == Path.home() / ".cache" / "ai-operator-demo"
    assert demo_state_dir(None, {}) == Path.home() / ".cache" / "ai-operator-demo"


def test_values_set_by_code_or_command_line_are_relative_to_the_current_directory(places: tuple[Path, Path]) -> None:
    """The demo's bug: `with_values(STATE_DIR="state")` used to land beside the env file (etc/state/)."""
    conf, here = places
    write_load(conf / "loads", "sample.json", "रमेश")
    settings = load_settings(write_env(conf, ROUTE_FREIGHT_LOADS_DIR="loads"), environ={})
    import policies

    searched = list(policies.__path__)
    try:
        changed = settings.with_values(STATE_DIR="state", POLICY_PATH="pol")
    finally:  # POLICY_PATH's folders are process-wide: leave the others' as they were
        policies.__path__[:] = searched
        policies.available_policies.cache_clear()
    assert changed.storage.state_dir == here / "state"
    assert changed.raw["POLICY_PATH"] == str(here / "pol")
    assert options_of(bind_routes(changed), "freight")["LOADS_DIR"] == conf / "loads"  # the file's keeps its reading


def test_kb_ingest_file_is_relative_to_the_current_directory(
    places: tuple[Path, Path], monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    conf, here = places
    env = write_env(conf)
    line = {"id": "here-1", "language": "ru", "regions": ["*"], "title": "Здесь", "text": "Текст.", "source": "s"}
    (here / "kb.jsonl").write_text(json.dumps(line, ensure_ascii=False) + "\n", encoding="utf-8")
    (conf / "kb.jsonl").write_text("{broken\n", encoding="utf-8")  # beside the env file: must not be read
    monkeypatch.setenv("DATABASE_URL", fresh_dsn())
    assert main(["kb", "ingest", "kb.jsonl", "--env", str(env)]) == 0
    assert "read=1 inserted=1" in capsys.readouterr().out
