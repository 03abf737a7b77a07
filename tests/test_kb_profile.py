"""The knowledge base knows no policy's facts (issue 25.2): its languages, its scope and its relevance scorer are
the policy's `KnowledgeProfile`. A test-only profile - English entries scoped by depot, a small parcel-service
lexicon and no morphology - is ingested and searched in the same embedded PostgreSQL as the operator's Russian
and Kazakh entries scoped by region, and each knowledge base sees only its own; a line of a language the profile
does not admit is one rejected line naming the file, line, entry, field, value and what is allowed."""

from __future__ import annotations

import dataclasses
import io
import json
from pathlib import Path

import psycopg
import pytest

from ai_operator.config.settings import build_settings
from ai_operator.dialogue import KnowledgeProfile, KnowledgeScope
from ai_operator.doctor.database_checks import database_checks
from ai_operator.kb.commands import kb_ingest
from ai_operator.kb.embeddings import HashEmbedder
from ai_operator.kb.ingest import parse_kb_lines
from ai_operator.kb.relevance import Scorer
from ai_operator.kb.store import KnowledgeBase
from ai_operator.storage.migrate import apply_migrations
from policies.operator.knowledge import KNOWLEDGE as OPERATOR
from tests.support.storage import fresh_dsn


class ParcelLexicon:
    """A lexicon in the operator lexicon's format (policies/operator/lexicon.py), for a parcel service."""

    MAX_CONCEPT_TAIL = 4
    FILLER_WORDS = "the a an is are do does did how what when where can i my me you your to of for in on at it " \
                   "please hello hi there which there will be"
    CONCEPTS = """
pickup 1.0: pick= pickup collect
parcel 0.7: parcel package
hours 1.0: hours opening open=
price 0.5: cost price fee
delivery 1.0: delivery deliver
depot 0.3: depot
leeds 1.0: leeds
york 1.0: york
"""
    PLACES = "leeds york"
    PHRASES = "pickup: pick up"
    COMBINATIONS = ""
    DETACHED_ENDINGS = ""
    LIGHT_VERBS = ""
    NEGATORS = "not"
    PREFIX_NEGATORS = "not"
    NEGATED_VERBS = "work"
    NEGATED_NOUNS = ""
    ENDINGS = "s es ed ing"
    PHRASE_GAP = ""
    IMPLIES = ""
    LOCATED = ""
    ADDRESS = ""
    MOTION = ""
    CLAUSE_OPENERS = ""
    CIRCUMSTANCES = ""


class NoMorphology:
    """Words as they are: no letters folded, no lemmas, no parts of speech."""

    def __init__(self) -> None:
        self.letters: dict[str, str] = {}
        self.spellings: dict[str, str] = {}
        self.converb_endings: tuple[str, ...] = ()

    def normal_forms(self, word: str) -> tuple[str, ...]:
        return (word,)

    def dictionary_pos(self, word: str) -> str:
        return ""

    def is_verb_form(self, word: str) -> bool:
        return False

    def stem_first(self, word: str) -> bool:
        return False

    def not_negation(self, negator: str, word: str) -> bool:
        return False

    def negated_verb(self, word: str) -> bool:
        return False

    def aside(self, word: str, before: tuple[str, ...]) -> str:
        return ""

    def ends_clause(self, word: str) -> bool:
        return False

    def warm_up(self) -> None:
        return None


DEPOT = KnowledgeProfile(
    name="parcels",
    languages=("en",),
    scope=KnowledgeScope(key="depot", field="depots", everywhere="any", pattern=r"D[0-9]{3}",
                         example="a depot code such as D101"),
    scorer=Scorer(ParcelLexicon(), NoMorphology()),
)
ENTRIES = [
    {"id": "en-hours", "language": "en", "depots": ["any"], "title": "Opening hours",
     "text": "Every depot is open from seven in the morning to seven in the evening on weekdays.",
     "source": "depot-handbook#hours"},
    {"id": "en-pickup-d101", "language": "en", "depots": ["D101"], "title": "Parcel pickup at the Leeds depot",
     "text": "At the Leeds depot parcels are collected at gate three.", "source": "leeds-notes"},
    {"id": "en-pickup-d202", "language": "en", "depots": ["D202"], "title": "Parcel pickup at the York depot",
     "text": "At the York depot parcels are collected at the front desk.", "source": "york-notes"},
    {"id": "en-price", "language": "en", "depots": ["any"], "title": "Delivery prices",
     "text": "A standard delivery costs five pounds. A next day delivery costs nine pounds.",
     "source": "depot-handbook#prices"},
]
RUSSIAN = {"id": "en-ru", "language": "ru", "depots": ["any"], "title": "Доставка", "text": "Текст.", "source": "x"}
BY_NAME = {"id": "en-leeds", "language": "en", "depots": ["Leeds"], "title": "Leeds", "text": "Text.", "source": "x"}
LINES = [json.dumps(e, ensure_ascii=False) for e in (*ENTRIES, RUSSIAN, BY_NAME)]


