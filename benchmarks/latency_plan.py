"""The voice-to-voice benchmark's conversations: scripted operator dialogues in which every caller line is labelled
with the kind of turn it must get (a canned line, a knowledge-base answer, a model turn, a handoff), checked
against the policy before a run, and the callers' audio.

Two routes of the operator policy: `test` (no model: a question is a knowledge-base search) and `model` (a chat
model: a question is a model turn, which searches the knowledge base through its tool). The scripts are checked
through `Conversation` with the real knowledge base and no model, so a line labelled `kb` must get a cited answer,
`handoff` a transfer and `canned` neither; on the model route the `model` lines are the lines that route's policy
turns into questions. The plan is written in the media benchmark's format (`plan.py`), so the scale bench's
callers (`caller_proc.py`) run it: a reply's length is not known ahead (the TTS is the provider double's), so
every reply's expected length is `OPEN_ENDED_FRAMES` and a caller takes a reply as over when it has been quiet
for `caller_proc.QUIET_S`; which route a dialogue calls is in the plan's `routes.json`.

`PAUSE_SCRIPTS` (`--pauses`): the pause-in-the-middle callers. A line written "a | b" is said as "a", `PAUSE_MS`
of silence, then "b" (after a fragment that looks complete, one that dangles and one that is neither, Russian and
Kazakh): the daemon must answer the whole line once, never "a" alone. The recogniser knows each fragment, so a
transcript of the audio so far is what was said so far (`ScriptedSTT.recognise_in_order`).
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from benchmarks import plan as plans

KINDS = ("canned", "kb", "model", "handoff")
OPEN_ENDED_FRAMES = 1_000_000  # a reply is heard until it goes quiet, not until a known length
KB_ROUTE = "test"
MODEL_ROUTE = "model"
_RU_KB = (("ну по-русски давайте", "canned"), ("я живу в караганде", "canned"),
          ("сколько стоит домашний интернет", "kb"),
          ("а какой самый быстрый тариф интернета", "kb"),  # read from the entry's third sentence, not its first
          ("всё понятно спасибо до свидания", "canned"))
_KK_KB = (("қазақша", "canned"), ("мен астанада тұрамын", "canned"), ("үй интернеті айына қанша тұрады", "kb"),
          ("рахмет сау болыңыз", "canned"))
_RU_HANDOFF = (("русский пожалуйста", "canned"), ("эээ павлодар", "canned"),
               ("соедините меня с оператором пожалуйста", "handoff"))


PAUSE = " | "  # in a script line: the caller pauses PAUSE_MS there, mid-sentence
PAUSE_MS = 300
_RU_PAUSES = (("русский", "canned"), ("караганда", "canned"),
              ("сколько стоит роуминг | за границей", "kb"),  # looks complete at the pause
              ("сколько стоит тариф на | домашний интернет", "kb"),  # dangles at the pause
              ("у меня вопрос | как узнать баланс", "kb"),  # neither: decided speculatively
              ("всё понятно спасибо | до свидания", "canned"))  # a goodbye may follow: no hang-up before it
_KK_PAUSES = (("қазақша", "canned"), ("астана", "canned"),
              ("үй интернеті | айына қанша тұрады", "kb"),
              ("үй интернетінің | бағасы қанша", "kb"),
              ("менің сұрағым бар | теңгерімді қалай білуге болады", "kb"),
              ("рахмет | сау болыңыз", "canned"))


def _as_model(lines: tuple[tuple[str, str], ...]) -> tuple[tuple[str, str], ...]:
    return tuple((text, "model" if kind == "kb" else kind) for text, kind in lines)


# (route, caller language, ((line, kind), ...)): ASR-style lines, Russian and Kazakh. An N=1 run places them in
# this order, one call at a time, and its window holds two calls (`--quick`, 60 s) to about four (180 s): the short
# handoff call comes first, so every kind is judged at N=1 too.
SCRIPTS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    (KB_ROUTE, "ru", _RU_HANDOFF),
    (KB_ROUTE, "ru", _RU_KB),
    (MODEL_ROUTE, "ru", _as_model(_RU_KB)),
    (KB_ROUTE, "kk", _KK_KB),
    (MODEL_ROUTE, "kk", _as_model(_KK_KB)),
)
PAUSE_SCRIPTS: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...] = (
    (KB_ROUTE, "ru", _RU_PAUSES),
    (KB_ROUTE, "kk", _KK_PAUSES),
)


def said(line: str) -> str:
    """What the caller says in a script line (its pause marks gone)."""
    return line.replace(PAUSE, " ")
# what the model double answers after its search (about 30 words: a typical spoken answer)
MODEL_ANSWERS = {
    "ru": "Домашний интернет стоит от пяти тысяч тенге в месяц, скорость до ста мегабит. Подключение бесплатное, "
          "роутер можно взять в аренду. Хотите, я расскажу, какие тарифы есть в вашем городе?",
    "kk": "Үй интернеті айына бес мың теңгеден басталады, жылдамдығы жүз мегабитке дейін. Қосылу тегін, роутерді "
          "жалға алуға болады. Сіздің қалаңыздағы тарифтер туралы айтайын ба?",
}


@dataclass(frozen=True)
class LatencyPlan:
    plan: plans.Plan
    kinds: dict[int, list[str]]  # variant -> the kind of turn each caller line must get
    routes: dict[int, str]  # variant -> the route its calls take
    fragments: dict[str, np.ndarray]  # what the recogniser knows: each line, a paused line by its fragments


async def _check_script(settings: Any, knowledge: Any, route_name: str, lines: tuple[tuple[str, str], ...]) -> None:
    from ai_operator.conversation import Conversation
    from ai_operator.dialogue import knowledge_profile
    from ai_operator.wiring import new_session
    from policies import load_policy

    route = settings.route(KB_ROUTE)
    conversation = Conversation(new_session(settings, route, "latency-plan"), knowledge=knowledge,
                                knowledge_profile=knowledge_profile(load_policy(route.policy)))
    await conversation.start()
    for text, kind in lines:
        reply = (await conversation.utterance(said(text))).reply
        got = ("handoff" if reply.transfer else "kb" if reply.fields.get("citations") else
               "canned" if reply.text else "silent")
        want = "kb" if kind == "model" else kind  # with no model, a model route's question is a search
        if got != want:
            raise plans.PlanError(f"latency script on route {route_name}: {text!r} got a {got} turn "
                                  f"({reply.text!r}), labelled {kind}")


async def prepare(settings: Any, out_dir: Path, scripts: tuple[tuple[str, str, tuple[tuple[str, str], ...]], ...]
                  = SCRIPTS) -> LatencyPlan:
    """Checks every script (module docstring), synthesises the callers' lines, writes the plan; the knowledge
    base must be ingested in the settings' database."""
    from ai_operator.kb.embeddings import build_embedder
    from ai_operator.kb.store import KnowledgeBase
    from ai_operator.media.codecs import get_codec
    from ai_operator.storage.database import Database

    db = await Database.open(settings.storage.database_url or None, Path(settings.storage.state_dir))
    knowledge = KnowledgeBase(db, build_embedder(settings))
    try:
        for route_name, _language, lines in scripts:
            await _check_script(settings, knowledge, route_name, lines)
    finally:
        await knowledge.close()
        await db.close()
    variants, audio, pieces = [], {}, {}
    pause = np.zeros(plans.SAMPLE_RATE * PAUSE_MS // 1000, dtype=np.int16)
    for _route, language, lines in scripts:
        texts = tuple(text for text, _ in lines)
        for text in texts:
            if text not in audio:
                parts = text.split(PAUSE)
                for part in parts:
                    if part not in pieces:
                        pieces[part] = await plans._caller_line(part, language)
                audio[text] = np.concatenate([p for part in parts for p in (pieces[part], pause)][:-1])
        variants.append(plans.Variant(language, texts, (), (), (OPEN_ENDED_FRAMES,) * (len(texts) + 1)))
    plan = plans.Plan(settings.rtp.codec, tuple(variants), audio)
    plans.save(plan, out_dir)
    codec = get_codec(plan.codec)
    result = LatencyPlan(plan, {i: [kind for _, kind in s[2]] for i, s in enumerate(scripts)},
                         {i: s[0] for i, s in enumerate(scripts)},
                         {text: codec.decode(codec.encode(pcm)) for text, pcm in pieces.items()})
    (out_dir / "routes.json").write_text(json.dumps({str(i): r for i, r in result.routes.items()}))
    return result


def model_script(body: dict[str, Any]) -> dict[str, Any]:
    """The chat double: first a search for the caller's question (as the operator prompt asks), then an answer
    in the caller's language once the search result is in."""
    messages = body.get("messages") or []
    question = next((str(m.get("content") or "") for m in reversed(messages) if m.get("role") == "user"), "")
    if not any(m.get("role") == "tool" for m in messages):
        return {"tool_calls": [{"name": "search_knowledge_base", "arguments": {"query": question}}]}
    kazakh = any(ch in "әғқңөұүһі" for ch in question.lower())
    return {"content": MODEL_ANSWERS["kk" if kazakh else "ru"]}
