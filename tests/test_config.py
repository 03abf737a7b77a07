"""The env file format, every value checked at load (one line naming file:line, key, value and what is allowed),
routes and their options (a policy's own checked where the runtime binds the routes, `route_binding.py`, with
the same one line), which source wins when, and the example env file against the declarations."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from ai_operator.config import (
    ROUTE_OPTIONS,
    ConfigError,
    EnvFileError,
    HandoffTarget,
    build_settings,
    load_settings,
    parse_env_text,
    reload_settings,
)
from ai_operator.config.schema import declared, default_text
from ai_operator.route_binding import bind_routes
from tests.support.routes import options_of, route_of

REPO = Path(__file__).resolve().parents[1]
EXAMPLE = REPO / "etc" / "ai-operator.env.example"


def settings_from(text: str, environ: dict[str, str] | None = None):
    return build_settings(parse_env_text(text, "t.env"), environ or {}, "t.env")


def bound_from(text: str, environ: dict[str, str] | None = None):
    """Settings as the runtime uses them: each route bound to its policy (start-up, reload, doctor)."""
    return bind_routes(settings_from(text, environ))


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


def test_unknown_route_option_warns_with_the_known_ones():
    s = bound_from("ROUTE_TEST_ENABLD=true\n")
    assert any("ROUTE_TEST_ENABLD" in w and "HANDOFF" in w for w in s.warnings)


def test_a_duplicated_key_warns_and_says_which_line_wins():
    s = settings_from("MAX_CALLS=5\nMAX_CALLS=9\n")
    assert s.call.max_calls == 9
    assert any("t.env:2: MAX_CALLS set again (first on line 1); this line wins" in w for w in s.warnings)


# Each bad value: the error is one line naming file:line, the key, the value and what is allowed.
BAD_VALUES = [
    ("VAD_AGGRESSIVENESS=9", "VAD_AGGRESSIVENESS='9'", "0..3"),
    ("LOG_LEVEL=verbose", "LOG_LEVEL='verbose'", "debug, info, warning, error"),
    ("METRICS_PORT=99999", "METRICS_PORT='99999'", "0..65535"),
    ("STT_TIMEOUT_S=-1", "STT_TIMEOUT_S='-1'", "0.1..120"),
    ("STT_TIMEOUT_S=nan", "STT_TIMEOUT_S='nan'", "finite"),
    ("ARI_URL=not a url", "ARI_URL='not a url'", "http:// or https://"),
    ("ARI_URL=ftp://host/ari", "ARI_URL='ftp://host/ari'", "http:// or https://"),
    ("ARI_URL=http://host:99999/ari", "ARI_URL='http://host:99999/ari'", "http://"),
    ("OPENAI_BASE_URL=localhost:8000", "OPENAI_BASE_URL='localhost:8000'", "http://"),
    ("MAX_CALLS=lots", "MAX_CALLS='lots'", "an integer in 1..10000"),
    ("MAX_CALLS=0", "MAX_CALLS='0'", "1..10000"),
    ("RTP_CODEC=opus", "RTP_CODEC='opus'", "ulaw, alaw, slin"),
    ("RTP_PORT_MIN=80", "RTP_PORT_MIN='80'", "1024..65535"),
    ("BARGE_IN_MS=5", "BARGE_IN_MS='5'", "40..3000"),
    ("IDLE_TIMEOUT_S=0", "IDLE_TIMEOUT_S='0'", "1..600"),
    ("MAX_CALL_S=1", "MAX_CALL_S='1'", "10..86400"),
    ("LOG_TRANSCRIPTS=maybe", "LOG_TRANSCRIPTS='maybe'", "true or false"),
    ("ARI_APP=my app", "ARI_APP='my app'", "letters, digits"),
    ("TTS_PROVIDER=google", "TTS_PROVIDER='google'", "auto, openai, espeak"),
    ("DATABASE_URL=http://db", "DATABASE_URL=<hidden>", "postgresql://"),
]


@pytest.mark.parametrize(("line", "shown", "allowed"), BAD_VALUES)
def test_a_bad_value_is_one_line_naming_file_line_key_value_and_what_is_allowed(line, shown, allowed):
    with pytest.raises(ConfigError) as err:
        settings_from(f"# first line\n{line}\n")
    message = str(err.value)
    assert "\n" not in message
    assert message.startswith(f"t.env:2: {shown}: ")
    assert allowed in message


def test_a_nul_byte_is_refused():
    with pytest.raises(ConfigError, match=r"t.env:1: ARI_USER='a\\x00b': contains a NUL byte"):
        settings_from("ARI_USER=a\x00b\n")


def test_a_secret_value_is_never_echoed_in_an_error():
    with pytest.raises(ConfigError) as err:
        settings_from("DATABASE_URL=https://user:hunter22@db\n")
    assert "hunter22" not in str(err.value)


def test_port_range_must_be_ordered():
    with pytest.raises(ConfigError, match="RTP_PORT_MIN must not exceed RTP_PORT_MAX"):
        settings_from("RTP_PORT_MIN=30000\nRTP_PORT_MAX=20000\n")


@pytest.mark.parametrize(
    ("raw", "expected"),
    [
        ("ai-operator-handoff,operator,1", HandoffTarget(context="ai-operator-handoff", extension="operator", priority=1)),
        ("handoff , 100", HandoffTarget(context="handoff", extension="100")),
        ("PJSIP/operator-desk", HandoffTarget(endpoint="PJSIP/operator-desk")),
        ("PJSIP/100@trunk", HandoffTarget(endpoint="PJSIP/100@trunk")),
    ],
)
def test_handoff_targets_are_parsed_into_values(raw, expected):
    assert HandoffTarget.parse(raw) == expected
    s = settings_from(f"ROUTE_TEST_ENABLED=true\nROUTE_TEST_POLICY=operator\nROUTE_TEST_HANDOFF={raw}\n")
    assert route_of(s, "test").handoff == expected


@pytest.mark.parametrize("raw", ["garbage;;", "onlycontext", "a,b,c,d", "ctx,ext,zero", "ctx,ext,0", "PJSIP/", "/x", "a b,c"])
def test_a_bad_handoff_target_is_refused_at_load(raw):
    with pytest.raises(ConfigError) as err:
        settings_from(f"ROUTE_TEST_ENABLED=true\nROUTE_TEST_POLICY=operator\nROUTE_TEST_HANDOFF={raw}\n")
    assert str(err.value).startswith("t.env:3: ROUTE_TEST_HANDOFF=")
    assert "context,extension[,priority]" in str(err.value) or "out of range" in str(err.value)


def test_a_bad_option_of_a_disabled_route_is_a_warning_not_an_error():
    s = settings_from("ROUTE_PROD_ENABLED=false\nROUTE_PROD_POLICY=operator\nROUTE_PROD_HANDOFF=garbage;;\n")
    assert not route_of(s, "prod").enabled
    assert any("ROUTE_PROD_HANDOFF" in w and "disabled" in w for w in s.warnings)


def test_environment_overrides_file():
    s = settings_from("MAX_CALLS=5\nROUTE_TEST_ENABLED=false\nROUTE_TEST_POLICY=operator\n",
                      {"MAX_CALLS": "7", "ROUTE_TEST_ENABLED": "true", "UNRELATED": "x"})
    assert s.call.max_calls == 7
    assert route_of(s, "test").enabled is True


def test_on_reload_the_file_wins_over_an_environment_that_only_copies_it(tmp_path):
    """systemd's EnvironmentFile= (or any wrapper exporting the file) puts every key in the environment at
    start; a reload must still see the edited file, while a deliberate override stays in force."""
    env = tmp_path / "ai-operator.env"
    env.write_text("MAX_CALLS=5\nIDLE_TIMEOUT_S=8\nROUTE_TEST_ENABLED=true\nROUTE_TEST_POLICY=operator\n")
    environ = {"MAX_CALLS": "5", "ROUTE_TEST_ENABLED": "true", "ROUTE_TEST_POLICY": "operator", "IDLE_TIMEOUT_S": "20"}
    first = load_settings(env, environ)
    assert route_of(first, "test").enabled and first.call.max_calls == 5
    assert first.call.idle_timeout_s == 20  # differs from the file: a deliberate override
    env.write_text("MAX_CALLS=9\nIDLE_TIMEOUT_S=8\nROUTE_TEST_ENABLED=false\nROUTE_TEST_POLICY=operator\n")
    second = reload_settings(first, environ)
    assert route_of(second, "test").enabled is False
    assert second.call.max_calls == 9
    assert second.call.idle_timeout_s == 20
    env.write_text("MAX_CALLS=11\nIDLE_TIMEOUT_S=8\nROUTE_TEST_ENABLED=true\nROUTE_TEST_POLICY=operator\n")
    third = reload_settings(second, environ)  # still compared with the file as it was at start
    assert third.call.max_calls == 11 and route_of(third, "test").enabled


def test_enabling_a_route_with_missing_policy_is_an_error():
    loaded = settings_from("ROUTE_SALES_ENABLED=true\nROUTE_SALES_POLICY=nosuch\n")  # configuration knows no policy
    with pytest.raises(ConfigError, match=r"^t.env:2: ROUTE_SALES_POLICY: route sales is enabled with policy "
                                          r"'nosuch', which does not exist$"):
        bind_routes(loaded)
    with pytest.raises(ConfigError, match=r"^t.env:1: ROUTE_SALES_POLICY: route sales is enabled but names no policy"):
        settings_from("ROUTE_SALES_ENABLED=true\n")
    s = bound_from("ROUTE_SALES_ENABLED=false\nROUTE_SALES_POLICY=nosuch\n")
    assert route_of(s, "sales").enabled is False


def test_an_enabled_route_whose_load_is_missing_or_invalid_refuses_to_load(tmp_path):
    env = tmp_path / "a.env"
    (tmp_path / "loads").mkdir()
    env.write_text("ROUTE_FREIGHT_ENABLED=true\nROUTE_FREIGHT_POLICY=freight\nROUTE_FREIGHT_LOAD=nope.json\n")
    with pytest.raises(ConfigError, match=r"a.env:3: ROUTE_FREIGHT_LOAD='nope.json': .*load file not found"):
        bind_routes(load_settings(env, {}))
    (tmp_path / "loads" / "bad.json").write_text('{"anchor": 1}')
    env.write_text("ROUTE_FREIGHT_ENABLED=true\nROUTE_FREIGHT_POLICY=freight\nROUTE_FREIGHT_LOAD=bad.json\n")
    with pytest.raises(ConfigError, match=r"ROUTE_FREIGHT_LOAD='bad.json'.*field"):
        bind_routes(load_settings(env, {}))
    env.write_text("ROUTE_FREIGHT_ENABLED=true\nROUTE_FREIGHT_POLICY=freight\n")
    with pytest.raises(ConfigError, match="ROUTE_FREIGHT_LOAD: route freight uses policy freight, which needs LOAD"):
        bind_routes(load_settings(env, {}))


def test_relative_folders_are_relative_to_the_env_file(tmp_path):
    env = tmp_path / "etc" / "ai.env"
    env.parent.mkdir()
    env.write_text("STATE_DIR=state\nROUTE_FREIGHT_POLICY=freight\n")
    s = load_settings(env, {})
    assert s.storage.state_dir == tmp_path / "etc" / "state"
    assert options_of(bind_routes(s), "freight")["LOADS_DIR"] == tmp_path / "etc" / "loads"  # the route's LOADS_DIR


def test_with_values_rebuilds_and_checks():
    s = settings_from("MAX_CALLS=5\n")
    assert s.with_values(MAX_CALLS=6).call.max_calls == 6
    with pytest.raises(ConfigError, match="MAX_CALLS"):
        s.with_values(MAX_CALLS=-1)


def test_example_env_documents_every_declared_key_with_a_valid_value():
    text = EXAMPLE.read_text()
    documented = dict(re.findall(r"^([A-Z_]+)=(.*)$", text, re.M))
    keys = {d.key for d in declared()}
    for d in declared():
        assert d.key in documented, f"{d.key} missing from {EXAMPLE.name}"
    for key in documented:
        assert key in keys or key.startswith("ROUTE_"), f"{key} in {EXAMPLE.name} is not a declared setting"
    for opt in ROUTE_OPTIONS:
        assert opt in text
    s = bind_routes(load_settings(EXAMPLE, environ={}))
    assert s.warnings == ()
    assert route_of(s, "test").enabled and route_of(s, "test").policy == "operator"
    assert route_of(s, "kazakhtelecom") is not None and not route_of(s, "kazakhtelecom").enabled
    assert route_of(s, "kazakhtelecom").production and not route_of(s, "test").production
    assert options_of(s, "freight")["LOAD"].anchor > 0


def test_a_production_route_is_a_route_key_not_a_name():
    """Any route may say PRODUCTION=true (real callers reach it): enabling one is a warning and a doctor WARN."""
    from ai_operator.doctor.dialogue_checks import route_checks

    text = ("ROUTE_BILLING_ENABLED=true\nROUTE_BILLING_POLICY=operator\nROUTE_BILLING_PRODUCTION=true\n"
            "ROUTE_KAZAKHTELECOM_ENABLED=true\nROUTE_KAZAKHTELECOM_POLICY=operator\n")
    s = bound_from(text)
    assert route_of(s, "billing").production and not route_of(s, "kazakhtelecom").production
    assert [w for w in s.warnings if "production" in w] == ["t.env:1: production route billing is ENABLED"]
    checks = {c.name: c for c in route_checks(s)}
    assert checks["route billing"].status == "WARN" and "ROUTE_BILLING_ENABLED=true" in checks["route billing"].detail
    assert "route kazakhtelecom" not in checks
    with pytest.raises(ConfigError, match=r"t.env:3: ROUTE_BILLING_PRODUCTION='maybe': "):
        settings_from(text.replace("PRODUCTION=true", "PRODUCTION=maybe"))


def test_defaults_are_valid_values():
    for d in declared():
        from ai_operator.config.schema import parse_value

        assert parse_value(d, default_text(d)) == d.default or isinstance(d.default, Path), d.key


def test_secrets_listed_for_redaction():
    s = settings_from("ARI_PASSWORD=hunter22\nDATABASE_URL=postgresql://u:dbpass9@h/db\n")
    assert "hunter22" in s.secrets() and "dbpass9" in s.secrets()
    s = settings_from("DATABASE_URL='host=db user=u password=kv-secret1'\n")
    assert "kv-secret1" in s.secrets()
