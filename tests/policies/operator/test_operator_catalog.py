"""Operator catalog, spoken answers, prompt fragments, self-test and doctor checks."""

from policies import load_policy
from policies.operator import catalog
from policies.operator.answers import MAX_CHARS, shorten
from policies.operator.checks import catalog_check, region_check
from policies.operator.prompt import system_prompt
from policies.operator.states import State

SEED_GREETING = (
    "Здравствуйте! Это AI-оператор. Выберите язык обслуживания: русский или қазақша.\n"
    "Сәлеметсіз бе! Бұл AI-оператор. Қызмет көрсету тілін таңдаңыз: қазақша немесе русский."
)
REQUIRED = [
    "language_prompt", "language_reask", "region_prompt", "region_clarify_almaty", "region_reask", "ready",
    "denial", "handoff", "no_handoff", "closing", "idle", "give_up", "not_heard", "no_knowledge",
    "no_answer", "no_answer_only", "offer_declined", "answer", "fallback_note",
]  # fmt: skip


def test_greeting_verbatim_and_catalog_complete() -> None:
    assert catalog.GREETING == SEED_GREETING
    for key in REQUIRED:
        ru, kk = catalog.MESSAGES[key]["ru"], catalog.MESSAGES[key]["kk"]
        assert ru and kk and ru != kk, key
    assert catalog.say("not_heard", "ru") == "Извините, не расслышал. Повторите, пожалуйста."
    assert catalog.say("answer", "ru", source="X", text="Y.") == "По данным справки «X»: Y."
    assert catalog.bilingual("closing").split("\n") == [
        catalog.say("closing", "ru"),
        catalog.say("closing", "kk"),
    ]


def test_doctor_checks_ok_and_catalog_check_fails_on_a_gap(monkeypatch) -> None:
    checks = load_policy("operator").doctor_checks()
    assert [(c.name, c.status) for c in checks] == [
        ("catalog complete for ru and kk", "OK"),
        ("20 regions with unique ISO 3166-2:KZ codes", "OK"),
    ]
    monkeypatch.setitem(catalog.MESSAGES, "idle", {"ru": "Алло?"})
    bad = catalog_check()
    assert bad.status == "FAIL" and "idle/kk" in bad.detail
    assert region_check().status == "OK"


def test_shorten_cuts_on_sentence_boundaries() -> None:
    assert shorten("Один. Два! Три? Четыре.") == "Один. Два!"
    long_second = "Первое предложение. " + "слово " * 80 + "конец."
    assert shorten(long_second) == "Первое предложение."
    one_long = "слово " * 100
    cut = shorten(one_long)
    assert len(cut) <= MAX_CHARS and cut.endswith("…") and "слов…" not in cut
    assert shorten("  Строка   с   пробелами.  ") == "Строка с пробелами."


def test_prompt_is_state_aware_and_secondary() -> None:
    p = system_prompt(
        State.READY_TO_HELP, "kk", "KZ-35", "Қарағанды облысы", ["search_knowledge_base", "end_call"]
    )
    assert "READY_TO_HELP" in p and "Kazakh" in p and "Қарағанды облысы (KZ-35)" in p
    assert "Tools you may use now: search_knowledge_base, end_call" in p
    assert "Forbidden now: set_language, set_region, request_human_handoff" in p
    assert "secondary" in p and "refused" in p
    q = system_prompt(State.LANGUAGE_SELECTION, "", "", "", ["set_language"])
    assert "not selected yet" in q and "search_knowledge_base" in q.split("Forbidden now:")[1]


def test_self_test_all_pass_and_covers_the_matrix() -> None:
    cases = load_policy("operator").self_test()
    results = [c.run() for c in cases]
    failed = [r for r in results if not r.passed]
    assert not failed, failed
    names = [r.name for r in results]
    assert sum(n.startswith("matrix ") for n in names) == 45
    assert sum(n.startswith("guardrail denies") for n in names) >= 4
    assert len(names) == len(set(names))
