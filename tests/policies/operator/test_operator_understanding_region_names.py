"""Regions however callers name them, and corrections of the region once it is set (issue 27), from the caller's
side through a real operator session: historic names and spellings, abbreviations, "the capital", Kazakh case
forms on "облысы" (a named Almaty region needs no "city or region?"), "not X but Y" in both languages with or
without a correction word; plus the guarantee that no utterance reaches the knowledge base before the language
and the region are set (a property over generated utterances)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from ai_operator.dialogue import KnowledgeSearch
from policies.operator.selftest_support import session_in
from policies.operator.states import State

RU, KK = "русский", "қазақша"

# (language, what the caller says when asked for the region, the region it names)
NAMES = [
    (RU, "я из столицы", "KZ-71"),
    (RU, "ну в столице живу", "KZ-71"),
    (RU, "из южной столицы звоню", "KZ-75"),
    (RU, "эээ целиноград", "KZ-71"),
    (RU, "из семипалатинска", "KZ-10"),
    (RU, "гурьев", "KZ-23"),
    (RU, "джамбул", "KZ-31"),
    (RU, "талды курган", "KZ-33"),
    (RU, "кзыл орда", "KZ-43"),
    (RU, "из алма аты", "KZ-75"),
    (RU, "вко усть каменогорск", "KZ-63"),
    (RU, "я из зко", "KZ-27"),
    (RU, "ско петропавловск", "KZ-59"),
    (RU, "юко", "KZ-61"),
    (RU, "актюбе", "KZ-15"),
    (RU, "мангышлак", "KZ-47"),
    (RU, "алматинская область", "KZ-19"),
    (RU, "из алматинской области талгар", "KZ-19"),
    (KK, "елордадан", "KZ-71"),
    (KK, "елордада тұрамын", "KZ-71"),
    (KK, "алматы облысынан", "KZ-19"),
    (KK, "алматы облысында тұрамын", "KZ-19"),
    (KK, "алматы облысынанмын", "KZ-19"),
    (KK, "мен алматы облысының тұрғынымын", "KZ-19"),
    (KK, "қарағанды облысынан", "KZ-35"),
    (KK, "павлодар облысында", "KZ-55"),
    (KK, "шқо", "KZ-63"),
    (KK, "бқо орал", "KZ-27"),
    (KK, "алматы қаласынан", "KZ-75"),
    # a city's district or side named instead of the city
    (RU, "мы на левом берегу живём", "KZ-71"),
    (RU, "сарыаркинский район", "KZ-71"),
    (RU, "есильский район", "KZ-71"),
    (RU, "медеуский район", "KZ-75"),
    (RU, "я в бостандыкском районе", "KZ-75"),
    (RU, "турксибский район", "KZ-75"),
    (RU, "ауэзовский район", "KZ-75"),
    (KK, "сол жағалауда тұрамын", "KZ-71"),
    (KK, "медеу ауданында тұрамын", "KZ-75"),
    (KK, "сарыарқа ауданынан", "KZ-71"),
    # "Алматы" with a street or a district of the city: the city, no question
    (RU, "алматы улица толе би дом пять", "KZ-75"),
    (RU, "я в алматы на проспекте абая живу", "KZ-75"),
    (KK, "мен алматыда сәтбаев көшесінде тұрамын", "KZ-75"),
    (KK, "алматы әуезов ауданы", "KZ-75"),
    (KK, "әуезов ауданынан хабарласып тұрмын", "KZ-75"),
    # a village named with a person's name or an ordinary word, in Kazakh with "ауылы" (as "село X" in Russian)
    (KK, "жәнібек ауылынан", "KZ-27"),
    (KK, "мен жақсы ауылында тұрамын", "KZ-11"),
]


@pytest.mark.parametrize(("language", "said", "code"), NAMES)
def test_a_region_named_as_people_say_it_is_set_without_a_clarification(language: str, said: str,
                                                                         code: str) -> None:
    s = session_in("REGION_SELECTION", language=language)
    r = s.on_utterance(said)
    assert s.region_code == code, r.text
    assert s.state == State.READY_TO_HELP and not s.awaiting and r.effect is None


# (language, region set first, the correction, the region it corrects to)
CORRECTIONS = [
    (RU, "Павлодар", "не павлодар а караганда", "KZ-35"),
    (RU, "Павлодар", "ой нет не павлодар а караганда", "KZ-35"),
    (RU, "Павлодар", "извините я ошибся не павлодар а караганда", "KZ-35"),
    (RU, "Павлодар", "я не из павлодара а из караганды", "KZ-35"),
    (RU, "Павлодар", "не в павлодаре а в караганде я живу", "KZ-35"),
    (RU, "Павлодар", "поправка караганда", "KZ-35"),
    (RU, "Павлодар", "я ошибся караганда", "KZ-35"),
    (RU, "Павлодар", "нет нет не павлодарская область а карагандинская", "KZ-35"),
    (RU, "Павлодар", "точнее караганда а не павлодар", "KZ-35"),
    (RU, "Павлодар", "вернее темиртау", "KZ-35"),
    (RU, "Павлодар", "караганда а не павлодар", "KZ-35"),
    (RU, "Астана", "не астана а алматы город", "KZ-75"),
    (RU, "Астана", "не астана а алматинская область", "KZ-19"),
    (RU, "Павлодар", "неправильно сказал актобе", "KZ-15"),
    (KK, "Павлодар", "павлодар емес қарағанды", "KZ-35"),
    (KK, "Павлодар", "жоқ павлодар емес ақтөбе", "KZ-15"),
    (KK, "Павлодар", "кешіріңіз қателестім қарағанды", "KZ-35"),
    (KK, "Павлодар", "мен павлодардан емеспін қарағандыданмын", "KZ-35"),
    (KK, "Павлодар", "павлодар емес қарағанды облысы", "KZ-35"),
    (KK, "Павлодар", "дұрысы қарағанды", "KZ-35"),
    (KK, "Павлодар", "қате айттым ақтөбе", "KZ-15"),
    (KK, "Астана", "астана емес алматы облысы", "KZ-19"),
    (KK, "Астана", "астана емес алматы облысынан", "KZ-19"),
    (KK, "Павлодар", "павлодарда емес қарағандыда тұрамын", "KZ-35"),
    # with the fillers and discourse words of a phone call around it, and a place alone once the region is set
    (RU, "Караганда", "да нет не из караганды а из павлодара", "KZ-55"),
    (RU, "Караганда", "алло девушка не караганда а павлодар", "KZ-55"),
    (RU, "Караганда", "подождите не караганда павлодарская область", "KZ-55"),
    (RU, "Караганда", "стоп не караганда а павлодар", "KZ-55"),
    (RU, "Караганда", "так не караганда а павлодар же", "KZ-55"),
    (RU, "Караганда", "я имею в виду павлодар", "KZ-55"),
    (RU, "Караганда", "в смысле павлодар я сказал", "KZ-55"),
    (RU, "Караганда", "вообще то я из павлодара", "KZ-55"),
    (RU, "Караганда", "я же говорю павлодар", "KZ-55"),
    (RU, "Караганда", "нет нет павлодар", "KZ-55"),
    (RU, "Караганда", "павлодар", "KZ-55"),
    (RU, "Караганда", "ну павлодарская область пожалуйста", "KZ-55"),
    (RU, "Караганда", "ага ладно не караганда а экибастуз", "KZ-55"),
    (RU, "Павлодар", "секунду я из семипалатинска", "KZ-10"),
    (RU, "Павлодар", "слушайте мы вообще то в целинограде живем", "KZ-71"),
    (KK, "Қарағанды", "кешіріңіз қателесіппін павлодармын", "KZ-55"),
    (KK, "Қарағанды", "қойшы павлодар деймін ғой", "KZ-55"),
    (KK, "Қарағанды", "иә жоқ павлодар облысы", "KZ-55"),
    (KK, "Қарағанды", "павлодардан хабарласып тұрмын", "KZ-55"),
    (KK, "Қарағанды", "мен павлодарда тұрамын", "KZ-55"),
    (KK, "Қарағанды", "жоқ жоқ қарағанды емес павлодар облысынан", "KZ-55"),
    (KK, "Қарағанды", "енді жаңағы павлодар", "KZ-55"),
    (KK, "Қарағанды", "ой шатастырдым ақтөбе", "KZ-15"),
    (KK, "Қарағанды", "алло павлодар айттым ғой", "KZ-55"),
    # in Almaty: the city for the region, or back
    (RU, "город алматы", "извините не город а алматинская область", "KZ-19"),
    (RU, "город алматы", "не город а область", "KZ-19"),
    (RU, "город алматы", "я в области живу а не в городе", "KZ-19"),
    (RU, "алматинская область", "ой нет я в самом городе алматы", "KZ-75"),
    (RU, "алматинская область", "не область а город", "KZ-75"),
    (KK, "алматы қаласы", "кешіріңіз қала емес облыс", "KZ-19"),
    (KK, "алматы облысы", "облыс емес қала", "KZ-75"),
    # the same region said again by a town, longer Almaty switches, more ways to say "I mean"
    (RU, "Караганда", "не караганда а темиртау", "KZ-35"),
    (RU, "Павлодар", "ой не павлодар а экибастуз", "KZ-55"),
    (KK, "Павлодар", "павлодар емес екібастұз", "KZ-55"),
    (RU, "алматинская область", "нет извините не область а сам город алматы", "KZ-75"),
    (KK, "алматы облысы", "жоқ облыс емес қаланың өзі алматы қаласы", "KZ-75"),
    (RU, "город алматы", "извините я в каскелене живу это область", "KZ-19"),
    (RU, "Уральск", "ну это не уральск короче актобе", "KZ-15"),
    (KK, "Түркістан", "түзетейін жамбыл облысы", "KZ-31"),
    (KK, "Павлодар", "кешіріңіз петропавлдан боламын", "KZ-59"),
    (RU, "Павлодар", "я живу в аль фарабийском районе шымкента", "KZ-79"),
    (RU, "Кокшетау", "извините я сказала кокшетау а надо степногорск", "KZ-11"),
    # a correction inside a longer sentence: the region set taken back or named as what was said, or a correction word
    (RU, "Павлодар", "девушка я вам павлодар назвала по ошибке мы уже три года как в кокшетау живём", "KZ-11"),
    (RU, "Павлодар", "у нас квартира не в павлодаре оформлена а в экибастузе у свекрови", "KZ-55"),
    (RU, "Павлодар", "я не с павлодара звоню я с семея просто симка павлодарская", "KZ-10"),
    (RU, "Павлодар", "короче по привычке сказал павлодар а живу я теперь в уральске", "KZ-27"),
    (RU, "Павлодар", "ой я неправильно сказала мы в таразе", "KZ-31"),
    (RU, "Павлодар", "на самом деле не павлодар у меня интернет на даче под алматы в каскелене", "KZ-19"),
    (KK, "Павлодар", "павлодар деп айттым ғой ол қате мен қызылордада тұрамын", "KZ-43"),
    (KK, "Павлодар", "жоқ біз павлодарда емес ақтауда тұрамыз үйіміз сонда", "KZ-47"),
    (KK, "Павлодар", "кешіріңіз қателесіппін біз түркістанда тұрамыз", "KZ-61"),
    (RU, "Павлодар", "не правильно сказал я из шалкара", "KZ-15"),
    # the region set, said again: confirmed, no search
    (RU, "Павлодар", "да да павлодар павлодар", "KZ-55"),
    (RU, "Астана", "астана астана я же сказал", "KZ-71"),
    (KK, "Павлодар", "иә павлодар", "KZ-55"),
    (RU, "город Алматы", "город город", "KZ-75"),
    (KK, "Алматы облысы", "иә облыс", "KZ-19"),
    # a move that is done
    (RU, "Павлодар", "я переехал в караганду", "KZ-35"),
    (KK, "Павлодар", "ақтөбеге көштім", "KZ-15"),
]


@pytest.mark.parametrize(("language", "first", "said", "code"), CORRECTIONS)
def test_a_correction_of_the_region_changes_it_and_is_not_a_question(language: str, first: str, said: str,
                                                                      code: str) -> None:
    s = session_in("READY_TO_HELP", language=language, region=first)
    r = s.on_utterance(said)
    assert r.effect is None and s.region_code == code, r.text
    assert s.state == State.READY_TO_HELP
    assert isinstance(s.on_utterance("сколько стоит интернет").effect, KnowledgeSearch)


def test_not_astana_but_almaty_asks_city_or_region() -> None:
    s = session_in("READY_TO_HELP", region="Астана")
    r = s.on_utterance("не астана а алматы")
    assert r.effect is None and s.awaiting == "almaty" and "город" in r.text
    s.on_utterance("область")
    assert s.region_code == "KZ-19"


@pytest.mark.parametrize(("language", "said"), [
    (RU, "не в павлодаре а в караганде есть офис"),
    (RU, "сколько стоит интернет в караганде"),
    (RU, "в караганде будут работы ночью"),
    (RU, "я ошибся с тарифом как поменять"),
    (RU, "нет не павлодар а павлодар"),
    (KK, "қарағандыда кеңсе бар ма"),
    (KK, "қате төлем жасадым"),
    (RU, "караганда интернет"),
    (RU, "не павлодар а караганда какой тариф"),
    (RU, "а в караганде сколько стоит"),
    (RU, "алло девушка в караганде офис где"),
    (KK, "қарағандыда интернет жоқ"),
    (KK, "павлодар емес қарағандыда тариф қанша"),
    (RU, "мы переезжаем в караганду как перенести интернет"),  # a move to come, asked about: a question
    (RU, "а если я перееду в караганду интернет сохранится"),
    (RU, "мы переезжаем из павлодара в караганду договор сохранится"),
    (KK, "қарағандыға көшіп жатырмын шартты қалай ауыстырамын"),
    (RU, "в павлодаре и в караганде тарифы одинаковые"),  # both regions, nothing taken back
    (RU, "мне сказали что в караганде тариф дешевле"),
    (RU, "не в павлодаре а в караганде можно подключить гигабит"),
])
def test_a_question_that_names_a_place_is_still_a_question(language: str, said: str) -> None:
    s = session_in("READY_TO_HELP", language=language, region="Павлодар")
    r = s.on_utterance(said)
    assert isinstance(r.effect, KnowledgeSearch) and s.region_code == "KZ-55"


UTTERANCES = st.sampled_from([
    "русский", "қазақша", "на русском", "не павлодар а караганда", "павлодар емес қарағанды", "я ошибся караганда",
    "алматы", "алматы облысынан", "город", "область", "в столице", "елордадан", "вко", "не знаю", "сколько стоит интернет",
    "интернет жоқ", "какая погода", "соедините с оператором", "ну короче", "да", "нет", "ещё раз", "тариф алматы гига",
    "поправка актобе", "смените регион", "қате айттым ақтөбе", "я из шахтинска", "до свидания", "[silence]", "улица абая",
    "я ошибся", "не астана а алматы",
])  # fmt: skip


@settings(max_examples=300, deadline=None)
@given(st.lists(UTTERANCES, min_size=1, max_size=8))
def test_no_search_before_the_language_and_the_region(utterances: list[str]) -> None:
    s = session_in("GREETING")
    s.start()
    for said in utterances:
        if s.state in (State.ENDED, State.CLOSING, State.HANDOFF):
            break
        before = (s.language, s.region_code, s.awaiting)
        r = s.on_silence() if said == "[silence]" else s.on_utterance(said)
        if isinstance(r.effect, KnowledgeSearch):
            assert before[0] and before[1] and not before[2], (utterances, before)
            assert r.effect.scope == {"region": s.region_code} and r.effect.language == s.language
