"""The knowledge base's absolute relevance: the pure scoring function alone, then the gate on the labelled set
(tests/data/kb_relevance.jsonl) through the real hybrid search on real PostgreSQL. The gate's precision and
recall are printed at the end of the run (conftest.py, "measured") and held to minimum figures."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from ai_operator.kb.relevance import RELEVANCE_GATE
from ai_operator.kb.selection import FALLBACK_MARGIN
from ai_operator.kb.store import KnowledgeBase
from policies.operator.kb_classifier import HELD_OUT
from policies.operator.knowledge import KNOWLEDGE, SCORER
from tests.support import kb_gate as G

fold, relevance, stem, terms, unseen_words = SCORER.fold, SCORER.relevance, SCORER.stem, SCORER.terms, SCORER.unseen_words

SAMPLE = Path(__file__).resolve().parent.parent / "etc" / "kb" / "sample.jsonl"
ENTRIES = {e["id"]: e for e in (json.loads(line) for line in SAMPLE.read_text().splitlines() if line.strip())}


def rel(question: str, entry_id: str) -> float:
    e = ENTRIES[entry_id]
    return relevance(question, e["title"], e["text"]).score


def keys(text: str) -> list[str]:
    return [t.key for t in terms(text)]


def test_folding_and_stemming_make_inflected_forms_one_term() -> None:
    assert fold("Қосылу, «Wi-Fi»  тарифтері!") == "косылу wi fi тарифтери"
    assert stem("тарифтерин") == stem("тарифтер")[:5] or stem("тарифтерин").startswith("тариф")
    assert keys("тарифтеріңіз") == keys("тарифы") == keys("ТАРИФ") == ["tariff"]
    assert keys("инет") == keys("интернетті") == keys("интернета") == ["internet"]
    assert keys("вай фай") == keys("wi-fi") == keys("вайфаю") == ["wifi"]


def test_fillers_and_asr_noise_carry_no_terms() -> None:
    for noise in ("ну вот короче эээ значит", "алло девушка подскажите пожалуйста", "әлгі енді жаңағы ғой",
                  "хотел узнать можно ли", "маған айтыңызшы білгім келеді"):
        assert terms(noise) == [], noise
    assert relevance("ну вот короче", "Тарифы", "Тарифы домашнего интернета").score == 0.0


def test_negation_makes_does_not_work() -> None:
    for broken in ("интернет не работает", "нет интернета", "интернет жоқ", "ничего не грузит",
                   "интернет істемейді", "сигнал жоқ"):
        assert "broken" in keys(broken), broken
    assert "broken" not in keys("интернет работает отлично")


def test_synonyms_cross_languages() -> None:
    # a Kazakh question matches a Russian article through shared synonym sets
    assert rel("шетелге барсам роуминг қанша тұрады", "ru-mobile-roaming") >= RELEVANCE_GATE
    assert rel("статикалық ip мекенжай керек бейнебақылау үшін", "ru-static-ip") >= RELEVANCE_GATE
    assert rel("вернёте деньги за сутки без связи", "ru-outage-compensation") >= RELEVANCE_GATE
    assert rel("ақшаны қайта есептейсіздер ме апат болды", "kk-outage-compensation") >= RELEVANCE_GATE


def test_out_of_scope_questions_score_low_against_their_nearest_article() -> None:
    assert rel("какая погода завтра в астане", "ru-centre-astana") < RELEVANCE_GATE
    assert rel("сколько стоит айфон", "ru-static-ip") < RELEVANCE_GATE
    assert rel("какие тарифы у билайна на мобильный интернет", "ru-mobile-tariffs") < RELEVANCE_GATE
    assert rel("ертең ауа райы қандай", "kk-internet-tariffs") < RELEVANCE_GATE
    # a question that shares only a facet (price) with an article is not answered by it
    assert rel("сколько стоит", "ru-internet-tariffs") < RELEVANCE_GATE


def test_unseen_words_weigh_more() -> None:
    q = "как заключить брачный договор"
    e = ENTRIES["ru-contract"]
    unseen = unseen_words(q, [(e["title"], e["text"])])
    assert unseen == {stem("брачный")}
    assert relevance(q, e["title"], e["text"], unseen).score < relevance(q, e["title"], e["text"]).score
    assert unseen_words("как расторгнуть договор", [(e["title"], e["text"])]) == frozenset()


def test_relevance_is_deterministic_bounded_and_reports_terms() -> None:
    r = relevance("у меня роутер красным мигает интернета нет", ENTRIES["ru-no-internet"]["title"],
                  ENTRIES["ru-no-internet"]["text"])
    assert 0.0 <= r.score <= 1.0 and r.score >= RELEVANCE_GATE
    assert {"router", "red", "indicator", "broken"} <= set(r.matched) and r.title > 0
    assert r == relevance("у меня роутер красным мигает интернета нет", ENTRIES["ru-no-internet"]["title"],
                          ENTRIES["ru-no-internet"]["text"])
    assert relevance("", "x", "y").score == 0.0


# Minimum figures. Calibration: the lines the lexicon and threshold were tuned on. Held-out: never tuned on (343
# lines written before the first tuning, 142 after it; 80 before the second round, hD-kb-recall, 62 after it).
# The first 485 held-out lines before morphology and place knowledge (main at 69d7e86): precision 0.924, recall
# 0.675, out-of-scope rejected 0.975; after them 0.907, 0.783, 0.944; after the second round 0.907, 0.845, 0.938.
# All 627 held-out lines before the second round 0.920, 0.798, 0.948; after it 0.923, 0.857, 0.948; after the
# third round (hH-kb-recall2: the later clause wins, phrases across prepositions, numbers said as words, lexicon
# families) 0.951, 0.936, 0.984. "held-out-2" (91 lines written after that round, run once, never tuned on):
# 0.925, 0.845, 0.939; after the fourth round (hO-kb-round3: bank-card blocking, "the cheapest", discourse frames,
# clarifiers; classes from held-out-2's failures) 0.982, 0.931, 1.000, held-out 0.951, 0.938, 0.984. "held-out-3"
# (97 lines written after that round, run once): 0.937, 0.894, 0.935. "held-out-4" (173 lines written before the
# fifth round, hT-kb-round4, run once before it): 0.947, 0.823, 0.953. The fifth round (a purpose's usage and the
# working part dropped, "не" reads forward, paying by card/app, set-top box symptoms, lost bank cards and ID
# documents, opening days, title topics not asked; classes from held-out-3 and held-out-4) added 202 calibration
# lines, at least 20 per class (the 863 older calibration lines: 0.950, 0.947, 0.970 -> 0.954, 0.952, 0.970);
# held-out 0.951, 0.945, 0.984 after it. "held-out-5" (68 lines written after that round, run once): 0.922, 0.887,
# 0.800. The sixth round (j2-kb-round5: Kazakh "ашық" of a clear sky is the weather, a bank's app and a money
# transfer are the bank's unless paid through, "my tariff" is the account, a person or a place gone to is a
# circumstance, a time of day with working/answering asks the hours, a Kazakh negated verb is a symptom; classes
# from held-out-5) added 160 calibration lines (the 1065 older calibration lines: 0.953, 0.940, 0.975 -> 0.956,
# 0.948, 0.982); held-out 0.949, 0.943, 0.979 after it, held-out-5 1.000, 0.981, 1.000 (optimistic: its classes
# were fixed). The seventh round (j8-kb-context: the caller's circumstances in clauses before the question's focus
# weigh little) added 70 calibration lines (before it: 0.833, 0.217, 0.958 on them; after 0.947, 0.783, 1.000;
# the 1225 older calibration lines 0.961, 0.946, 0.985 -> 0.961, 0.949, 0.985); held-out 0.949, 0.943, 0.979 ->
# 0.945, 0.943, 0.974, held-out-6 0.942, 0.726, 0.917 -> 0.939, 0.793, 0.917 (run once after it, not tuned on).
# `TARGET` is what issue 27 asks of the held-out half; the report says whether it is met.
CALIBRATION_MIN = {"precision": 0.95, "recall": 0.94, "rejection": 0.97}
HELD_OUT_MIN = {"precision": 0.94, "recall": 0.92, "rejection": 0.97}
TARGET = {"precision": 0.95, "recall": 0.90, "rejection": 0.97}
# The questions the operator's classifier (policies/operator/kb_classifier.py) never learnt: "held-out" and the five
# blind splits -20..-24 (2,230 lines). Lexicon alone 0.952, 0.841, 0.946; with it 0.978, 0.949, 0.974 (each split's
# own line above). On their first run, before anything was changed for them: -22 and -23 with the lexicon alone
# 0.955, 0.865, 0.960 and 0.941, 0.841, 0.923; -24 with the first classifier 0.963, 0.955, 0.935 (the lexicon alone
# 0.929, 0.803, 0.935).
NEVER_LEARNT_MIN = {"precision": 0.96, "recall": 0.93, "rejection": 0.96}
LEXICAL = dataclasses.replace(KNOWLEDGE, classifier=None)


async def lexicon_alone(kb: KnowledgeBase, item: G.Labelled) -> G.Outcome:
    """A labelled question's outcome scored by the lexicon alone (the policy's knowledge base without its
    classifier): the figures before it, measured in the same run."""
    hits = await kb.search(G.asked(item), item.lang, item.region,
                           fallback_languages=("ru",) if item.lang == "kk" else (), profile=LEXICAL)
    best = hits[0] if hits else None
    return G.Outcome(item, G.topic(best.entry_id) if best else "", best.relevance if best else 0.0,
                     best.fallback if best else False)


async def test_gate_precision_and_recall_on_the_labelled_questions(kb: KnowledgeBase, record_property) -> None:
    items = G.load()
    assert sum(i.in_scope for i in items) >= 60 and sum(not i.in_scope for i in items) >= 60
    assert {i.lang for i in items if i.in_scope} == {i.lang for i in items if not i.in_scope} == {"ru", "kk"}
    outcomes = []
    for item in items:
        hits = await kb.search(G.asked(item), item.lang, item.region,
                               fallback_languages=("ru",) if item.lang == "kk" else ())
        best = hits[0] if hits else None
        if best is not None:
            assert best.relevance is not None and best.gate == RELEVANCE_GATE
        outcomes.append(G.Outcome(item, G.topic(best.entry_id) if best else "", best.relevance if best else 0.0,
                                  best.fallback if best else False))
    unlearnt = [o for o in outcomes if o.item.split in HELD_OUT]
    lexical = [await lexicon_alone(kb, o.item) for o in unlearnt]
    by_split = {s: [o for o in outcomes if o.item.split == s] for s in G.SPLITS}
    threshold, plateau = G.calibrate(by_split["calibration"])
    lines = [f"kb relevance gate ({len(items)} labelled questions, ru+kk): calibrated threshold {threshold:.2f} "
             f"(plateau {plateau[0]:.2f}-{plateau[-1]:.2f}), shipped RELEVANCE_GATE {RELEVANCE_GATE:.2f}"]
    shipped = {s: G.figures(o, RELEVANCE_GATE) for s, o in by_split.items()}
    lines += [shipped[s].line(f"  {s:<11}") for s in G.SPLITS]
    lines.append(G.figures(by_split["held-out"], threshold).line(f"  {'held-out':<11}@calibrated"))
    held, before = G.figures(unlearnt, RELEVANCE_GATE), G.figures(lexical, RELEVANCE_GATE)
    lines.append(f"  never learnt by the classifier ({', '.join(sorted(HELD_OUT))}): {len(unlearnt)} questions; "
                 f"lexicon alone precision {before.precision:.3f} recall {before.recall:.3f} out-of-scope rejected "
                 f"{before.rejection:.3f} -> with the classifier {held.precision:.3f} {held.recall:.3f} "
                 f"{held.rejection:.3f}")
    short = [k for k, v in TARGET.items() if {"precision": held.precision, "recall": held.recall,
                                                "rejection": held.rejection}[k] < v]
    lines.append(f"  never-learnt target (precision {TARGET['precision']}, recall {TARGET['recall']}, out-of-scope "
                 f"rejected {TARGET['rejection']}): {'met' if not short else 'NOT met: ' + ', '.join(short)}")
    for line in lines:
        record_property("report", line)
    report = "\n".join(lines)
    assert RELEVANCE_GATE in plateau, report  # the shipped threshold is one the calibration split supports
    for split, minimum in (("calibration", CALIBRATION_MIN), ("held-out", HELD_OUT_MIN),
                           ("never learnt", NEVER_LEARNT_MIN)):
        f = held if split == "never learnt" else shipped[split]
        got = {"precision": f.precision, "recall": f.recall, "rejection": f.rejection}
        assert all(got[k] >= v for k, v in minimum.items()), f"{split}: {got} below {minimum}\n{report}"


def test_morphology_makes_colloquial_and_inflected_forms_one_term() -> None:
    from ai_operator.kb.kazakh import kazakh_stem
    from ai_operator.kb.morphology import normal_forms

    assert normal_forms("проведите")[-1] == "провести" and normal_forms("подключили")[-1] == "подключить"
    assert keys("проведите интернет") == keys("провести интернет") == keys("завести интернет")
    assert keys("инет отрубили") == ["internet", "block"] and "block" in keys("интернет отключили")[1]
    assert [kazakh_stem(w) for w in ("интернетімді", "тарифтеріңізде", "қосыламын", "мекенжайға", "шотымда")] == [
        "интернет", "тариф", "қосыл", "мекенжай", "шот"]
    assert kazakh_stem("роутерді") == "роутер" and kazakh_stem("пәтерге") == "пәтер"  # no vowel-led cut past them
    assert "date" in keys("четырнадцатого марта") and "date" in keys("наурыз мейрамы алдында")


def test_what_a_question_is_about_weighs_more_than_how_it_is_said() -> None:
    from ai_operator.kb.kazakh import is_kazakh_verb_form

    weight = {t.key: t.weight for t in terms("у меня интернет еле грузит страницы сломался роутер")}
    assert weight["страниц"] == 1.0 and weight["груз"] == 0.5  # a noun as it is, a plain verb half
    assert is_kazakh_verb_form("істейді") and is_kazakh_verb_form("кетемін") and not is_kazakh_verb_form("шотымда")
    # Kazakh auxiliary verbs after a converb and case endings written apart are no terms
    assert keys("интернетті неге өшіріп тастадыңыздар") == ["internet", "block|broken"]
    assert keys("роутер сынып қалды") == ["router", "broken"]
    assert keys("1616 ға қоңырау шалу тегін бе") == ["calls", "free"]
    # a phrase's two-letter first word is only itself: "долг сколько" is no opening hours
    assert keys("у меня долг сколько") == ["debt"] and keys("до скольки работаете") == ["hours", "works"]
    # an unseen Russian noun is what a question is about: paying for utilities is not our payment article
    e = ENTRIES["ru-payment-methods"]
    q = "как оплатить коммуналку через каспи"
    assert relevance(q, e["title"], e["text"], unseen_words(q, [(e["title"], e["text"])])).score < RELEVANCE_GATE


async def test_the_callers_own_regional_article_comes_first_when_it_covers_more(kb: KnowledgeBase) -> None:
    hits = await kb.search("наурызда интернет өшеді ме", "kk", "KZ-35", fallback_languages=("ru",))
    assert hits[0].entry_id == "kk-outage-karaganda" and hits[0].relevance >= RELEVANCE_GATE
    elsewhere = await kb.search("наурызда интернет өшеді ме", "kk", "KZ-71", fallback_languages=("ru",))
    assert all(h.entry_id != "kk-outage-karaganda" for h in elsewhere)


def test_phrases_pass_over_prepositions_and_a_combination_replaces_its_parts() -> None:
    assert keys("ремонт на сети") == ["maintenance"] and keys("денег на лицевом счете") == ["balance"]
    assert keys("вы деньги за эти дни вернете") == ["day", "refund"]  # not "money" and "return" besides
    assert keys("гигабит за четырнадцать девятьсот девяносто") == ["gigabit"]  # a number said carries no topic


def test_a_complaint_of_slowness_is_not_answered_by_a_list_of_speeds() -> None:
    q = "короче интернет тормозит жесть"
    assert rel(q, "ru-wifi-slow") >= RELEVANCE_GATE > rel(q, "ru-internet-tariffs")
    assert rel("какая скорость у тарифов", "ru-internet-tariffs") >= RELEVANCE_GATE


def test_an_office_in_a_place_no_article_covers_is_no_answer() -> None:
    assert rel("адрес офиса в Жамбылская", "ru-centre-astana") < RELEVANCE_GATE
    assert rel("адрес офиса в Астана", "ru-centre-astana") >= RELEVANCE_GATE
    assert rel("как заключить договор аренды квартиры", "ru-contract") < RELEVANCE_GATE


def test_a_bank_card_blocked_is_the_banks_not_an_internet_block() -> None:
    for q in ("заблокируйте мне карточку сбербанка", "каспи картасын қалай бұғаттауға болады"):
        assert max(rel(q, e) for e in ENTRIES) < RELEVANCE_GATE, q
    assert rel("интернет заблокировали за долг", "ru-debt-block") >= RELEVANCE_GATE


def test_the_cheapest_is_asked_of_the_tariff_list() -> None:
    for q, entry in (("а подешевле интернет у вас бывает", "ru-internet-tariffs"),
                     ("ең арзан үй интернеті қайсы", "kk-internet-tariffs")):
        assert rel(q, entry) >= RELEVANCE_GATE, q
    assert rel("где дешевле купить холодильник", "ru-internet-tariffs") < RELEVANCE_GATE


def test_discourse_frames_carry_no_terms() -> None:
    for frame in ("хотел спросить подскажите пожалуйста", "сұрағым келеді айтыңызшы", "сұрайын деп едім",
                  "білгім келеді", "уточнить хотела будьте добры", "скока", "қайырлы күн", "добрый вечер"):
        assert terms(frame) == [], frame


def test_a_negation_reads_forward_and_a_signal_that_does_not_reach_is_weak() -> None:
    assert "broken" not in keys("можно оплатить связь не выходя из дома")  # "не" negates what follows it
    assert "broken" in keys("интернета не будет ночью") and "broken" in keys("интернета нет")  # "нет" both ways
    assert keys("вайфай не ловит") == ["wifi", "weak"]
    assert rel("в дальней комнате вайфай не ловит", "ru-wifi-slow") >= RELEVANCE_GATE


def test_paying_by_card_or_app_is_the_ways_to_pay_and_a_lost_card_is_the_banks() -> None:
    for q, entry in (("картой через сайт можно заплатить не выходя из дома", "ru-payment-methods"),
                     ("банк арқылы төлесем ақша қашан түседі", "kk-payment-methods")):
        assert max(ENTRIES, key=lambda e: (rel(q, e), e == entry)) == entry and rel(q, entry) >= RELEVANCE_GATE, q
    for q in ("потеряла карточку халык заблокируйте", "картамды жоғалттым банкке қалай хабарласамын",
              "төлқұжат алу үшін қайда барамын", "сколько делается паспорт"):
        assert max(rel(q, e) for e in ENTRIES) < RELEVANCE_GATE, q


def test_the_days_something_works_are_its_opening_hours_and_a_title_not_asked_about_ranks_lower() -> None:
    assert keys("в субботу работаете") == ["hours"]
    assert rel("в воскресенье вы работаете", "ru-support-hours") >= RELEVANCE_GATE
    e = {i: relevance("какая скорость у тарифов", ENTRIES[i]["title"], ENTRIES[i]["text"])
         for i in ("ru-internet-tariffs", "ru-change-tariff")}
    assert e["ru-internet-tariffs"].score == e["ru-change-tariff"].score
    assert e["ru-internet-tariffs"].rank > e["ru-change-tariff"].rank  # "Смена тарифа" names a change not asked


def test_set_top_box_symptoms_are_set_up_not_the_packages() -> None:
    for q, entry in (("приставка каналы не показывает", "ru-tv-setup"), ("экран черный на приставке", "ru-tv-setup"),
                     ("приставка арналарды көрсетпейді", "kk-tv-setup")):
        tv = {i: relevance(q, ENTRIES[i]["title"], ENTRIES[i]["text"]) for i in ENTRIES if "tv-" in i and i[:2] == entry[:2]}
        assert max(tv, key=lambda i: tv[i].rank) == entry and tv[entry].score >= RELEVANCE_GATE, q


def best_national(question: str) -> tuple[str, float]:
    """The best national article in the question's language (Kazakh if it has a Kazakh letter) for `question` (by
    score, then the ordering signals), the question's words no article has weighing as unseen."""
    lang = "kk" if set(question) & set("әғқңөұүһі") else "ru"
    articles = {i: e for i, e in ENTRIES.items() if e["regions"] == ["*"] and i.startswith(lang)}
    unseen = unseen_words(question, [(e["title"], e["text"]) for e in articles.values()])
    scored = {i: relevance(question, e["title"], e["text"], unseen) for i, e in articles.items()}
    top = max(scored, key=lambda i: (scored[i].score, scored[i].rank))
    return top, scored[top].score


