"""Fixtures of the real-Asterisk tests (`-m asterisk`): every test here is a whole call through a real Asterisk
22 with the real daemon process and a real SIP caller (see `tests/support/asterisk/`).

These tests are part of `make test` and CI. When the Asterisk build (`scripts/asterisk-build.sh`, `make
asterisk`) or sipp is missing they FAIL, saying what to do. They are skipped, with the reason, only when a person
sets `AI_OPERATOR_SKIP_ASTERISK=1` on purpose, or when a clone has nothing beside it: no build and no vendored
sources to build from (`scripts/asterisk-build.sh --sources` says where). CI sets `AI_OPERATOR_REQUIRE_ASTERISK=1`, which turns that
last skip into a failure too.

- `stack`: one environment (Asterisk, STT server, daemon with the sample knowledge base) shared by the whole
  session. A test using it must leave it as it found it: no reload, restart or stop.
- `fresh_stack`: a new environment for one test, free to reload, restart, crash or stop any part of it.
- `asterisk_ready`: only the check above, for tests that build their own `Stack`/`Asterisk`.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support.asterisk import (
    Stack,
    asterisk_binary,
    asterisk_prefix,
    asterisk_sources,
    asterisk_sources_present,
)

SKIP_ENV = "AI_OPERATOR_SKIP_ASTERISK"
REQUIRE_ENV = "AI_OPERATOR_REQUIRE_ASTERISK"
HERE = Path(__file__).resolve().parent


@pytest.hookimpl(tryfirst=True)  # before `-m` selects: every test in this folder is an `asterisk` test
def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    for item in items:
        if HERE in Path(str(item.fspath)).resolve().parents:
            item.add_marker(pytest.mark.asterisk)


def missing() -> str | None:
    if asterisk_binary() is None:
        return (f"no Asterisk in {asterisk_prefix()}: build it with `make asterisk` (scripts/asterisk-build.sh), "
                f"or set {SKIP_ENV}=1 to skip the real-Asterisk tests on purpose")
    if shutil.which("sipp") is None:
        return f"sipp is not installed (make install installs it), or set {SKIP_ENV}=1 to skip on purpose"
    return None


@pytest.fixture(scope="session")
def asterisk_ready() -> None:
    reason = missing()
    if reason is None:
        return
    if os.environ.get(SKIP_ENV) == "1":
        pytest.skip(f"{SKIP_ENV}=1: {reason}")
    nothing_beside = asterisk_binary() is None and not asterisk_sources_present()
    if nothing_beside and os.environ.get(REQUIRE_ENV) != "1":
        pytest.skip(f"no Asterisk build in {asterisk_prefix()} and no sources to build it from in "
                    f"{asterisk_sources()} (a clone with nothing beside it); {REQUIRE_ENV}=1 makes this a failure")
    pytest.fail(reason, pytrace=False)


@pytest.fixture(scope="session")
def stack(asterisk_ready: None) -> Iterator[Stack]:
    env = Stack.start()
    try:
        yield env
    finally:
        env.stop()


@pytest.fixture
def fresh_stack(asterisk_ready: None) -> Iterator[Stack]:
    env = Stack.start()
    try:
        yield env
    finally:
        env.stop()
