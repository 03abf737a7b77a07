"""The Asterisk samples parse and agree with each other and with etc/ai-operator.env.example."""

from __future__ import annotations

import re
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
AST = REPO / "etc" / "asterisk"
ENV_EXAMPLE = REPO / "etc" / "ai-operator.env.example"

Section = tuple[str, list[tuple[str, str]]]


def parse_conf(path: Path) -> list[Section]:
    """Asterisk config: [name] sections of `key = value` or `key => value` lines; `;` comments.

    Section names may repeat (pjsip: an endpoint and an aor both called test-caller), so a list is kept.
    """
    sections: list[Section] = []
    for n, raw in enumerate(path.read_text().splitlines(), 1):
        line = raw.split(";", 1)[0].strip()
        if not line:
            continue
        m = re.fullmatch(r"\[([^\]]+)\](\(.*\))?", line)
        if m:
            sections.append((m.group(1), []))
            continue
        m = re.fullmatch(r"([A-Za-z_][\w.-]*)\s*=>?\s*(.*)", line)
        assert m, f"{path.name}:{n}: not a config line: {raw!r}"
        assert sections, f"{path.name}:{n}: line outside a section"
        sections[-1][1].append((m.group(1), m.group(2).strip()))
    return sections


def by_type(sections: list[Section]) -> dict[tuple[str, str], dict[str, str]]:
    out = {}
    for name, items in sections:
        d = dict(items)
        out[(name, d.get("type", ""))] = d
    return out


def env_example() -> dict[str, str]:
    out = {}
    for line in ENV_EXAMPLE.read_text().splitlines():
        m = re.match(r"^([A-Z0-9_]+)=(.*)$", line.strip())
        if m:
            out[m.group(1)] = m.group(2)
    return out


def test_http_and_ari_match_the_env_example():
    env = env_example()
    http = dict(dict(parse_conf(AST / "http.conf"))["general"])
    assert http["enabled"] == "yes" and http["bindaddr"] == "127.0.0.1"
    assert env["ARI_URL"] == f"http://{http['bindaddr']}:{http['bindport']}/ari"
    ari = dict(parse_conf(AST / "ari.conf"))
    assert dict(ari["general"])["enabled"] == "yes"
    user = dict(ari[env["ARI_USER"]])
    assert user["type"] == "user" and user["password_format"] == "plain" and user["read_only"] == "no"
    assert user["password"]


# Section names in Asterisk 22's stock configs/samples/pjsip.conf.sample that a merge must not collide with.
STOCK_PJSIP_SECTIONS = {"transport-udp", "transport-udp-ipv6", "transport-tcp", "transport-tls", "system", "global",
                        "6001", "6002", "mytrunk", "acl"}


def test_pjsip_references_resolve():
    sections = by_type(parse_conf(AST / "pjsip.conf"))
    transport = sections[("ai-operator-udp", "transport")]
    assert transport["protocol"] == "udp"
    # beside a stock transport on 5060, never on it
    assert transport["bind"].rsplit(":", 1)[1] != "5060"
    assert not {name for name, _ in sections} & STOCK_PJSIP_SECTIONS
    endpoints = {name: d for (name, kind), d in sections.items() if kind == "endpoint"}
    assert set(endpoints) == {"test-caller", "operator-desk", "freight-trunk"}
    contexts = {name for name, _ in parse_conf(AST / "extensions.conf")}
    for name, ep in endpoints.items():
        assert ep["allow"] == "ulaw,alaw" and ep["disallow"] == "all"
        assert (ep["transport"], "transport") in sections
        assert (ep["aors"], "aor") in sections, name
        auth = ep.get("auth") or ep.get("outbound_auth")
        assert (auth, "auth") in sections, name
        assert ep["context"] in contexts, f"{name}: context {ep['context']} missing from extensions.conf"
    identify = sections[("freight-trunk-identify", "identify")]
    assert identify["endpoint"] == "freight-trunk"


def _priorities(items: list[tuple[str, str]]) -> dict[str, list[str]]:
    """exten -> the applications of its priorities in order (`same =>` continues the last exten)."""
    out: dict[str, list[str]] = {}
    current = None
    for key, value in items:
        if key == "exten":
            current, _prio, app = (p.strip() for p in value.split(",", 2))
            out.setdefault(current, []).append(app)
        elif key == "same":
            assert current is not None
            out[current].append(value.split(",", 1)[1].strip())
    return out


