"""Input that loses nothing (issue 24.5): `kb ingest` of a file with bad lines stores every good line and reports
each bad one with its number, entry and reason, one line each, then exits 1. A language the knowledge base does
not admit, a \\u0000 escape, a lone surrogate, an entry over the size limit, a runaway line: each is one rejected
line, never an aborted file. The languages accepted are those of the policy's knowledge base (its
`KnowledgeProfile`); the database's CHECK has the validator's shape of a code, so nothing the validator passes is
refused by the table. A UTF-8 BOM (JSONL or env file) is accepted."""

from __future__ import annotations

import io
import json
import re
from importlib import resources
from pathlib import Path

import pytest

from ai_operator.config import load_settings
from ai_operator.config.settings import Settings, build_settings
from ai_operator.kb.commands import accepted_languages, kb_ingest, kb_search
from ai_operator.kb.ingest import (
    LANGUAGE_PATTERN,
    LANGUAGE_RE,
    MAX_FIELD_CHARS,
    MAX_LINE_BYTES,
    MAX_TAGS,
    MAX_TEXT_CHARS,
    parse_kb_lines,
)
from policies.operator.knowledge import KNOWLEDGE
from tests.support.envfiles import example_text
from tests.support.storage import fresh_dsn

SAMPLE = Path(__file__).resolve().parent.parent / "etc" / "kb" / "sample.jsonl"


def entry(**over: object) -> dict:
    base: dict[str, object] = {"id": "e1", "language": "ru", "regions": ["*"], "title": "Т", "text": "Текст.", "source": "doc-1"}
    base.update(over)
    return {k: v for k, v in base.items() if v is not None}


def line(**over: object) -> str:
    return json.dumps(entry(**over), ensure_ascii=False)


def settings_for(dsn: str, state: Path) -> Settings:
    return build_settings([], environ={"DATABASE_URL": dsn, "STATE_DIR": str(state)})


# --- the validator (pure) ------------------------------------------------------------------------------------------

def test_the_accepted_languages_are_the_knowledge_bases() -> None:
    assert accepted_languages(build_settings([], environ={})) == KNOWLEDGE.languages == ("ru", "kk")


@pytest.mark.parametrize("language", ["en", "de", "xx", "hi"])
def test_a_language_the_knowledge_base_does_not_admit_is_one_rejected_line(language: str) -> None:
    lines = [line(id="a"), line(id="b", language=language), line(id="c", language="kk")]
    entries, rejects = parse_kb_lines(lines, KNOWLEDGE)
    assert [e.id for e in entries] == ["a", "c"]
    assert [r.line for r in rejects] == [2]
    assert rejects[0].reason == (f"entry b: field language: {language!r} is not a language of the knowledge base "
                                 "operator (allowed: kk, ru)")


@pytest.mark.parametrize("field", ["id", "title", "text", "source"])
@pytest.mark.parametrize("bad, why", [("\u0000", "NUL character"), ("\ud800", "lone surrogate")])
def test_a_character_the_database_cannot_store_is_one_rejected_line(field: str, bad: str, why: str) -> None:
    raw = json.dumps(entry(**{"id": "bad", field: f"x{bad}y"}))  # ASCII JSON: the escape as a file has it
    assert "\\u" in raw
    entries, rejects = parse_kb_lines([line(id="ok-1"), raw, line(id="ok-2")], KNOWLEDGE)
    assert [e.id for e in entries] == ["ok-1", "ok-2"]
    assert len(rejects) == 1 and rejects[0].line == 2
    entry_named = "" if field == "id" else "entry bad: "  # the id is named once it is read
    assert rejects[0].reason.startswith(f"{entry_named}field {field}: contains a {why}")


def test_nul_in_a_tag_or_date_is_rejected_too() -> None:
    raws = [json.dumps(entry(id="t", tags=["a\u0000"])), json.dumps(entry(id="d", updated_at="2026\u0000"))]
    entries, rejects = parse_kb_lines(raws, KNOWLEDGE)
    assert entries == [] and [r.reason.split(": ")[:2] for r in rejects] == [["entry t", "field tags"],
                                                                            ["entry d", "field updated_at"]]


