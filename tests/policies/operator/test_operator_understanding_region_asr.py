"""Regions as a speech recogniser writes them and as callers place themselves (issue 27, classes 4 and 5, fourth
round), through a real operator session:

- a region's name or large town one letter off or split in two ("павладар", "шимкент", "уст каменогорск", "петро
  павловск", "жез казган", "ақ төбе") and Kazakh plural demonyms ("ақтөбеліктерміз", "біз қарағандылықтармыз")
  are set; words near a district's or a village's name, or split words that only touch a name, are not;
- of two places, the one the caller lives in, not where he used to live or works ("я в таразе раньше в шымкенте
  жил", "живу в костанае но работаю в астане", "бұрын оралда тұрдым қазір ақтөбедемін");
- a correction after a stop word or "the region is another" ("тоқтаңыз түркістан облысы", "ой нет регион другой
  семей", "облысым басқа шымкент") changes the region with no search; two places compared ("в шымкенте дешевле
  чем в таразе") are a question."""

from __future__ import annotations

import pytest

from ai_operator.dialogue import KnowledgeSearch
from policies.operator.regions import resolve_region
from policies.operator.selftest_support import session_in
from policies.operator.states import State

RU, KK = "русский", "қазақша"

SAID = [
    (RU, "павладар", "KZ-55"),
    (RU, "я из павладара", "KZ-55"),
    (RU, "павладарская область", "KZ-55"),
    (RU, "шимкент", "KZ-79"),
    (RU, "живу в шимкенте", "KZ-79"),
    (RU, "уст каменогорск", "KZ-63"),
    (RU, "усть каменагорск", "KZ-63"),
    (RU, "из уст-каменогорска", "KZ-63"),
    (RU, "петро павловск", "KZ-59"),
    (RU, "жез казган", "KZ-62"),
    (RU, "караганды область карагандинкая", "KZ-35"),
    (RU, "кокшитау", "KZ-11"),
    (RU, "экибастус", "KZ-55"),
    (RU, "almaty oblast", "KZ-19"),
    (RU, "чимкентская область сарыагаш", "KZ-61"),
    (KK, "ақ төбе", "KZ-15"),
    (KK, "ақтөбеліктерміз ғой", "KZ-15"),
    (KK, "біз қарағандылықтармыз", "KZ-35"),
    (KK, "шымкенттіктерміз", "KZ-79"),
    (KK, "павладарда тұрамын", "KZ-55"),
    # of two places, the one he lives in
    (RU, "я в таразе раньше в шымкенте жил", "KZ-31"),
    (RU, "живу в костанае но работаю в астане", "KZ-39"),
    (RU, "раньше в караганде жили сейчас в павлодаре", "KZ-55"),
    (KK, "бұрын оралда тұрдым қазір ақтөбедемін", "KZ-15"),
    (KK, "қонаевта тұрамын бірақ жұмысым алматыда", "KZ-19"),
]

NOT_A_PLACE = ["денисов звонил", "у нас в селе глубокий снег", "оптикалық талшық", "торғай ұшып кетті",
               "таскала сумки весь день", "успенский собор", "басқа аймақ", "павлин в зоопарке", "шифер на крыше"]


@pytest.mark.parametrize(("language", "said", "code"), SAID)
def test_a_region_as_the_recogniser_wrote_it_is_set(language: str, said: str, code: str) -> None:
    s = session_in("REGION_SELECTION", language=language)
    r = s.on_utterance(said)
    assert s.region_code == code, r.text
    assert s.state == State.READY_TO_HELP and r.effect is None


@pytest.mark.parametrize("said", NOT_A_PLACE)
def test_words_near_a_name_are_no_region(said: str) -> None:
    assert not resolve_region(said).selected


CORRECTIONS = [
    (KK, "Шымкент", "тоқтаңыз түркістан облысы", "KZ-61"),
    (KK, "Ақтау", "тоқтаңыз мен атыраудан", "KZ-23"),
    (RU, "Караганда", "ой нет регион другой семипалатинск", "KZ-10"),
    (RU, "Караганда", "ой нет регион другой семей", "KZ-10"),
    (KK, "Тараз", "жоқ жоқ облысым басқа шымкент қаласы", "KZ-79"),
    (RU, "Акмола", "ой нет не то нажал шучинск", "KZ-11"),
    (RU, "Караганда", "стоп павладар", "KZ-55"),
    (KK, "Қарағанды", "жоқ ақ төбе", "KZ-15"),
]


@pytest.mark.parametrize(("language", "first", "said", "code"), CORRECTIONS)
def test_a_correction_after_a_stop_word_changes_the_region(language: str, first: str, said: str, code: str) -> None:
    s = session_in("READY_TO_HELP", language=language, region=first)
    r = s.on_utterance(said)
    assert r.effect is None and s.region_code == code, r.text


