"""Issue 13 end to end: `ai-operator call --json` with ASR-style callers, one conversation per class mix.

Each script crosses several classes the way a real call does (a negated language choice, a Kazakh place with a
copula, a street or a surname that is not a region, a Kazakh one-step region change, a Kazakh goodbye, a
handoff asked in other words)."""

from __future__ import annotations

from tests.support.console import console_turns


def test_kazakh_caller_negates_russian_changes_region_and_says_goodbye(tmp_path):
    out = console_turns(tmp_path, "test", [
        "ну только не на русском",
        "қарағандыданмын",
        "аймақты павлодарға ауыстырыңыз",
        "рақмет сау болыңыз",
    ])
    assert [t["language"] for t in out[1:]] == ["kk"] * 4
    assert [t["region_code"] for t in out[2:4]] == ["KZ-35", "KZ-55"]
    assert out[3]["tool_calls"][0]["name"] == "set_region" and out[3]["state"] == "READY_TO_HELP"
    last = out[4]
    assert last["hang_up"] and last["state"] == "CLOSING" and last["disposition"] == "completed"


def test_russian_caller_street_then_correction_then_handoff(tmp_path):
    out = console_turns(tmp_path, "test", [
        "по казахски я не понимаю",
        "на павлодарской улице",
        "ерлан актобеев",
        "не караганда а павлодар",
        "ты бот соедини с человеком",
    ])
    assert out[1]["language"] == "ru" and out[1]["state"] == "REGION_SELECTION"
    assert out[2]["region_code"] == "" and out[3]["region_code"] == ""  # a street, a surname: asked again
    assert out[4]["region_code"] == "KZ-55" and out[4]["state"] == "READY_TO_HELP"
    assert out[5]["transfer"] and out[5]["state"] == "HANDOFF"
    assert not any(c["name"] == "search_knowledge_base" for c in out[5]["tool_calls"])


def test_correction_almaty_negated_answer_and_kazakh_handoff_before_region(tmp_path):
    out = console_turns(tmp_path, "test", [
        "сначала казахский нет давайте русский",
        "алматы",
        "не город а область",
    ])
    assert out[1]["language"] == "ru"
    assert out[2]["region_code"] == "" and "Алматинская область" in out[2]["reply"]
    assert out[3]["region_code"] == "KZ-19"
    kk = console_turns(tmp_path, "test", ["мемлекеттік тілде", "маманмен байланыстырыңызшы"])
    assert kk[1]["language"] == "kk" and kk[2]["state"] == "HANDOFF" and kk[2]["transfer"]
    assert kk[2]["region_code"] == ""  # taken as a handoff, not as a region answer
