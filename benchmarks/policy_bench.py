"""Policy cost: decisions per second and time per decision of each policy over a mixed corpus of caller turns.

A decision is one caller event (`on_utterance`, `on_dtmf`, `on_silence`) plus any effects the reply asks for,
answered at once (knowledge search: no hits; model: unavailable). Conversations run the corpus in a shuffled
order, a fresh session each time the policy hangs up or a conversation's turns are used up. No I/O is timed.
Budget: p99 per decision < 1 ms. A policy whose package is missing is reported as skipped.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from ai_operator.dialogue import KnowledgeSearch

REPO = Path(__file__).resolve().parent.parent
P99_BUDGET_MS = 1.0
TURNS_PER_CALL = 8
MAX_EFFECT_STEPS = 6
SEED = 8

OPERATOR_CORPUS = (
    "Алло", "Здравствуйте", "Сәлеметсіз бе", "русский", "на русском, пожалуйста", "қазақша", "казахский",
    "Алматы", "я из Павлодара", "Астана", "Шымкент қаласынанмын", "Караганда",
    "Сколько стоит домашний интернет?", "Как оплатить интернет картой?", "Почему нет интернета?",
    "Где сервисный центр?", "Как поменять пароль от Wi-Fi?", "Үй интернеті қанша тұрады?",
    "тариф за 5990 тенге", "у меня 100 мегабит, хочу 500", "номер договора 1234567",
    "позовите оператора", "соедините с человеком", "ты тупая машина", "идиот", "спасибо, до свидания",
    "что?", "повторите", "", "ммм", "1", "2",
    "не павлодар а караганда", "павлодар емес қарағанды", "я ошибся актобе", "в столице где ваш офис",
    "алматы облысынан", "в шахтинске будут работы ночью", "ну короче хочу провести интернет в квартиру",
)
FREIGHT_CORPUS = (
    "हेलो", "हाँ जी बोलिए", "नमस्ते", "कौन बोल रहा है?", "हाँ गाड़ी खाली है", "कहाँ से कहाँ जाना है?",
    "पच्चीस हज़ार लगेगा", "30000", "बीस हज़ार में नहीं होगा", "अट्ठाईस हज़ार फाइनल", "ठीक है, कर देंगे",
    "रेट कितना दोगे?", "डीज़ल महँगा है", "टोल अलग से", "लोडिंग कब है?", "अभी बिज़ी हूँ, बाद में करो",
    "बेवकूफ़", "गाली मत दो", "नहीं चाहिए", "हाँ", "नहीं", "क्या?", "", "22 हजार 500", "धन्यवाद",
    # issue 27: the wrong person, a hand-over, refusals, fragments, fractional magnitudes
    "main unka driver bol raha hoon", "वो घर पर नहीं हैं", "ek minute dete hain", "papa ek ghante baad aayenge",
    "ठीक है तो फिर रहने दीजिए", "mera rate final hai", "मेरा रेट है", "my rate would be", "सवा लाख",
    "one and a half lakh", "2.5 lakh", "ek lakh pachees", "paune do lakh rahega",
)
CORPORA = {"operator": OPERATOR_CORPUS, "freight": FREIGHT_CORPUS}
SPECIAL = ("<dtmf>", "<silence>")


def _resolve(session: Any, reply: Any) -> Any:
    for _ in range(MAX_EFFECT_STEPS):
        if reply.effect is None:
            return reply
        reply = session.on_effect_result([] if isinstance(reply.effect, KnowledgeSearch) else None)
    return reply


def _new_session(settings: Any, route: Any, n: int) -> Any:
    from ai_operator.wiring import new_session

    return new_session(settings, route, f"bench-{n}")  # the route's own options (the freight LOAD) apply


def bench_policy(name: str, decisions: int, settings: Any, route: Any) -> dict[str, Any]:
    """Run `decisions` decisions of policy `name`; figures in a dict."""
    corpus = [*CORPORA[name], *SPECIAL]
    rng = random.Random(SEED)
    lat_ns: list[int] = []
    calls = hangups = 0
    session, turns = None, 0
    clock = time.perf_counter_ns
    while len(lat_ns) < decisions:
        if session is None:
            calls += 1
            session, turns = _new_session(settings, route, calls), 0
            _resolve(session, session.start())
        text = rng.choice(corpus)
        t = clock()
        if text == "<dtmf>":
            reply = session.on_dtmf(rng.choice("12"))
        elif text == "<silence>":
            reply = session.on_silence()
        else:
            reply = session.on_utterance(text)
        reply = _resolve(session, reply)
        lat_ns.append(clock() - t)
        turns += 1
        if reply.hang_up or reply.transfer or turns >= TURNS_PER_CALL:
            hangups += bool(reply.hang_up or reply.transfer)
            session.on_call_ended("bot" if reply.hang_up else "caller")
            session = None
    lat_ns.sort()
    total_s = sum(lat_ns) / 1e9
    p = lambda q: lat_ns[min(len(lat_ns) - 1, int(q * len(lat_ns)))] / 1e6  # noqa: E731
    return {"policy": name, "decisions": len(lat_ns), "conversations": calls, "ended_by_policy": hangups,
            "decisions_per_s": round(len(lat_ns) / total_s), "p50_ms": round(p(0.5), 4), "p99_ms": round(p(0.99), 4),
            "max_ms": round(lat_ns[-1] / 1e6, 3), "p99_budget_ms": P99_BUDGET_MS, "ok": p(0.99) < P99_BUDGET_MS}


def run(decisions: int = 20_000) -> list[dict[str, Any]]:
    """Every policy of `CORPORA`; a missing package is reported as skipped."""
    from ai_operator.config import load_settings
    from ai_operator.route_binding import bind_routes
    from policies import policy_exists

    settings = bind_routes(load_settings(REPO / "etc" / "ai-operator.env.example"))  # the LOAD read once, not per call
    out = []
    for name in CORPORA:
        route = next((r for r in settings.routes.values() if r.policy == name), None)
        if not policy_exists(name) or route is None:
            out.append({"policy": name, "skipped": f"policies/{name} is missing or has no route"})
            continue
        try:
            out.append(bench_policy(name, decisions, settings, route))
        except Exception as exc:  # a policy still being written must not sink the whole report
            out.append({"policy": name, "skipped": f"{type(exc).__name__}: {exc}"})
    return out