def test_a_line_the_profile_does_not_admit_is_one_line_naming_entry_field_value_and_what_is_allowed() -> None:
    entries, rejects = parse_kb_lines(LINES, DEPOT)
    assert [e.id for e in entries] == [e["id"] for e in ENTRIES]
    assert [e.scopes for e in entries] == [("any",), ("D101",), ("D202",), ("any",)]
    assert [str(r) for r in rejects] == [
        "line 5: entry en-ru: field language: 'ru' is not a language of the knowledge base parcels (allowed: en)",
        "line 6: entry en-leeds: field depots: unknown depot 'Leeds' (allowed: a depot code such as D101, "
        'or "any" for all)',
    ]
    # the operator's knowledge base refuses these lines the same way: another language, and no `regions` field
    _, theirs = parse_kb_lines(LINES[:1], OPERATOR)
    assert [str(r) for r in theirs] == ["line 1: missing field regions"]


async def test_two_policies_knowledge_bases_share_one_database_and_see_only_their_own(kb: KnowledgeBase) -> None:
    question = "как оплатить интернет"
    before = [(h.entry_id, h.relevance) for h in await kb.search(question, "ru", "KZ-35")]
    stored = await kb.version()
    parcels = KnowledgeBase(kb.db, HashEmbedder(256), DEPOT)
    entries, _ = parse_kb_lines(LINES, DEPOT)
    summary = await parcels.ingest(entries, prune=True, max_prune_share=0.5)  # prunes its own languages only
    assert (summary.inserted, summary.pruned) == (4, 0)
    assert (await kb.version())[0] == stored[0] + 4

    leeds = await parcels.search("where do i pick up my parcel", "en", {"depot": "D101"})
    assert leeds[0].entry_id == "en-pickup-d101" and leeds[0].relevant and leeds[0].gate == DEPOT.scorer.gate
    york = await parcels.search("where do i pick up my parcel", "en", "D202")
    assert york[0].entry_id == "en-pickup-d202" and york[0].relevant
    assert "en-pickup-d101" not in {h.entry_id for h in york}  # another depot's entry is not this depot's answer
    hours = await parcels.search("what are your opening hours", "en", {"depot": "D202"})
    assert hours[0].entry_id == "en-hours" and hours[0].relevant  # an entry for all depots
    weather = await parcels.search("what is the weather tomorrow", "en", "D101")
    assert not any(h.relevant for h in weather)
    # asked at Leeds about York's pickup: York's entry is not read to them, nor a general one instead
    assert await parcels.search("pickup at the york depot", "en", "D101") == []
    # the operator's knowledge base is as it was, and never returns the other's entries
    assert [(h.entry_id, h.relevance) for h in await kb.search(question, "ru", "KZ-35")] == before
    assert all(h.language == "ru" for h in await kb.search("parcel pickup", "ru", "KZ-35", limit=20))


COURIERS = dataclasses.replace(DEPOT, name="couriers")  # the same language, scope key and depot codes
COURIER_ENTRIES = [
    {"id": "courier-pickup-d101", "language": "en", "depots": ["D101"], "title": "Parcel pickup for couriers at Leeds",
     "text": "Couriers pick up parcels at the Leeds depot from the loading bay behind gate nine.",
     "source": "courier-handbook#leeds"},
    {"id": "courier-hours", "language": "en", "depots": ["any"], "title": "Courier opening hours",
     "text": "The loading bays are open to couriers from five in the morning to ten in the evening.",
     "source": "courier-handbook#hours"},
]


