"""The caller's question with the policy's own knowledge-base search already done (pure): the first chat request
of a model turn carries the search and its result as the model would have made and read it through its tool, so
the model answers in one round (one time to first token instead of two).

The search is the policy's, gated exactly like the model's (`ToolActions.search`: language and region selected,
checked before any model or tool call); its result is shown the way the tool shows it
(`dialogue.search_result_for_model`: only hits above the relevance gate, "[]" when none, or the error). The
search tool stays offered when the policy allows it, so the model may still look up something else.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ai_operator.dialogue import KnowledgeHit, KnowledgeSearch, KnowledgeUnavailable, search_result_for_model
from policies.operator.permissions import SEARCH_KB

SEARCH_CALL_ID = "policy_search"  # the id of the search the policy made, in the model's conversation


def grounded_messages(
    question: str, search: KnowledgeSearch, result: Sequence[KnowledgeHit] | KnowledgeUnavailable | None
) -> list[dict[str, Any]]:
    """The caller's `question`, then the policy's `search` for it as an assistant tool call, then its result."""
    call = {"id": SEARCH_CALL_ID, "type": "function",
            "function": {"name": SEARCH_KB, "arguments": json.dumps({"query": search.query}, ensure_ascii=False)}}
    return [
        {"role": "user", "content": question},
        {"role": "assistant", "content": None, "tool_calls": [call]},
        {"role": "tool", "tool_call_id": SEARCH_CALL_ID, "content": search_result_for_model(result)},
    ]


def relevant_hits(result: Sequence[KnowledgeHit] | KnowledgeUnavailable | None) -> list[KnowledgeHit]:
    """The hits of a search result that pass the relevance gate (none for a failed or absent search)."""
    if result is None or isinstance(result, KnowledgeUnavailable):
        return []
    return [h for h in result if h.relevant]
