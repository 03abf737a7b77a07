"""The env file format, settings validation, routes, and the example env file."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ai_operator.config import KEYS, ConfigError, EnvFileError, build_settings, load_settings, parse_env_text
from ai_operator.config.settings import ROUTE_OPTIONS

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "etc" / "ai-operator.env.example"


def settings_from(text: str, environ: dict[str, str] | None = None):
    return build_settings(parse_env_text(text, "t.env"), environ or {}, "t.env")


def test_format_quotes_comments_export():
    entries = parse_env_text(
        "# comment\n\nexport A=1\nB='two words'\nC=\"say \\\"hi\\\"\"\nD=plain # trailing\nE=\n", "f"
    )
    assert [(e.key, e.value, e.line) for e in entries] == [
        ("A", "1", 3),
        ("B", "two words", 4),
        ("C", 'say "hi"', 5),
        ("D", "plain", 6),
        ("E", "", 7),
    ]


@pytest.mark.parametrize(
    ("text", "line", "reason"),
    [
        ("A=1\nnot a pair\n", 2, "expected KEY=VALUE"),
        ("A=1\n\n=3\n", 3, "empty key"),
        ("1BAD=3\n", 1, "invalid key"),
        ("A='open\n", 1, "unterminated"),
        ("A='x' y\n", 1, "unexpected text"),
    ],
)
def test_malformed_line_names_file_line_reason(text, line, reason):
    with pytest.raises(EnvFileError) as err:
        parse_env_text(text, "/etc/x.env")
    assert err.value.line == line
    assert reason in err.value.reason
    assert str(err.value).startswith(f"/etc/x.env:{line}:")


def test_missing_file_is_a_clear_error(tmp_path):
    with pytest.raises(EnvFileError, match="file not found"):
        load_settings(tmp_path / "nope.env")


def test_unknown_key_is_a_warning_naming_it():
    s = settings_from("ARI_URLL=http://x\nROUTE_TEST_ENABLED=false\n")
    assert any("ARI_URLL" in w and "t.env:1" in w for w in s.warnings)


def test_unknown_route_option_warns():
    s = settings_from("ROUTE_TEST_ENABLD=true\n")
    assert any("ROUTE_TEST_ENABLD" in w for w in s.warnings)


def test_environment_overrides_file():
    s = settings_from("MAX_CALLS=5\nROUTE_TEST_ENABLED=false\nROUTE_TEST_POLICY=operator\n",
                      {"MAX_CALLS": "7", "ROUTE_TEST_ENABLED": "true", "UNRELATED": "x"})
    assert s.MAX_CALLS == 7
    assert s.route("test").enabled is True


def test_bad_types_name_the_key_and_line():
    with pytest.raises(ConfigError, match=r"t.env:2: MAX_CALLS: expected int"):
        settings_from("A_COMMENTED=1\nMAX_CALLS=lots\n")
    with pytest.raises(ConfigError, match="ROUTE_TEST_ENABLED: expected true or false"):
        settings_from("ROUTE_TEST_ENABLED=maybe\nROUTE_TEST_POLICY=operator\n")
    with pytest.raises(ConfigError, match="RTP_CODEC"):
        settings_from("RTP_CODEC=opus\n")


def test_enabling_a_route_with_missing_policy_is_an_error():
    with pytest.raises(ConfigError, match=r"ROUTE_SALES_POLICY.*'nosuch', which does not exist"):
        settings_from("ROUTE_SALES_ENABLED=true\nROUTE_SALES_POLICY=nosuch\n")
    with pytest.raises(ConfigError, match=r"^t.env:1: ROUTE_SALES_POLICY: route sales is enabled but names no policy"):
        settings_from("ROUTE_SALES_ENABLED=true\n")
    # disabled with an unknown policy is allowed (it cannot take calls)
    s = settings_from("ROUTE_SALES_ENABLED=false\nROUTE_SALES_POLICY=nosuch\n")
    assert s.route("sales").enabled is False


def test_required_key_is_named():
    from ai_operator.config import require

    s = settings_from("ARI_USER=\n")
    with pytest.raises(ConfigError, match="ARI_USER: required"):
        require(s, "ARI_URL", "ARI_USER")


def test_example_env_documents_every_key_and_routes():
    text = EXAMPLE.read_text()
    documented = set(re.findall(r"^([A-Z_]+)=", text, re.M))
    for key in KEYS:
        assert key.name in documented, f"{key.name} missing from {EXAMPLE.name}"
    for opt in ROUTE_OPTIONS:
        assert opt in text
    s = load_settings(EXAMPLE, environ={})
    assert s.warnings == ()
    assert s.route("test").enabled and s.route("test").policy == "operator"
    assert s.route("kazakhtelecom") is not None and not s.route("kazakhtelecom").enabled
    load = Path(s.route("freight").option("LOAD"))
    assert load.is_absolute() and load.exists()


def test_secrets_listed_for_redaction():
    s = settings_from("ARI_PASSWORD=hunter22\nDATABASE_URL=postgresql://u:dbpass9@h/db\n")
    assert "hunter22" in s.secrets() and "dbpass9" in s.secrets()
