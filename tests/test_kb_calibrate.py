"""`ai-operator kb calibrate` from the user's side, on real PostgreSQL: the gate fitted to the knowledge base and the
embedder (the offline hash one and an OpenAI-compatible one, the simulator), stored with them, and what a call
then answers: a question scoring between the default gate and the fitted one is answered or refused accordingly.
Another embedder: the default gate and doctor's warning. Bad labelled input: one line naming the file, line,
field and value; nothing stored."""

from __future__ import annotations

import asyncio
import io
import json
import os
import signal
import sys
from collections.abc import AsyncIterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from ai_operator.config.settings import Settings, build_settings
from ai_operator.console import run_console
from ai_operator.doctor.database_checks import database_checks
from ai_operator.kb import calibration as C
from ai_operator.kb.commands import kb_calibrate, kb_ingest
from ai_operator.kb.embeddings import build_embedder
from ai_operator.kb.store import KnowledgeBase
from ai_operator.sim.openai_server import FakeOpenAI
from ai_operator.sim.pbx import SimulatedPbx
from ai_operator.storage.database import Database
from policies.operator.region_data import REGIONS_BY_CODE
from tests.support import kb_calibrate as K
from tests.support import kb_gate as G
from tests.support.storage import fresh_dsn
from tests.support.wait import eventually
from tests.test_state_dir_lock import env_text

REPO = Path(__file__).resolve().parents[1]
SAMPLE = REPO / "etc" / "kb" / "sample.jsonl"
DEFAULT_GATE = K.PROFILE.scorer.gate
UNANSWERED = ("no_answer", "confirm")  # under the gate: no information, or a near article offered (no citation)
_measured: dict[str, list[K.Measured]] = {}  # per embedder: the sample set through the real search (deterministic)


@dataclass
class Base:
    """A fresh database with the sample knowledge base ingested, and the settings of an embedder."""

    settings: Settings
    embedder: str
    tmp: Path

    def with_embedder(self, embedder: str, server: FakeOpenAI) -> Base:
        return Base(settings_for(self.settings.storage.database_url, self.tmp, embedder, server), embedder, self.tmp)


def settings_for(dsn: str, state: Path, embedder: str, server: FakeOpenAI) -> Settings:
    extra = {"EMBEDDING_PROVIDER": "openai", "OPENAI_API_KEY": server.api_key, "OPENAI_BASE_URL": server.base_url,
             "LLM_PROVIDER": "none"} if embedder == "openai" else {}
    return build_settings([], environ={"DATABASE_URL": dsn, "STATE_DIR": str(state), "ROUTE_TEST_ENABLED": "true",
                                       "ROUTE_TEST_POLICY": "operator", **extra})


@pytest.fixture
async def server() -> AsyncIterator[FakeOpenAI]:
    async with FakeOpenAI() as fake:
        yield fake


async def ingested(tmp_path: Path, embedder: str, server: FakeOpenAI) -> Base:
    base = Base(settings_for(fresh_dsn(), tmp_path, embedder, server), embedder, tmp_path)
    out = io.StringIO()
    assert await kb_ingest(base.settings, SAMPLE, prune=False, reembed=False, out=out) == 0, out.getvalue()
    return base


async def measured(base: Base) -> list[K.Measured]:
    if base.embedder not in _measured:
        db = await Database.open(base.settings.storage.database_url, base.tmp)
        kb = KnowledgeBase(db, build_embedder(base.settings), K.PROFILE)
        try:
            _measured[base.embedder] = await K.measure(kb)
        finally:
            await kb.close()
            await db.close()
    return _measured[base.embedder]


async def calibrate(base: Base, labelled: Path | None, split: str = "calibration") -> tuple[int, list[str]]:
    out = io.StringIO()
    code = await kb_calibrate(base.settings, labelled, split, out)
    return code, out.getvalue().splitlines()


