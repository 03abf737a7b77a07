"""What the runtime assumes of every policy, checked on every policy there is: the shipped ones (policies/) and the
test-only ones (tests/policies/: `survey`, `dispatch`), each started the way the runtime starts it (a bound route
of the example env file, `wiring.new_session`). This test, not a grep, is what proves "a policy is a folder": a
new folder under policies/ is checked here without an edit (it fails until the contract env has a route for it).

Checked: the first line's language is one the policy declares, and every line it may voice has an espeak-ng
voice (the fallback voice of every call); the state field is in every reply; a forced end (shutdown,
max_call_length) hangs up with a line and a disposition; tool names are unique and each is answered by
`call_tool`; route options do not shadow the runtime's; file options name a folder key and refuse a missing file
with one line naming it."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from ai_operator.config import ROUTE_OPTIONS, Route, Settings, load_settings
from ai_operator.dialogue import PolicyDefinition, PolicySession, Reply, file_options
from ai_operator.doctor.system_checks import espeak_voices
from ai_operator.route_binding import bind_routes, route_view
from ai_operator.wiring import new_session
from policies import load_policy
from tests.support.envfiles import example_text

REPO = Path(__file__).resolve().parents[1]
TEST_POLICIES = REPO / "tests" / "policies"
POLICY_NAMES = sorted(p.name for folder in (REPO / "policies", TEST_POLICIES) for p in folder.iterdir()
                      if (p / "__init__.py").is_file())
CONTRACT_ROUTES = {  # the example env file's routes, plus one for each test-only policy
    "POLICY_PATH": str(TEST_POLICIES),
    "ROUTE_SURVEY_ENABLED": "true", "ROUTE_SURVEY_POLICY": "survey",
    "ROUTE_DISPATCH_ENABLED": "true", "ROUTE_DISPATCH_POLICY": "dispatch",
    "ROUTE_DISPATCH_STOPS_DIR": str(TEST_POLICIES / "dispatch" / "stops"), "ROUTE_DISPATCH_STOPS": "sample.jsonl",
}
FORCED_ENDS = ("shutdown", "max_call_length")
MAX_EFFECTS = 6  # effects one event may chain before the policy must answer


@pytest.fixture(scope="module")
def settings(tmp_path_factory: pytest.TempPathFactory) -> Settings:
    env = tmp_path_factory.mktemp("contract") / "ai-operator.env"
    env.write_text(example_text(**CONTRACT_ROUTES), encoding="utf-8")
    return bind_routes(load_settings(env, environ={}))


def route_of(settings: Settings, name: str) -> Route:
    route = next((r for r in settings.routes.values() if r.enabled and r.policy == name), None)
    assert route is not None, f"no enabled route runs policy {name}: add one to CONTRACT_ROUTES"
    return route


def answered(session: PolicySession, reply: Reply) -> Reply:
    """The reply after its effects ran with nothing to give (no knowledge base, no model), as the runtime would."""
    for _ in range(MAX_EFFECTS):
        if reply.effect is None:
            return reply
        reply = session.on_effect_result(None)
    raise AssertionError(f"{MAX_EFFECTS} effects in a row without an answer: {reply.effect}")


def conversation(session: PolicySession, policy: PolicyDefinition) -> Iterator[tuple[str, Reply]]:
    """Every kind of event the runtime feeds, as (event, reply): the demo caller's lines until the call ends, and
    on a second session the silence, not-heard and key-press events."""
    yield "start", answered(session, session.start())
    for _, text in policy.demo_caller:
        reply = answered(session, session.on_utterance(text))
        yield f"utterance {text!r}", reply
        if reply.hang_up:
            break


def test_every_policy_folder_is_checked() -> None:
    assert {"operator", "freight", "survey", "dispatch"} <= set(POLICY_NAMES)


@pytest.mark.parametrize("name", POLICY_NAMES)
def test_what_the_runtime_assumes_of_the_policy(settings: Settings, name: str) -> None:
    policy = load_policy(name)
    route = route_of(settings, name)
    assert policy.languages and policy.state_field in policy.turn_fields

    def start(call_id: str) -> PolicySession:
        session = new_session(settings, route, f"{name}-{call_id}")
        assert session.hold_s >= 0  # the runtime sets it from the route's HOLD_S
        return session

    replies = list(conversation(start("talk"), policy))
    other = start("events")
    replies.append(("start", answered(other, other.start())))
    for event, make in (("silence", other.on_silence), ("not heard", other.on_not_heard),
                        ("key 5", lambda: other.on_dtmf("5"))):
        replies.append((event, answered(other, make())))
    for reason in FORCED_ENDS:
        ending = start(reason)
        ending.start()
        reply = ending.on_forced_end(reason)
        replies.append((f"forced end {reason}", reply))
        assert reply.hang_up and reply.disposition and reply.text, f"{name}: forced end {reason}: {reply}"

    assert replies[0][1].text and replies[0][1].language in policy.languages, f"{name}: first line {replies[0][1]}"
    for event, reply in replies:
        assert policy.state_field in reply.fields, f"{name}: {event}: no {policy.state_field!r} in {reply.fields}"
        assert reply.language in policy.languages, f"{name}: {event}: undeclared language {reply.language!r}"

    voiced = [*policy.canned_lines(route_view(settings, route)), *((r.text, r.language) for _, r in replies if r.text)]
    languages = {lang for text, language in voiced for _, lang in policy.voice_segments(text, language)}
    assert languages <= set(policy.languages), f"{name}: lines in {languages - set(policy.languages)}"
    voices = espeak_voices(sorted(languages))
    assert voices.status == "OK", f"{name}: {voices.detail}"


@pytest.mark.parametrize("name", POLICY_NAMES)
def test_tools_are_unique_and_dispatchable(settings: Settings, name: str) -> None:
    policy = load_policy(name)
    names = [tool.name for tool in policy.tools]
    assert len(names) == len(set(names)), f"{name}: a tool declared twice in {names}"
    session = new_session(settings, route_of(settings, name), f"{name}-tools")
    session.start()
    refused = session.call_tool("no_such_tool", {})
    assert not refused.allowed and refused.reason
    for tool in policy.tools:  # each is known to the session: not refused the way an unknown name is
        assert tool.as_openai()["function"]["name"] == tool.name
        decision = session.call_tool(tool.name, {})
        unknown = refused.reason.replace("no_such_tool", tool.name)
        assert decision.name == tool.name and decision.reason and decision.reason != unknown, \
            f"{name}: tool {tool.name} is declared but not dispatched: {decision}"


@pytest.mark.parametrize("name", POLICY_NAMES)
def test_options_do_not_shadow_the_runtime_and_files_are_refused_by_name(name: str, tmp_path: Path) -> None:
    policy = load_policy(name)
    assert not set(policy.route_options) & set(ROUTE_OPTIONS), f"{name}: a route option shadows the runtime's"
    for key, spec in file_options(policy).items():
        assert key == key.lower() and "," not in key and "=" not in key, f"{name}: file option {key!r}"
        assert spec.folder == spec.folder.upper() and spec.folder not in policy.route_options
        assert spec.folder not in ROUTE_OPTIONS
        missing = tmp_path / "missing.file"
        with pytest.raises((ValueError, OSError)) as err:
            spec.read(missing)
        assert str(missing) in str(err.value) and "\n" not in str(err.value)