def test_an_entry_over_the_size_limit_is_rejected_with_the_limit() -> None:
    long_text = "слово " * (MAX_TEXT_CHARS // 6 + 1)
    at_limit = "я" * MAX_TEXT_CHARS
    entries, rejects = parse_kb_lines([line(id="long", text=long_text), line(id="edge", text=at_limit)], KNOWLEDGE)
    assert [e.id for e in entries] == ["edge"]
    assert rejects[0].line == 1
    assert rejects[0].reason == f"entry long: field text: {len(long_text.strip())} characters, over the limit of {MAX_TEXT_CHARS}"


@pytest.mark.parametrize("field", ["title", "source", "updated_at"])
def test_each_text_field_has_a_bound(field: str) -> None:
    limit = MAX_FIELD_CHARS[field]
    _, rejects = parse_kb_lines([line(**{field: "z" * (limit + 1)})], KNOWLEDGE)
    assert rejects[0].reason == f"entry e1: field {field}: {limit + 1} characters, over the limit of {limit}"
    entries, _ = parse_kb_lines([line(**{field: "z" * limit})], KNOWLEDGE)
    assert len(entries) == 1


def test_too_many_tags_and_a_runaway_line_are_rejected() -> None:
    huge = json.dumps(entry(id="huge", text="junk " * (MAX_LINE_BYTES // 4))).encode()
    entries, rejects = parse_kb_lines([json.dumps(entry(id="tags", tags=["t"] * (MAX_TAGS + 1))).encode(), huge,
                                       line(id="fine").encode()], KNOWLEDGE)
    assert [e.id for e in entries] == ["fine"]
    assert rejects[0].reason == f"entry tags: field tags: {MAX_TAGS + 1} tags, over the limit of {MAX_TAGS}"
    assert rejects[1].line == 2 and rejects[1].reason.startswith(f"line of {len(huge)} bytes, over the limit")


@pytest.mark.parametrize("first", [b"\xef\xbb\xbf", "\ufeff"])
def test_a_bom_on_the_first_line_is_accepted(first: bytes | str) -> None:
    head: bytes | str = first + line(id="bom").encode() if isinstance(first, bytes) else first + line(id="bom")
    entries, rejects = parse_kb_lines([head, line(id="next")], KNOWLEDGE)
    assert rejects == [] and [e.id for e in entries] == ["bom", "next"]


def test_the_database_check_has_the_validators_shape_of_a_language() -> None:
    sql = resources.files("ai_operator.storage").joinpath("migrations", "0003_kb_language_code.sql").read_text()
    checks = re.findall(r"CHECK \(language ~ '([^']+)'\)", sql)
    assert checks == [LANGUAGE_PATTERN]
    assert all(LANGUAGE_RE.match(code) for code in KNOWLEDGE.languages)


def test_an_env_file_with_a_bom_is_read(tmp_path: Path) -> None:
    env = tmp_path / "bom.env"
    rest = re.sub(r"^MAX_CALLS=.*$", "", example_text(), flags=re.M)
    env.write_bytes(b"\xef\xbb\xbf" + b"MAX_CALLS=7\n" + rest.encode())  # the BOM right before the first key
    settings = load_settings(env, environ={})
    assert settings.call.max_calls == 7
    assert not any("unknown key" in w for w in settings.warnings), settings.warnings


# --- through the database ------------------------------------------------------------------------------------------

async def test_bad_lines_are_reported_one_each_and_every_good_line_lands(tmp_path: Path) -> None:
    settings = settings_for(fresh_dsn(), tmp_path)
    sample = SAMPLE.read_text(encoding="utf-8").splitlines()
    junk = "интернет оплата как оплатить " * (MAX_TEXT_CHARS // 10)  # would outrank the real answer
    lines = [
        "\ufeff" + sample[0],
        line(id="de-1", language="de"),  # not a language of the operator's knowledge base
        json.dumps(entry(id="nul-1", text="оплата\u0000")),
        *sample[1:10],
        line(id="junk-1", title="Оплата", text=junk, regions=["*"]),
        json.dumps(entry(id="sur-1", title="\ud83d")),
        line(id="hi-1", language="hi", title="भुगतान", text="ऑनलाइन भुगतान करें।"),  # freight's, not the KB's
        *sample[10:],
    ]
    path = tmp_path / "kb.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    out = io.StringIO()
    assert await kb_ingest(settings, path, prune=False, reembed=False, out=out) == 1
    text = out.getvalue().splitlines()
    good = len(sample)
    assert text[0] == (f"kb ingest {path}: read={len(lines)} inserted={good} updated=0 unchanged=0 rejected=5 "
                       "pruned=0")
    assert [t.split(": ", 1)[0] for t in text[1:]] == [f"  {path}:{n}" for n in (2, 3, 13, 14, 15)]
    assert text[1] == f"  {path}:2: entry de-1: field language: 'de' is not a language of the knowledge base " \
                      "operator (allowed: kk, ru)"
    assert "NUL character" in text[2] and f"over the limit of {MAX_TEXT_CHARS}" in text[3]
    assert "lone surrogate" in text[4] and "entry hi-1: field language: 'hi'" in text[5]

    out = io.StringIO()
    assert await kb_search(settings, "Как оплатить интернет?", "ru", "KZ-35", True, out) == 0
    hits = json.loads(out.getvalue())
    assert hits[0]["entry_id"] == "ru-payment-methods" and hits[0]["relevance"] >= hits[0]["gate"]
    assert "junk-1" not in {h["entry_id"] for h in hits}

    again = io.StringIO()  # the same file again: the good lines are unchanged, the bad ones reported again
    assert await kb_ingest(settings, path, prune=False, reembed=False, out=again) == 1
    assert f"inserted=0 updated=0 unchanged={good} rejected=5" in again.getvalue()


async def test_a_file_with_only_good_lines_exits_0(tmp_path: Path) -> None:
    settings = settings_for(fresh_dsn(), tmp_path)
    path = tmp_path / "kb.jsonl"
    path.write_bytes(b"\xef\xbb\xbf" + "\n".join([line(id="a"), line(id="b", language="kk")]).encode() + b"\n")
    out = io.StringIO()
    assert await kb_ingest(settings, path, prune=False, reembed=False, out=out) == 0
    assert "read=2 inserted=2" in out.getvalue() and "rejected=0" in out.getvalue()
