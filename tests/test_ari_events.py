"""The ARI event parser against Asterisk 22's events.json: required fields exactly as the spec, types checked,
unknown types tolerated, malformed events reported with type, field and reason."""

from __future__ import annotations

import copy
import json

import pytest

from ai_operator.ari import EventError, parse_event
from ai_operator.ari.events import BASE_FIELDS, EVENT_TYPES, ChannelDtmfReceived, StasisStart, UnknownEvent
from ai_operator.ari.models import MODELS
from tests.support.ari_contract import AriSpec


@pytest.fixture(scope="module")
def spec() -> AriSpec:
    return AriSpec.load()  # $AI_OPERATOR_ARI_SPEC, else tests/data/asterisk-ari


CHANNEL = {
    "id": "1764480000.7",
    "name": "PJSIP/caller-00000007",
    "state": "Ring",
    "protocol_id": "abc@host",
    "caller": {"name": "", "number": "+77010000001"},
    "connected": {"name": "", "number": ""},
    "accountcode": "",
    "dialplan": {
        "context": "from-pstn",
        "exten": "s",
        "priority": 1,
        "app_name": "Stasis",
        "app_data": "ai-operator,test",
    },
    "creationtime": "2026-11-30T05:16:54.123+0000",
    "language": "en",
}
BRIDGE = {
    "id": "b1",
    "technology": "simple_bridge",
    "bridge_type": "mixing",
    "bridge_class": "stasis",
    "creator": "Stasis",
    "name": "",
    "channels": ["1764480000.7"],
    "creationtime": "2026-11-30T05:16:54.200+0000",
}
BASE = {
    "application": "ai-operator",
    "timestamp": "2026-11-30T05:16:55.001+0000",
    "asterisk_id": "52:54:00:00:00:01",
}
SAMPLES = {
    "StasisStart": {"args": ["test"], "channel": CHANNEL},
    "StasisEnd": {"channel": CHANNEL},
    "ChannelDestroyed": {"cause": 16, "cause_txt": "Normal Clearing", "channel": CHANNEL},
    "ChannelHangupRequest": {"cause": 16, "soft": True, "channel": CHANNEL},
    "ChannelDtmfReceived": {"digit": "#", "duration_ms": 120, "channel": CHANNEL},
    "ChannelStateChange": {"channel": CHANNEL},
    "ChannelVarset": {"variable": "X", "value": "1", "channel": CHANNEL},
    "ChannelEnteredBridge": {"bridge": BRIDGE, "channel": CHANNEL},
    "ChannelLeftBridge": {"bridge": BRIDGE, "channel": CHANNEL},
    "BridgeDestroyed": {"bridge": BRIDGE},
    "ApplicationReplaced": {},
    "Dial": {"peer": CHANNEL, "dialstatus": "ANSWER", "dialstring": "100"},
}


def sample(event_type: str) -> dict:
    return copy.deepcopy({"type": event_type, **BASE, **SAMPLES[event_type]})


def test_every_modelled_event_has_a_sample_that_matches_the_spec(spec):
    assert set(SAMPLES) == set(EVENT_TYPES)
    for name in EVENT_TYPES:
        assert spec.check_model(name, sample(name)) == [], name
        ev = parse_event(json.dumps(sample(name)))
        assert type(ev).__name__ == name and ev.type == name and ev.application == "ai-operator"


@pytest.mark.parametrize("name", sorted(EVENT_TYPES))
def test_event_field_tables_match_events_json_exactly(spec, name):
    fields = {f.name: f for f in BASE_FIELDS + EVENT_TYPES[name].FIELDS}
    props = spec.properties(name)
    assert set(fields) == set(props), name
    for fname, f in fields.items():
        assert f.required == bool(props[fname].get("required")), (name, fname)
        assert f.kind == props[fname]["type"], (name, fname)


@pytest.mark.parametrize("model", sorted(MODELS))
def test_model_field_tables_match_the_spec_exactly(spec, model):
    fields = {f.name: f for f in MODELS[model].FIELDS}
    props = spec.properties(model)
    assert set(fields) == set(props)
    for fname, f in fields.items():
        assert f.required == bool(props[fname].get("required")), (model, fname)
        assert f.kind == props[fname]["type"], (model, fname)


@pytest.mark.parametrize("name", sorted(EVENT_TYPES))
def test_removing_any_required_field_is_reported_with_type_and_field(spec, name):
    required = sorted(spec.required(name) - {"type"})
    assert {"application", "timestamp"} <= set(required)  # at least the Event base fields are exercised
    for fname in required:
        data = sample(name)
        del data[fname]
        with pytest.raises(EventError) as info:
            parse_event(data)
        assert info.value.event_type == name and info.value.field == fname
        assert name in str(info.value) and fname in str(info.value) and "missing" in str(info.value)


def test_nested_required_fields_are_checked_with_a_dotted_path():
    data = sample("StasisStart")
    del data["channel"]["dialplan"]["priority"]
    with pytest.raises(EventError) as info:
        parse_event(data)
    assert info.value.field == "channel.dialplan.priority"


@pytest.mark.parametrize(
    ("event_type", "field", "value", "needle"),
    [
        ("ChannelDtmfReceived", "duration_ms", "120", "expected int"),
        ("ChannelDtmfReceived", "duration_ms", True, "expected int"),
        ("StasisStart", "args", "test", "expected list"),
        ("StasisStart", "timestamp", "yesterday", "not an ARI date"),
        ("ChannelHangupRequest", "soft", "yes", "expected boolean"),
        ("ChannelDestroyed", "cause_txt", 16, "expected string"),
    ],
)
def test_wrong_types_are_reported(event_type, field, value, needle):
    data = sample(event_type)
    data[field] = value
    with pytest.raises(EventError) as info:
        parse_event(data)
    assert info.value.field == field and needle in info.value.reason


def test_bad_json_and_non_objects_raise_event_error():
    with pytest.raises(EventError, match="invalid JSON"):
        parse_event('{"type": "StasisStart", ')
    with pytest.raises(EventError, match="expected a JSON object"):
        parse_event("[1, 2]")
    with pytest.raises(EventError) as info:
        parse_event({"application": "x"})
    assert info.value.field == "type"


def test_unknown_event_types_are_returned_not_raised():
    ev = parse_event({"type": "ChannelTalkingStarted", "application": "ai-operator", "whatever": 1})
    assert isinstance(ev, UnknownEvent) and ev.type == "ChannelTalkingStarted" and ev.raw["whatever"] == 1


def test_typed_values_are_exposed():
    ev = parse_event(sample("ChannelDtmfReceived"))
    assert isinstance(ev, ChannelDtmfReceived) and ev.digit == "#" and ev.duration_ms == 120
    assert ev.channel.caller.number == "+77010000001" and ev.channel.dialplan.priority == 1
    start = parse_event(sample("StasisStart"))
    assert (
        isinstance(start, StasisStart)
        and start.replace_channel is None
        and start.asterisk_id.startswith("52:")
    )
    data = sample("StasisStart")
    data["channel"]["channelvars"] = {"UNICASTRTP_LOCAL_PORT": "4000"}
    assert parse_event(data).channel.var("UNICASTRTP_LOCAL_PORT") == "4000"
