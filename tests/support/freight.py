"""Helpers for the freight understanding tests: a load, a started (or countered) session, playing vendor turns
through the real `FreightSession`, and running scripts through `ai-operator call --route freight --json --script`."""

from __future__ import annotations

import dataclasses
import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from ai_operator.dialogue import Reply
from policies.freight import FreightSession, Load
from policies.freight import lines as L

REPO = Path(__file__).resolve().parents[2]
EXAMPLE_ENV = REPO / "etc" / "ai-operator.env.example"

LOAD = Load(
    vendor_name="महेश", origin="इंदौर", destination="नागपुर", vehicle="बाईस फीट ट्रक", weight="12",
    material="प्लास्टिक दाना", pickup="परसों सुबह", anchor=20_000, ceiling=26_000,
)  # fmt: skip
CONFIRM = "haan ji main mahesh bol raha hoon boliye"
# A long model-written goodbye (the local OpenAI-compatible server's `goodbye`), for the ending tests; and a vendor
# who closes a deal at his quote (under the sample load's anchor) and thanks the bot, which then says goodbye.
LONG_MODEL_GOODBYE = ("बहुत बहुत धन्यवाद रमेश जी, आपसे बात करके बहुत अच्छा लगा। हमारी टीम जल्दी ही आपको कॉल करके गाड़ी की "
                      "पूरी जानकारी कन्फ़र्म कर देगी, और लोडिंग का समय भी बता देगी। आपका दिन शुभ हो, नमस्ते।")
DEAL_AT_QUOTE = ["हां जी, मैं ही बोल रहा हूं", "इसका रेट उन्नीस हज़ार लगेगा", "नहीं जी, इससे कम नहीं होगा",
                 "ठीक है जी, धन्यवाद"]
QUOTE = "pachees hazaar lagega"  # above the anchor, under the ceiling


def load_with(**changes: Any) -> Load:
    return dataclasses.replace(LOAD, **changes)


def started(call_id: str = "nlu", load: Load = LOAD, *, model: bool = False) -> FreightSession:
    session = FreightSession(call_id, load, model_available=model)
    session.start()
    return session


def play(session: FreightSession, *utterances: str) -> Reply:
    """Say `utterances` in turn (model turns answered with no model: the canned line); the last reply."""
    reply = None
    for u in utterances:
        reply = session.on_utterance(u)
        while reply.effect is not None:
            reply = session.on_effect_result(None)
    assert reply is not None
    return reply


def countered(call_id: str) -> FreightSession:
    """A session where our one concession has just been offered (COUNTERED): the vendor confirmed, quoted above
    the anchor and gave a reason."""
    session = started(call_id)
    reply = play(session, CONFIRM, QUOTE, "diesel bahut mehnga hai")
    assert reply.fields["phase"] == "COUNTERED" and session.offered == [session.concession]
    return session


def assert_last_ask(session: FreightSession, reply: Reply) -> None:
    """A refused counter: no deal at it, the last ask, and no figure named."""
    assert session.disposition != "deal_at_counter", session.moves
    assert reply.fields["phase"] == "LAST_ASK" and session.moves[-1] == L.LAST_ASK, session.moves
    assert reply.fields["offered_rate"] is None and not any(ch.isdigit() for ch in reply.text or "")


def cli_call(tmp_path: Path, lines: list[str], *extra: str) -> list[dict[str, Any]]:
    """Run one scripted freight call through the command line; one dict per turn (the greeting first)."""
    script = tmp_path / "script.txt"
    script.write_text("\n".join(lines) + "\n", encoding="utf-8")
    cmd = [sys.executable, "-m", "ai_operator", "call", "--route", "freight", "--env", str(EXAMPLE_ENV),
           "--script", str(script), "--json", "--no-knowledge", *extra]  # fmt: skip
    env = {**os.environ, "LOG_FORMAT": "json"}
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=120, env=env, cwd=REPO)
    assert res.returncode == 0, res.stderr
    return [json.loads(line) for line in res.stdout.splitlines()]