async def test_two_knowledge_bases_in_one_language_and_scope_see_only_their_own(kb: KnowledgeBase) -> None:
    """Two knowledge bases in English scoped by the same depot codes: each search reads its own knowledge base
    alone (the key is the knowledge base, not language + scope), a prune of one leaves the other whole, and an
    id the other holds is refused."""
    parcels = KnowledgeBase(kb.db, HashEmbedder(256), DEPOT)
    couriers = KnowledgeBase(kb.db, HashEmbedder(256), COURIERS)
    await parcels.ingest(parse_kb_lines(LINES, DEPOT)[0])
    courier_lines = [json.dumps(e) for e in COURIER_ENTRIES]
    assert (await couriers.ingest(parse_kb_lines(courier_lines, COURIERS)[0])).inserted == 2
    question = "where do i pick up my parcel at the leeds depot"
    theirs = {e["id"] for e in ENTRIES}
    ours = {e["id"] for e in COURIER_ENTRIES}
    seen_by_parcels = {h.entry_id for h in await parcels.search(question, "en", "D101", limit=20)}
    seen_by_couriers = {h.entry_id for h in await couriers.search(question, "en", "D101", limit=20)}
    assert "en-pickup-d101" in seen_by_parcels and seen_by_parcels <= theirs
    assert "courier-pickup-d101" in seen_by_couriers and seen_by_couriers <= ours
    hours = await couriers.search("what are your opening hours", "en", {"depot": "D202"}, limit=20)
    assert [h.entry_id for h in hours][:1] == ["courier-hours"] and {h.entry_id for h in hours} <= ours

    summary = await couriers.ingest(parse_kb_lines(courier_lines[:1], COURIERS)[0], prune=True)
    assert summary.pruned == 1  # its own "courier-hours", none of the other's
    assert "en-hours" in {h.entry_id for h in await parcels.search("what are your opening hours", "en", "D202")}
    with pytest.raises(ValueError, match="entry en-price: the id is taken by the knowledge base parcels"):
        await couriers.ingest(parse_kb_lines(LINES[3:4], COURIERS)[0])
    assert "en-price" in {h.entry_id for h in await parcels.search("delivery prices", "en", "D101", limit=20)}


async def test_a_search_outside_the_profile_is_refused_with_what_is_allowed(kb: KnowledgeBase) -> None:
    parcels = KnowledgeBase(kb.db, HashEmbedder(256), DEPOT)
    with pytest.raises(ValueError, match=r"'ru' is not a language of the knowledge base parcels \(allowed: en\)"):
        await parcels.search("доставка", "ru", "D101")
    with pytest.raises(ValueError, match=r"scope: region is not a scope of the knowledge base parcels \(allowed: depot\)"):
        await parcels.search("pickup", "en", {"region": "KZ-71"})
    with pytest.raises(ValueError, match=r"depot: unknown depot 'KZ-71' \(allowed: a depot code such as D101\)"):
        await parcels.search("pickup", "en", "KZ-71")
    with pytest.raises(ValueError, match=r"'en' is not a language of the knowledge base operator"):
        await kb.search("pickup", "en", "KZ-71")
    assert (await parcels.search("pickup", "ru", "KZ-71", profile=OPERATOR)) is not None  # a search names its own


async def test_kb_ingest_takes_the_profile_of_the_routes_policy(kb: KnowledgeBase, tmp_path: Path) -> None:
    settings = build_settings([], environ={"DATABASE_URL": kb.db.dsn, "STATE_DIR": str(tmp_path)})
    path = tmp_path / "operator.jsonl"
    path.write_text(LINES[0] + "\n", encoding="utf-8")
    out = io.StringIO()
    assert await kb_ingest(settings, path, prune=False, reembed=False, out=out) == 1  # the operator's, by default
    assert out.getvalue().splitlines()[1] == f"  {path}:1: missing field regions"
    out = io.StringIO()
    assert await kb_ingest(settings, path, prune=False, reembed=False, out=out, route="nowhere") == 2
    assert out.getvalue() == "kb ingest: --route nowhere: no route of that name (known: none)\n"


