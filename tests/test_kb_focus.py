"""What a settled question is about (policies/operator/kb_focus.py, pure): a purpose's usage words and the part
that still works are not what the knowledge base is asked. Caller-side phrasings, ru and kk (none of them a line
of a held-out split); the class phrasing sets themselves are calibration lines of tests/data/kb_relevance.jsonl."""

from __future__ import annotations

import json
from pathlib import Path

from policies.operator.kb_focus import focused, without_purpose, without_working_part
from policies.operator.knowledge import SCORER

SAMPLE = Path(__file__).resolve().parent.parent / "etc" / "kb" / "sample.jsonl"
ENTRIES = {e["id"]: e for e in (json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip())}


def best(question: str) -> tuple[str, float]:
    """The best national article (by score, then the ordering signals) for `question` as focused."""
    asked = focused(question)
    scored = [(SCORER.relevance(asked, e["title"], e["text"]), i) for i, e in ENTRIES.items() if e["regions"] == ["*"]]
    rel, entry = max(scored, key=lambda x: (x[0].score, x[0].rank))
    return entry.split("-", 1)[1], rel.score


def test_a_brand_or_a_pastime_named_as_a_purpose_is_a_usage_not_the_topic() -> None:
    assert without_purpose("какой тариф взять чтоб тикток не лагал") == "какой тариф взять чтоб не"
    assert without_purpose("инстаграм үшін арзан ұялы тариф") == "үшін арзан ұялы тариф"
    for q in ("подскажите тариф подешевле чтоб ютуб смотреть", "самый быстрый интернет чтобы в игры играть какой",
              "телеграм үшін қандай интернет тарифі арзан"):
        topic, score = best(q)
        assert topic.endswith("tariffs") and score >= SCORER.gate, (q, topic, score)


def test_a_purpose_with_no_topic_outside_it_is_the_question() -> None:
    for q in ("что нужно чтобы расторгнуть договор", "мекенжайды ауыстыру үшін не істеу керек"):
        assert without_purpose(q) == q, q
    assert "электр" in without_purpose("электр жарығы үшін қалай төлеймін")  # a noun is what is asked about
    assert "договор" in without_purpose("какие документы нужны чтобы переоформить договор")  # a concept of ours stays


def test_what_still_works_is_not_what_is_asked() -> None:
    assert without_working_part("вайфай вроде есть а интернета нет") == "интернета нет"
    assert without_working_part("теледидар істейді бірақ интернет жоқ") == "интернет жоқ"
    assert without_working_part("приставка горит а каналов нет") == "приставка каналов нет"  # the device stays
    assert without_working_part("интернет есть а роутер новый") == "интернет есть а роутер новый"  # no complaint
    assert without_working_part("интернет не работает а роутер горит") == "интернет не работает а роутер горит"
    assert best("телефон ловит а интернета нет")[0] == "no-internet"
    assert best("вайфай бар бірақ интернет мүлдем жоқ")[0] == "no-internet"
    # a device that connects to the Wi-Fi is what works; "без доступа к интернету" (Windows' words) is no internet
    assert without_working_part("ноутбук к вай фаю цепляется но пишет без доступа") == "пишет без доступа"
    for q in ("ноутбук к вай фаю цепляется но пишет без доступа к интернету", "телефон к вайфаю подключается а "
              "интернета нет", "пишет нет доступа к интернету"):
        topic, score = best(q)
        assert topic == "no-internet" and score >= SCORER.gate, (q, topic, score)
