"""doctor's systemd stop-timeout check: the unit must outlast a drain plus the closing line's watchdog."""

from __future__ import annotations

from pathlib import Path

import pytest

from ai_operator.config import parse_env_text
from ai_operator.config.settings import build_settings
from ai_operator.doctor.service_checks import needed_stop_s, parse_timespan, stop_timeout

REPO = Path(__file__).resolve().parents[1]
SHIPPED_UNIT = REPO / "systemd" / "ai-operator.service"


def settings(text: str = ""):
    return build_settings(parse_env_text(text, "t.env"), {}, "t.env")


@pytest.mark.parametrize(("text", "seconds"), [("70", 70), ("45s", 45), ("1min 10s", 70), ("2min", 120),
                                               ("infinity", float("inf")), ("1500ms", 1.5), ("soon", None)])
def test_timespans(text, seconds):
    assert parse_timespan(text) == seconds


def test_the_shipped_unit_covers_the_default_stop(tmp_path):
    result = stop_timeout(settings(), (SHIPPED_UNIT,))
    assert result.status == "OK" and "TimeoutStopSec 70 s" in result.detail


def test_an_env_file_whose_stop_outlasts_the_unit_is_warned_with_the_fix(tmp_path):
    s = settings("DRAIN_TIMEOUT_S=120\nHANGUP_WATCHDOG_S=30\n")
    assert needed_stop_s(s) == 170
    result = stop_timeout(s, (SHIPPED_UNIT,))
    assert result.status == "WARN"
    assert "TimeoutStopSec is 70 s" in result.detail and "raise TimeoutStopSec to 170" in result.detail


def test_a_unit_without_the_key_has_systemds_default(tmp_path):
    unit = tmp_path / "ai-operator.service"
    unit.write_text("[Service]\nExecStart=/bin/true\n")
    assert stop_timeout(settings("DRAIN_TIMEOUT_S=80\n"), (unit,)).status == "WARN"  # 80 + 20 + 20 > 90
    assert stop_timeout(settings(), (unit,)).status == "OK"