def assert_answered(question: str, entry: str) -> None:
    """`entry` is the best national article for `question` and reaches the gate; a Kazakh question about a topic
    with no Kazakh article (a Russian `entry`) is answered from the Russian one as the search chooses: it reaches
    the gate and the best Kazakh article does not, or is `selection.FALLBACK_MARGIN` less relevant."""
    if set(question) & set("әғқңөұүһі") and entry.startswith("ru-"):
        russian, kazakh = rel(question, entry), best_national(question)[1]
        assert russian >= RELEVANCE_GATE, question
        assert kazakh < RELEVANCE_GATE or russian - kazakh >= FALLBACK_MARGIN, (question, kazakh)
        return
    top, score = best_national(question)
    assert top == entry and score >= RELEVANCE_GATE, (question, top, score)


def assert_unanswered(question: str) -> None:
    """No national article reaches the gate for `question`."""
    assert best_national(question)[1] < RELEVANCE_GATE, question


def phrasing_tests(answered: list[tuple[str, str]], unanswered: list[str]) -> tuple[Callable[..., None], ...]:
    """A class's two tests: each (question, entry) of `answered` reaches its entry (`assert_answered`), each
    question of `unanswered` (its near misses, in the same words) gets no answer. Bind them to test_ names."""

    @pytest.mark.parametrize(("question", "entry"), answered)
    def reaches(question: str, entry: str) -> None:
        assert_answered(question, entry)

    @pytest.mark.parametrize("question", unanswered)
    def misses(question: str) -> None:
        assert_unanswered(question)

    return reaches, misses