async def asked_in_a_call(base: Base, m: K.Measured) -> dict:
    """The question's turn in `ai-operator call` (Russian, from the question's region): its KB fields."""
    route = base.settings.route("test")
    assert route is not None
    out = io.StringIO()
    region = REGIONS_BY_CODE[m.item.region].name("ru")
    assert await run_console(base.settings, route, script=["по-русски", region, m.item.q], as_json=True, out=out) == 0
    turns = [json.loads(line) for line in out.getvalue().splitlines()]
    assert turns[-2]["region_code"] == m.item.region, turns[-2]
    return turns[-1]


def stored_line(lines: list[str]) -> str:
    return next(line for line in lines if line.startswith("chosen gate "))


@pytest.mark.parametrize("embedder", ["hash", "openai"])
async def test_a_calibrated_gate_is_the_one_a_call_answers_with(tmp_path: Path, server: FakeOpenAI,
                                                                 embedder: str) -> None:
    base = await ingested(tmp_path, embedder, server)
    data = await measured(base)
    lower, low_question = K.lower_set(data)
    fitted = low_question.reach
    assert fitted < DEFAULT_GATE  # how the set is made: answered at `fitted`, not at the default gate

    before = await asked_in_a_call(base, low_question)
    assert before["answer"] in UNANSWERED and before["gate"] == DEFAULT_GATE and "citations" not in before

    code, lines = await calibrate(base, K.write(tmp_path / "lower.jsonl", lower))
    assert code == 0, lines
    assert f"split calibration, {len(lower)} questions" in lines[0] and "knowledge base operator" in lines[0]
    rows = {float(line.split()[0]): line for line in lines if line.startswith("  0.")}
    assert sorted(rows) == list(C.GATES) and rows[fitted].endswith("<- chosen")
    assert rows[fitted].split()[1:4] == ["1.000", "1.000", "1.000"]  # precision, recall, out-of-scope rejected
    assert stored_line(lines).startswith(f"chosen gate {fitted:.2f}: stored with the knowledge base operator")

    after = await asked_in_a_call(base, low_question)
    assert after["answer"] == "kb" and after["gate"] == fitted and after["best"] == low_question.entry
    assert after["citations"]

    higher, mid_question = K.higher_set(data)
    assert (await asked_in_a_call(base, mid_question))["answer"] == "kb"  # above the fitted gate, and the default
    code, lines = await calibrate(base, K.write(tmp_path / "higher.jsonl", higher))
    assert code == 0, lines
    raised = float(stored_line(lines).split()[2].rstrip(":"))
    assert raised > mid_question.reach >= DEFAULT_GATE
    assert f"(was {fitted:.2f}, calibrated for " in stored_line(lines)
    refused = await asked_in_a_call(base, mid_question)
    assert refused["answer"] in UNANSWERED and refused["gate"] == raised, (refused, mid_question)

    checks = {c.name: c for c in await database_checks(base.settings)}
    assert checks["kb relevance gate"].status == "OK"
    assert f"gate {raised:.2f}, calibrated for " in checks["kb relevance gate"].detail


