"""The knowledge-base read replica (`KB_DATABASE_URL`, storage/replica.py): what counts as fit, and a search that
still answers from the primary when the replica cannot be reached. A real streaming standby is exercised by
tests/cluster/test_cluster_kb_replica.py."""

from __future__ import annotations

import pytest

from ai_operator.kb.store import KnowledgeBase
from ai_operator.storage import replica
from tests.support.ports import closed_tcp_port

QUERY = "сколько стоит тариф дом 500"


@pytest.mark.parametrize(
    ("in_recovery", "streaming", "lag_s", "unfit"),
    [
        (False, False, 0.0, None),  # not a standby (a primary given as KB_DATABASE_URL): fine
        (True, True, 0.0, None),
        (True, True, replica.MAX_LAG_S, None),
        (True, True, replica.MAX_LAG_S + 0.5, "behind the primary"),
        (True, False, 0.0, "not streaming"),
    ],
)
def test_fitness(in_recovery: bool, streaming: bool, lag_s: float, unfit: str | None) -> None:
    reason = replica.judge(in_recovery, streaming, lag_s)
    assert (reason is None) if unfit is None else (reason is not None and unfit in reason)


async def test_an_unreachable_replica_leaves_search_to_the_primary(kb: KnowledgeBase) -> None:
    expected = await kb.search(QUERY, "ru", "")
    assert expected
    await kb.db.use_replica(f"postgresql://nobody:secret@127.0.0.1:{closed_tcp_port()}/postgres")
    assert kb.db.replica is not None
    assert [h.entry_id for h in await kb.search(QUERY, "ru", "")] == [h.entry_id for h in expected]
    assert not kb.db.replica.fit and "unreachable" in (kb.db.replica.reason or "")


async def test_a_fit_replica_serves_the_search(kb: KnowledgeBase) -> None:
    await kb.db.use_replica(kb.db.dsn)  # the same server, not a standby: fit
    assert kb.db.replica is not None
    assert await kb.search(QUERY, "ru", "")
    assert kb.db.replica.fit and kb.db.replica.reason is None