def test_a_clear_sky_is_the_weather_not_opening_hours() -> None:
    assert "weather" in keys("ертең күн ашық бола ма") and "hours" not in keys("ертең күн ашық бола ма")
    assert "hours" in keys("жексенбі күні орталық ашық па")  # "күні" is not the sky's "күн"
    for q in ("ертең аспан ашық бола ма", "демалыста ауа райы ашық бола ма", "завтра ясно будет или дождь"):
        assert best_national(q)[1] < RELEVANCE_GATE, q
    assert best_national("сенбі күні кеңселерің ашық бола ма")[0] == "kk-support-hours"


def test_a_bank_named_is_ours_only_when_paid_through() -> None:
    for q in ("каспи қосымшасы ашылмай жатыр", "как скинуть деньги другу по номеру телефона",
              "халык приложение зависает что делать"):
        assert best_national(q)[1] < RELEVANCE_GATE, q
    assert "pay" in keys("перевел деньги на лицевой счет через каспи")  # a transfer to our account is a payment
    for q, entry in (("через каспи приложение оплатил интернет а деньги не пришли", "ru-payment-methods"),
                     ("каспи қосымшасы арқылы интернетке қалай төлеймін", "kk-payment-methods")):
        assert best_national(q)[0] == entry and best_national(q)[1] >= RELEVANCE_GATE, q