@pytest.mark.slow
async def test_the_daemon_says_at_start_which_gate_it_answers_with(tmp_path: Path, server: FakeOpenAI) -> None:
    base = await ingested(tmp_path, "hash", server)
    lower, low_question = K.lower_set(await measured(base))
    assert (await calibrate(base, K.write(tmp_path / "lower.jsonl", lower)))[0] == 0
    pbx = SimulatedPbx(user="ai-operator", password="pw-gate")
    env = tmp_path / "ai-operator.env"
    env.write_text(env_text(await pbx.start(), "pw-gate", tmp_path / "state", base.settings.storage.database_url))
    clean = {k: v for k, v in os.environ.items() if k != "NOTIFY_SOCKET"}
    proc = await asyncio.create_subprocess_exec(sys.executable, "-m", "ai_operator", "run", "--env", str(env),
                                                env=clean, stderr=asyncio.subprocess.PIPE)
    lines: list[dict] = []

    async def read_log() -> None:
        assert proc.stderr is not None
        async for raw in proc.stderr:
            if raw.startswith(b"{"):
                lines.append(json.loads(raw))

    reader = asyncio.create_task(read_log())
    try:
        await eventually(lambda: any(line.get("event") == "kb_gate" for line in lines), timeout=120,
                         what="the daemon's kb_gate line")
        gate = next(line for line in lines if line.get("event") == "kb_gate")
        assert gate["gate"] == low_question.reach and gate["calibrated"] is True
        assert gate["knowledge_base"] == "operator" and gate["source"].startswith("calibrated for hash-v2 dim 256 on ")
        proc.send_signal(signal.SIGTERM)
        assert await asyncio.wait_for(proc.wait(), timeout=120) == 0
    finally:
        if proc.returncode is None:
            proc.kill()
            await proc.wait()
        await reader
        await pbx.stop()


async def test_another_embedder_answers_at_the_default_gate_and_doctor_warns(tmp_path: Path,
                                                                            server: FakeOpenAI) -> None:
    hashed = await ingested(tmp_path, "hash", server)
    checks = {c.name: c for c in await database_checks(hashed.settings)}
    assert checks["kb relevance gate"].status == "OK"  # the default gate, with the embedder it was fitted with
    assert "gate 0.60, default: no calibration stored for hash-v2 dim 256" in checks["kb relevance gate"].detail
    data = await measured(hashed)
    lower, low_question = K.lower_set(data)
    assert (await calibrate(hashed, K.write(tmp_path / "lower.jsonl", lower)))[0] == 0

    remote = hashed.with_embedder("openai", server)
    checks = {c.name: c for c in await database_checks(remote.settings)}  # configured, not yet re-ingested
    assert checks["kb embedding dimension"].status == "FAIL"
    gate = checks["kb relevance gate"]
    assert gate.status == "WARN" and "calibrated only for hash-v2 dim 256" in gate.detail
    assert "EMBEDDING_PROVIDER is openai" in gate.detail and "kb calibrate" in gate.detail

    out = io.StringIO()
    assert await kb_ingest(remote.settings, SAMPLE, prune=False, reembed=True, out=out) == 0
    assert "1 calibrated gate(s) of another embedder dropped" in out.getvalue()
    turn = await asked_in_a_call(remote, low_question)
    assert turn["gate"] == DEFAULT_GATE, turn
    assert turn["answer"] == "kb" if turn["relevance"] >= DEFAULT_GATE else turn["answer"] in UNANSWERED, turn
    checks = {c.name: c for c in await database_checks(remote.settings)}
    gate = checks["kb relevance gate"]
    assert gate.status == "WARN" and "default: no calibration stored for openai:text-embedding-3-small dim 256" in gate.detail

    out = io.StringIO()  # back to the hash embedder: its calibration went with its vectors
    assert await kb_ingest(hashed.settings, SAMPLE, prune=False, reembed=True, out=out) == 0
    assert (await asked_in_a_call(hashed, low_question))["gate"] == DEFAULT_GATE


async def test_a_set_where_no_gate_meets_the_floors_stores_nothing(tmp_path: Path, server: FakeOpenAI) -> None:
    base = await ingested(tmp_path, "hash", server)
    wrong, _ = K.higher_set(await measured(base), all_wrong=True)
    code, lines = await calibrate(base, K.write(tmp_path / "wrong.jsonl", wrong))
    assert code == 1 and not any(line.startswith("chosen gate") for line in lines)
    assert lines[-1].startswith("kb calibrate: no gate reaches precision >= 0.95 and out-of-scope rejected >= 0.97")
    assert "nothing stored (the gate stays 0.60, default: no calibration stored for hash-v2 dim 256)" in lines[-1]
    checks = {c.name: c for c in await database_checks(base.settings)}
    assert "default: no calibration stored" in checks["kb relevance gate"].detail