@pytest.mark.parametrize("said", ["в шымкенте интернет дешевле чем в таразе или одинаково",
                                  "в таразе тарифы дороже чем в шымкенте"])
def test_two_places_compared_are_a_question(said: str) -> None:
    s = session_in("READY_TO_HELP", region="Тараз")
    r = s.on_utterance(said)
    assert isinstance(r.effect, KnowledgeSearch) and s.region_code == "KZ-31"


# (language, the answer to the region question that also asks, the region, a fact of the answer)
ASKED_WITH_THE_REGION = [
    (RU, "я из павлодара сколько стоит самый быстрый тариф", "KZ-55", "16 990"),
    (RU, "звоню из караганды сколько стоит аренда роутера", "KZ-35", "500"),
    (RU, "шымкент как оплатить через каспи", "KZ-79", "Kaspi"),
    (KK, "ақтөбеденмін роутер жалға қанша тұрады", "KZ-15", "500"),
    (KK, "павлодардан хабарласып тұрмын роутерді жалға алу қанша тұрады", "KZ-55", "500"),
]


@pytest.mark.parametrize(("language", "said", "code", "fact"), ASKED_WITH_THE_REGION)
def test_a_question_asked_with_the_region_is_searched_at_once(language: str, said: str, code: str,
                                                              fact: str) -> None:
    s = session_in("REGION_SELECTION", language=language)
    r = s.on_utterance(said)
    assert s.region_code == code and isinstance(r.effect, KnowledgeSearch), r.text
    assert code not in r.effect.query and "павлодар" not in r.effect.query  # the region is the scope, not a word


@pytest.mark.parametrize("said", ["я из павлодара", "павлодар облысынан хабарласып тұрмын", "город алматы пожалуйста",
                                  "мы живём в караганде уже три года"])
def test_the_region_alone_asks_for_the_question(said: str) -> None:
    s = session_in("REGION_SELECTION")
    r = s.on_utterance(said)
    assert r.effect is None and s.state == State.READY_TO_HELP


@pytest.mark.parametrize("said", ["стоп", "подождите секунду", "алло алло", "тоқтаңыз", "сәл күте тұрыңыз"])
def test_a_hold_on_is_no_search(said: str) -> None:
    s = session_in("READY_TO_HELP", region="Кокшетау")
    r = s.on_utterance(said)
    assert r.effect is None and s.region_code == "KZ-11" and r.text


@pytest.mark.parametrize(("first", "said", "code"), [
    ("Актобе", "сколько стоит дом 100 ой стоп я не в актобе я в уральске", "KZ-27"),
    ("Тараз", "тариф қанша тұрады жоқ тоқтаңыз мен шымкенттенмін", "KZ-79"),
    ("Павлодар", "роутер в аренду сколько ой подождите я не из павлодара я из кокшетау", "KZ-11"),
    ("Павлодар", "ой слушайте я ж забыл мы переехали уже я теперь в кокшетау живу", "KZ-11"),
    ("Павлодар", "біз көштік қазір көкшетаудамыз", "KZ-11"),
    # a tag question that insists, and corrections with one more word around them
    ("Павлодар", "а разве не караганда я же из караганды звоню", "KZ-35"),
    ("Астана", "қарағанды емес пе еді мен қарағандыданмын ғой", "KZ-35"),
    ("Павлодар", "я переехал в караганду в сентябре", "KZ-35"),
    ("Павлодар", "извините регион не тот я в кокшетау живу", "KZ-11"),
    ("Шығыс Қазақстан", "секунд секунд ақтөбе облысы", "KZ-15"),
    ("Орал", "қайта айтайын атыраудан хабарласып тұрмын", "KZ-23"),
    ("Павлодар", "кстати я вообще то в актобе живу", "KZ-15"),
    ("Шымкент", "мы переехали в туркестан в прошлом году", "KZ-61"),
    ("Шымкент", "былтыр түркістанға көштік", "KZ-61"),
])  # fmt: skip
def test_a_question_dropped_for_a_correction_or_a_move_done_changes_the_region(first: str, said: str,
                                                                             code: str) -> None:
    s = session_in("READY_TO_HELP", region=first)
    r = s.on_utterance(said)
    assert r.effect is None and s.region_code == code, r.text


@pytest.mark.parametrize("said", ["а в караганде же тоже есть офис", "я же из павлодара звоню почему нет интернета",
                                  "в прошлом году в караганде был ремонт сети",
                                  "мы переезжаем в кокшетау как перенести интернет",
                                  "мы переехали в кокшетау теперь как перенести интернет",
                                  "сколько стоит интернет ой стоп а роутер в аренду"])
def test_a_move_asked_about_stays_a_question(said: str) -> None:
    s = session_in("READY_TO_HELP", region="Павлодар")
    r = s.on_utterance(said)
    assert isinstance(r.effect, KnowledgeSearch) and s.region_code == "KZ-55"