def test_where_to_see_my_tariff_is_the_account_and_changing_it_is_the_change() -> None:
    for q in ("где в приложении посмотреть мой тариф", "тарифімді қосымшадан қалай көремін"):
        assert best_national(q)[0].endswith("personal-account"), q
    for q in ("хочу поменять свой тариф в приложении", "тарифімді қосымшада ауыстырғым келеді"):
        assert best_national(q)[0].endswith("change-tariff"), q


def test_a_person_or_a_place_gone_to_is_a_circumstance_not_the_topic() -> None:
    for q, entry in (("мы на дачу уезжаем на все лето можно интернет приостановить", "ru-pause"),
                     ("саяжайға жазға кетеміз интернетті уақытша тоқтатуға бола ма", "kk-pause")):
        assert best_national(q) == (entry, best_national(q)[1]) and best_national(q)[1] >= RELEVANCE_GATE, q
    for q in ("как подключить газ на дачу", "как перевезти вещи на дачу"):  # the thing asked is not ours
        assert best_national(q)[1] < RELEVANCE_GATE, q


def test_a_time_of_day_with_working_or_answering_asks_the_opening_hours() -> None:
    for q in ("чат ночью отвечает или только днем", "түнде операторлар жауап бере ме", "в обед сервисный центр работает"):
        assert "hours" in keys(q), q
    assert "hours" not in keys("интернет ночью пропадает постоянно")
    assert best_national("служба поддержки в выходные отвечает")[0] == "ru-support-hours"


