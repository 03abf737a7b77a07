"""`make test`'s two workers: every test of a shared-stack folder goes to one worker, every other test alone."""

from __future__ import annotations

from pathlib import Path

from tests.support.worker_groups import SHARED_STACK_FOLDERS, SharedStackScheduling

REPO = Path(__file__).resolve().parents[1]


def scope(nodeid: str) -> str:
    return str(SharedStackScheduling._split_scope(None, nodeid))  # type: ignore[arg-type]  # reads no state


def test_each_shared_stack_folder_is_one_unit_of_work_and_every_other_test_its_own() -> None:
    assert {scope(f"{folder}test_a.py::test_one") for folder in SHARED_STACK_FOLDERS} == set(SHARED_STACK_FOLDERS)
    assert scope("tests/asterisk/test_a.py::t") == scope("tests/asterisk/test_b.py::t[x]")
    assert scope("tests/cluster/test_a.py::t") != scope("tests/asterisk/test_a.py::t")
    assert scope("tests/test_daemon_endings.py::t[closing-start]") == "tests/test_daemon_endings.py::t[closing-start]"
    assert scope("tests/test_asterisk_gate.py::t") == "tests/test_asterisk_gate.py::t"
    assert scope("tests/policies/operator/test_a.py::t") == "tests/policies/operator/test_a.py::t"


def test_the_shared_stack_folders_exist_and_share_a_session_stack() -> None:
    for folder in SHARED_STACK_FOLDERS:
        conftest = (REPO / folder / "conftest.py").read_text(encoding="utf-8")
        assert '@pytest.fixture(scope="session")' in conftest, folder