async def test_kb_ingest_refuses_an_id_another_knowledge_base_holds_in_one_line(kb: KnowledgeBase, tmp_path: Path) -> None:
    await KnowledgeBase(kb.db, HashEmbedder(256), DEPOT).ingest(parse_kb_lines(LINES[:1], DEPOT)[0])
    settings = build_settings([], environ={"DATABASE_URL": kb.db.dsn, "STATE_DIR": str(tmp_path)})
    path = tmp_path / "operator.jsonl"
    path.write_text(json.dumps({"id": "en-hours", "language": "ru", "regions": ["*"], "title": "Часы работы",
                                "text": "Офисы открыты с девяти до шести.", "source": "x"}, ensure_ascii=False) + "\n",
                    encoding="utf-8")
    stored = await kb.version()
    out = io.StringIO()
    assert await kb_ingest(settings, path, prune=False, reembed=False, out=out) == 2  # the operator's knowledge base
    assert out.getvalue() == (f"kb ingest {path}: entry en-hours: the id is taken by the knowledge base parcels (ids are "
                              "unique across knowledge bases; 1 such): nothing changed; give the entry another id\n")
    assert await kb.version() == stored


async def test_the_scope_migration_keeps_an_existing_knowledge_base(kb: KnowledgeBase) -> None:
    """A database from before migration 0005 (its columns named `regions`), with entries in it: the migration runs
    on it at the next start, and every entry is found as before."""
    question, region = "сервисный центр в павлодаре", "KZ-55"
    before = [(h.entry_id, h.relevance) for h in await kb.search(question, "ru", region)]
    stats = await kb.stats()
    async with await psycopg.AsyncConnection.connect(kb.db.dsn, autocommit=True) as conn:
        await conn.execute("ALTER TABLE kb_entries RENAME COLUMN scopes TO regions")
        await conn.execute("ALTER TABLE kb_chunks RENAME COLUMN scopes TO regions")
        await conn.execute("ALTER INDEX kb_chunks_scopes_idx RENAME TO kb_chunks_regions_idx")
        await conn.execute("DELETE FROM schema_migrations WHERE version = 5")
        assert await apply_migrations(conn) == [5]
    assert before and [(h.entry_id, h.relevance) for h in await kb.search(question, "ru", region)] == before
    assert await kb.stats() == stats


async def test_the_knowledge_base_migration_gives_existing_entries_to_the_operator(kb: KnowledgeBase) -> None:
    """A database from before migration 0006 (no `kb` column): its entries were the operator's, and are found by
    the operator's searches as before."""
    question, region = "сервисный центр в павлодаре", "KZ-55"
    before = [(h.entry_id, h.relevance) for h in await kb.search(question, "ru", region)]
    async with await psycopg.AsyncConnection.connect(kb.db.dsn, autocommit=True) as conn:
        await conn.execute("ALTER TABLE kb_entries DROP COLUMN kb")
        await conn.execute("ALTER TABLE kb_chunks DROP COLUMN kb")
        await conn.execute("DELETE FROM schema_migrations WHERE version = 6")
        assert await apply_migrations(conn) == [6]
        cur = await conn.execute("SELECT DISTINCT kb FROM kb_chunks")
        assert await cur.fetchall() == [(OPERATOR.name,)]
    assert before and [(h.entry_id, h.relevance) for h in await kb.search(question, "ru", region)] == before


async def test_doctor_warns_when_a_routes_knowledge_base_has_no_entry_in_one_of_its_languages(tmp_path: Path) -> None:
    environ = {"DATABASE_URL": fresh_dsn(), "STATE_DIR": str(tmp_path), "ROUTE_HELP_ENABLED": "true",
               "ROUTE_HELP_POLICY": "operator"}
    settings = build_settings([], environ=environ)
    sample = (Path(__file__).resolve().parents[1] / "etc" / "kb" / "sample.jsonl").read_text(encoding="utf-8")
    russian = tmp_path / "ru.jsonl"
    russian.write_text("\n".join(x for x in sample.splitlines() if '"language": "ru"' in x) + "\n", encoding="utf-8")
    assert await kb_ingest(settings, russian, prune=False, reembed=False, out=io.StringIO(), route="help") == 0
    entries = {c.name: c for c in await database_checks(settings)}["kb entries"]
    assert entries.status == "WARN", entries
    assert entries.detail.endswith("operator (route help) has none in kk: run `ai-operator kb ingest --route help "
                                   "<file>`"), entries.detail
