"""The tools the operator policy may offer a model: names, descriptions and JSON schemas. Pure data.

Only the tools the permission matrix allows in the current state are offered (`permissions.allowed_tools`);
every call a model makes still goes through `OperatorSession.call_tool`.
"""

from __future__ import annotations

from typing import Any

from ai_operator.dialogue import ToolSpec
from policies.operator.language import LANGUAGES
from policies.operator.permissions import END_CALL, HANDOFF, SEARCH_KB, SET_LANGUAGE, SET_REGION


def _object(properties: dict[str, Any], required: list[str]) -> dict[str, Any]:
    return {"type": "object", "properties": properties, "required": required, "additionalProperties": False}


_REASON = {"reason": {"type": "string", "description": "Short reason, for the call record."}}

TOOL_SPECS: dict[str, ToolSpec] = {
    SEARCH_KB: ToolSpec(
        SEARCH_KB,
        "Search the operator's knowledge base (tariffs, services, outages, procedures). Use the caller's words.",
        _object({"query": {"type": "string", "description": "What to look up, in the caller's language."}}, ["query"]),
    ),
    SET_LANGUAGE: ToolSpec(
        SET_LANGUAGE,
        "Switch the conversation language when the caller speaks or asks for another language.",
        _object({"language": {"type": "string", "enum": list(LANGUAGES), "description": "ISO 639-1 code."}},
                ["language"]),
    ),
    SET_REGION: ToolSpec(
        SET_REGION,
        "Record the caller's region (city or oblast) once they have said it.",
        _object({"region": {"type": "string", "description": "Region or city name as the caller said it, or its code."}},
                ["region"]),
    ),
    HANDOFF: ToolSpec(
        HANDOFF,
        "Transfer the caller to a human operator, when they ask for one or the bot cannot help.",
        _object(dict(_REASON), []),
    ),
    END_CALL: ToolSpec(END_CALL, "End the call politely once the conversation is finished.", _object(dict(_REASON), [])),
}


def specs_for(names: list[str]) -> tuple[ToolSpec, ...]:
    """The specs of `names`, in that order."""
    return tuple(TOOL_SPECS[n] for n in names)