def test_a_kazakh_verb_in_the_negative_is_a_symptom() -> None:
    from ai_operator.kb.kazakh import is_kazakh_negated_verb

    assert all(is_kazakh_negated_verb(w) for w in ("жүктелмей", "бітпейді", "ашылмады", "жанбай"))
    assert not any(is_kazakh_negated_verb(w) for w in ("білмеймін", "программаны", "алма", "жұмада"))
    assert "broken" in keys("арналар жүктелмей жатыр")
    assert best_national("арналар жүктелмей жатыр приставкада")[0] == "kk-tv-setup"


def test_side_context_before_the_question_weighs_little_but_the_thing_asked_still_counts() -> None:
    # the caller's circumstances in a clause before the question do not dilute a clear match (issue 27 §1)
    q = "мы с мужем купили квартиру в новостройке на левом берегу как нам провести интернет"
    assert {"relative", "buy", "левый", "берег"} <= SCORER.context(q) and "connect" not in SCORER.context(q)
    assert best_national(q)[0] == "ru-internet-connect" and best_national(q)[1] >= RELEVANCE_GATE
    top, score = best_national("балам кешке ойын ойнайды вайфай өте баяу неге")  # a Kazakh clause ends at its verb
    assert top == "kk-wifi-slow" and score >= RELEVANCE_GATE
    # ... but the same context with a question about something not ours is still no answer
    for q in ("мы с мужем купили квартиру как оформить ипотеку в банке", "купили дачу как провести газ на дачу",
              "жаңа үй сатып алдық ипотеканы қалай рәсімдеймін", "әкем қайтыс болды мұраны қалай рәсімдеймін"):
        assert best_national(q)[1] < RELEVANCE_GATE, q
    assert SCORER.context("долг погасил когда включат интернет") == frozenset()  # two words: no background clause