def test_dialplan_routes_fallback_handoff_outbound():
    ctx = {name: _priorities(items) for name, items in parse_conf(AST / "extensions.conf")}
    test = ctx["ai-operator-test"]
    for exten, route in (("100", "test"), ("200", "freight")):
        apps = test[exten]
        i = next(i for i, a in enumerate(apps) if a.startswith("Stasis("))
        assert apps[i] == f"Stasis(${{AI_APP}},{route})"
        # `continue` from the daemon resumes at the next priority: there must be one that plays the fallback
        assert any(a.startswith("Goto(ai-operator-busy") for a in apps[i + 1 :])
    busy = ctx["ai-operator-busy"]["s"]
    assert any(a.startswith("Playback(") for a in busy) and busy[-1].startswith("Hangup")
    dials = [a for a in ctx["ai-operator-handoff"]["operator"] if a.startswith("Dial(")]
    assert dials
    # the handoff dials an endpoint the sample defines (a second softphone registers as it)
    endpoints = {name for (name, kind) in by_type(parse_conf(AST / "pjsip.conf")) if kind == "endpoint"}
    for dial in dials:
        tech, resource = dial[len("Dial(") :].split(",", 1)[0].split("/", 1)
        assert tech == "PJSIP" and resource in endpoints, dial
    outbound = ctx["ai-operator-outbound"]["_X."]
    assert any("@freight-trunk" in a for a in outbound)
    globals_ = dict(dict(parse_conf(AST / "extensions.conf"))["globals"])
    assert globals_["AI_APP"] == env_example()["ARI_APP"]


def test_asterisk_rtp_range_does_not_overlap_ours():
    env = env_example()
    rtp = dict(dict(parse_conf(AST / "rtp.conf"))["general"])
    ours = range(int(env["RTP_PORT_MIN"]), int(env["RTP_PORT_MAX"]) + 1)
    theirs = range(int(rtp["rtpstart"]), int(rtp["rtpend"]) + 1)
    assert not set(ours) & set(theirs)


def test_readme_names_every_file_and_the_reload_commands():
    text = (AST / "README.md").read_text()
    for f in AST.glob("*.conf"):
        assert f"`{f.name}`" in text, f.name
    for cmd in ("module reload res_ari.so", "dialplan reload", "pjsip reload", "ari show apps"):
        assert cmd in text


# The prompts of Debian's asterisk-core-sounds-en-gsm 1.6.1 the samples may use (a part of `dpkg -L`).
CORE_SOUNDS = {"all-circuits-busy-now", "please-try-call-later", "please-try-again", "im-sorry", "tt-allbusy"}
DEBIAN_SOUNDS = Path("/usr/share/asterisk/sounds/en_US_f_Allison")


def test_the_fallback_plays_prompts_that_ship_with_the_core_sounds():
    ctx = {name: _priorities(items) for name, items in parse_conf(AST / "extensions.conf")}
    prompts = [p for app in ctx["ai-operator-busy"]["s"] if app.startswith("Playback(")
               for p in app[len("Playback(") : -1].split(",", 1)[0].split("&")]
    assert prompts and set(prompts) <= CORE_SOUNDS, prompts
    if DEBIAN_SOUNDS.is_dir():  # where the package is installed, the files themselves
        for prompt in prompts:
            assert list(DEBIAN_SOUNDS.glob(f"{prompt}.*")), prompt


def test_every_handoff_target_of_the_env_example_exists_in_the_samples():
    from ai_operator.config.routes import HandoffTarget

    env = env_example()
    ctx = {name: _priorities(items) for name, items in parse_conf(AST / "extensions.conf")}
    endpoints = {name for (name, kind) in by_type(parse_conf(AST / "pjsip.conf")) if kind == "endpoint"}
    targets = [HandoffTarget.parse(v) for k, v in env.items() if k.startswith("ROUTE_") and k.endswith("_HANDOFF")]
    assert targets
    for target in targets:
        if target.endpoint:
            assert target.endpoint.split("/", 1)[1] in endpoints, target
        else:
            assert target.context in ctx and target.extension in ctx[target.context], target


def test_readme_says_how_softphones_register_and_to_ingest_the_knowledge_base():
    text = (AST / "README.md").read_text()
    for needle in ("test-caller", "operator-desk", "5070", "kb ingest", "asterisk-core-sounds-en-gsm"):
        assert needle in text, needle
    assert "chan_local" not in text  # Asterisk 22 has no separate chan_local module


def test_doctor_names_the_parsed_handoff_target_of_every_enabled_route(tmp_path):
    from ai_operator.config import load_settings
    from ai_operator.doctor.dialogue_checks import policy_checks
    from tests.support.envfiles import example_text

    env = tmp_path / "ai-operator.env"
    env.write_text(example_text(ROUTE_FREIGHT_HANDOFF="PJSIP/operator-desk"))
    settings = load_settings(env, environ={})
    checks = {c.name: c for c in policy_checks(settings)}
    enabled = [r for r in settings.routes.values() if r.enabled]
    assert enabled
    for route in enabled:
        check = checks[f"route {route.name} handoff"]
        assert check.status == "OK", check
    assert checks["route test handoff"].detail == "dialplan ai-operator-handoff,operator,1"
    assert checks["route freight handoff"].detail == "endpoint PJSIP/operator-desk"