def sample_lines(n: int | None = None) -> list[dict]:
    return [json.loads(line) for line in G.LABELLED.read_text(encoding="utf-8").splitlines()[:n]]


def jsonl(rows: list) -> str:
    return "".join((r if isinstance(r, str) else json.dumps(r, ensure_ascii=False)) + "\n" for r in rows)


BAD = [
    ("invalid JSON", lambda rows: [*rows[:2], '{"q": "интернет"', *rows[2:]],
     ":3: invalid JSON (Expecting ',' delimiter"),
    ("a language not the knowledge base's", lambda rows: [*rows[:4], {**rows[4], "lang": "de"}],
     ":5: field lang: 'de' is not a language of the knowledge base operator (allowed: ru, kk)"),
    ("an unknown region", lambda rows: [{**rows[0], "region": "Almaty"}],
     ":1: field region: unknown region 'Almaty' (allowed: an ISO 3166-2 code such as KZ-71)"),
    ("expect not a list", lambda rows: [rows[0], {**rows[1], "expect": "internet-tariffs"}],
     ':2: field expect: "internet-tariffs" is not a list of entry ids'),
    ("a missing question", lambda rows: [{k: v for k, v in rows[0].items() if k != "q"}],
     ":1: missing field q (each line: a JSON object with q, lang, region, expect, split)"),
    ("an unknown entry id", lambda rows: [*rows[:6], {**rows[6], "expect": ["internet-tarifs"]}, *rows[7:]],
     ":7: field expect: 'internet-tarifs' is no entry of the knowledge base operator (allowed: an entry id, or "
     "one without its language prefix"),
]


@pytest.mark.parametrize(("case", "spoil", "message"), BAD, ids=[b[0] for b in BAD])
async def test_bad_labelled_input_is_one_line_and_nothing_is_stored(tmp_path: Path, server: FakeOpenAI, case: str,
                                                                     spoil, message: str) -> None:
    base = await ingested(tmp_path, "hash", server)
    rows = sample_lines()  # the sample set, one line of it spoiled
    path = tmp_path / "labelled.jsonl"
    path.write_text(jsonl(spoil(rows)), encoding="utf-8")
    code, lines = await calibrate(base, path)
    assert code == 2 and len(lines) == 1, lines
    assert lines[0].startswith(f"kb calibrate: {path}{message}"), (case, lines)
    checks = {c.name: c for c in await database_checks(base.settings)}
    assert "default: no calibration stored" in checks["kb relevance gate"].detail


async def test_a_missing_file_an_unknown_split_and_too_few_lines_are_one_line(tmp_path: Path,
                                                                             server: FakeOpenAI) -> None:
    base = await ingested(tmp_path, "hash", server)
    code, lines = await calibrate(base, tmp_path / "nowhere.jsonl")
    assert code == 2 and lines == [f"kb calibrate: cannot read {tmp_path / 'nowhere.jsonl'}: No such file or directory"]
    code, lines = await calibrate(base, None, split="held-out-99")
    assert code == 2 and len(lines) == 1
    splits = ", ".join(sorted({row.split for row in G.load()}))
    assert lines == [f"kb calibrate: --split 'held-out-99': no line of {G.LABELLED} has that split (its splits: {splits})"]
    few = tmp_path / "few.jsonl"
    few.write_text(jsonl(sample_lines(40)), encoding="utf-8")
    code, lines = await calibrate(base, few)
    inside = sum(bool(r["expect"]) for r in sample_lines(40))
    assert code == 2 and lines == [
        f"kb calibrate: {few} split calibration: {inside} in-scope and {40 - inside} out-of-scope questions, too few "
        f"to fit a gate (at least {C.MIN_IN_SCOPE} and {C.MIN_OUT_OF_SCOPE}); nothing stored"]
    checks = {c.name: c for c in await database_checks(base.settings)}
    assert "default: no calibration stored" in checks["kb relevance gate"].detail