def test_a_word_one_letter_off_a_long_stem_of_ours_is_that_word_and_a_real_word_is_not() -> None:
    # ASR mis-spellings: one letter missing, extra, wrong or two swapped, in words no dictionary knows
    for said, meant in (("интернед", "интернет"), ("раутер", "роутер"), ("преставка", "приставка"),
                        ("интренет", "интернет"), ("интеррнета", "интернета"),
                        ("приставкаа", "приставка")):
        assert keys(said) == keys(meant) and keys(meant)[0] in SCORER.vocabulary.weights, (said, keys(said))
    for said, meant, entry in (("раутер мигает красным что делать", "роутер мигает красным что делать", "ru-no-internet"),
                               ("интернед не работаит", "интернет не работает", "ru-no-internet"),
                               ("как настроить раутер", "как настроить роутер", "ru-router-setup"),
                               ("преставка не показывает каналы", "приставка не показывает каналы", "ru-tv-setup")):
        assert rel(said, entry) == rel(meant, entry) >= RELEVANCE_GATE, said
    # a dictionary word is never read as a mis-spelling ("интернат" is a boarding school), nor a short stem's
    # neighbour, nor a word whose first letter differs
    assert keys("интернат") != keys("интернет") and keys("кроутер") != keys("роутер")
    vocabulary = SCORER.vocabulary
    assert vocabulary.concepts_near("тарив") == () and vocabulary.concepts_near("xyzxyzxyz") == ()  # "тариф": too short
