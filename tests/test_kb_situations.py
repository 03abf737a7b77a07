"""Round 10 (held-out-13) of the knowledge-base relevance classes (issue 27 §1; policies/operator/lexicon_situations.py),
each asked as an ASR returns it, in Russian and Kazakh, with near misses in the same words that still get no answer:

- a place abroad by name (a country, a capital, a city people travel to) is "abroad" when the phone, the internet,
  calls or roaming are asked about there, and no article's alone ("квартира в Ташкенте");
- a landline, credit and instalments, utility bills are services that are not ours;
- slang for a speed tier ("пятисотка", "гиговый", "жүздік"), Kazakh verbs of our actions ("жазылу", "көбейту",
  "апару", "жабу", "жете ме"), a programme missed and watched later, a cash desk, money taken off a card;
- apologies and a story's openers ("блин", "извините что поздно", "кешіріңіз мазалап", "былай айтайын") carry no
  topic, and "нету" after what is missing makes "does not work";
- a paused service and a paused broadcast reach their own articles, and a landmark by the Astana centre is where
  the centre is, not the pupils a tariff is for.

The class-wide figures are the "calibration-situations" split of the labelled set (tests/support/kb_gate.py),
written from the class descriptions by someone who did not read the lexicon."""

from __future__ import annotations

from ai_operator.kb.relevance import RELEVANCE_GATE
from policies.operator.confirmation import CONFIRM_SHARE
from policies.operator.knowledge import SCORER
from tests.test_kb_relevance import assert_answered, keys, phrasing_tests, rel

ANSWERED = [
    ("в ташкенте ваша симка будет интернет ловить", "ru-mobile-roaming"),
    ("я в бишкек еду на неделю по работе мобильный интернет там почём будет", "ru-mobile-roaming"),
    ("лечу в стамбул на выходные сколько стоит роуминг", "ru-mobile-roaming"),
    ("мама на умру в мекку едет телефон там будет работать и сколько стоит интернет", "ru-mobile-roaming"),
    ("сеулге барамын ұялы интернет сонда қанша тұрады", "ru-mobile-roaming"),
    ("мәскеуге барамын роуминг қанша", "ru-mobile-roaming"),
    ("умраға барамын сауд арабиясында телефоным істей ме интернеті қанша болады", "ru-mobile-roaming"),
    ("с трёхсот на пятисотку хочу перескочить как это сделать", "ru-change-tariff"),
    ("жылдамдығын көбейтейін деп едім тарифті жоғарылатуға бола ма", "kk-change-tariff"),
    ("біздің ауылға кабель жете ме интернет қосасыздар ма", "kk-internet-connect"),
    ("интернетке жазылу үшін қандай құжат керек", "kk-internet-connect"),
    ("пропустила вчера сериал можно его потом посмотреть", "ru-tv-packages"),
    ("кешегі концертті өткізіп алдым теледидардан кейін қайта көруге бола ма", "kk-tv-packages"),
    ("вчера через кассу оплатила а у вас не отобразилось", "ru-payment-methods"),
    ("можно сделать чтобы само с карточки снималось каждый месяц", "ru-payment-due"),
    ("блин извините что поздно ситуация такая вчера буран был и с тех пор интернета нету", "ru-no-internet"),
    ("кешіріңіз мазалап жатырмын былай айтайын вайфай құпиясөзін қалай өзгертемін", "kk-router-setup"),
    ("в вашем чате в приложении круглые сутки отвечают", "ru-support-hours"),
    ("хочу разорвать договор с вами что для этого нужно", "ru-contract"),
    ("если на паузу поставлю интернет сколько платить", "ru-pause"),
    ("гроза была и арендованный роутер сгорел вы его замените", "ru-router-rent"),
    ("демалысқа кетеміз интернетті заморозить етуге бола ма", "kk-pause"),
    ("на лицевом у меня плюс или минус как посмотреть", "ru-balance"),
    ("переезжаем насовсем в польшу как расторгнуть договор", "ru-contract"),
    ("бір тәулік бойы интернет болмады ақшаны қайта есептейсіздер ме", "kk-outage-compensation"),
    ("басқа үйге көшсек интернетті ала кетуге бола ма", "kk-moving"),
    ("звонок на один шесть один шесть с мобильного бесплатный", "ru-support-hours"),
    ("пирирасчет за аварию будет или нет", "ru-outage-compensation"),
    ("үйде ескі роутер жатыр соны қолдансам бола ма", "kk-router-rent"),
]

NEAR_MISSES = [
    "сколько стоит квартира в ташкенте",
    "сколько стоит билет в новосибирск",
    "какая виза нужна в корею",
    "стамбулға ұшақ билеті қанша тұрады",
    "сколько стоит минута с домашнего телефона на сотовый",
    "үй телефонынан ұялыға қоңырау шалу минуты қанша тұрады",
    "мне бы номер домашнего телефона поменять на покрасивее",
    "несие алғым келеді банк картасына",
    "смартфонды бөліп төлеуге ала аламын ба",
    "можно ли взять кредит на телефон",
    "жарыққа қайда төлейміз квитанция келмей жатыр",
    "за свет через терминал можно заплатить",
    "какие праздники в марте",
    "наурыз мейрамында қайда барамыз",
    "хочу к вам устроиться на работу монтажником",
    "сіздерге оператор болып орналасуға бола ма",
    "как скинуть деньги с баланса телефона другу на номер",
    "баланстан досыма ақша аударғым келеді қалай",
    "на чёрную пятницу будут скидки на роутеры",
    "банкомат карточку съел что делать",
    "газ үшін қайда төлеймін",
    "за газ где платить",
    "ертең жаңбыр жаумай ма",
    "после грозы машина не заводится",
]


test_the_class_reaches_its_article, test_a_near_miss_in_the_same_words_gets_no_answer = phrasing_tests(
    ANSWERED, NEAR_MISSES
)


def test_a_place_abroad_is_abroad_only_with_what_we_sell_there() -> None:
    assert keys("квартира в ташкенте") == ["apartment", "abroad_place"]
    assert "abroad" in keys("ташкентте интернет бар ма") and "abroad" in keys("мәскеуде роуминг")
    assert "abroad_place" not in keys("в шымкенте квартира") and "abroad_place" not in keys("Теміртауда")


def test_a_kept_part_of_a_combination_keeps_its_term() -> None:
    combos = {(c.name, c.parts): c for c in SCORER.vocabulary.combinations}
    assert combos[("abroad", frozenset({"abroad_place", "mobile"}))].consumed == {"abroad_place"}  # "+mobile"
    assert combos[("roaming", frozenset({"abroad_place", "sim"}))].consumed == {"abroad_place", "sim"}
    assert "abroad" in keys("в ташкенте телефон") and "mobile" in keys("в ташкенте телефон")  # kept: both
    assert keys("в ташкенте симку") == ["roaming", "abroad"]  # consumed: the place and the SIM


def test_openers_and_apologies_carry_no_topic_and_nety_is_a_negation() -> None:
    for noise in ("блин извините что поздно", "ситуация такая", "кешіріңіз мазалап жатырмын", "былай айтайын",
                  "простите что отвлекаю", "с тех пор"):
        assert keys(noise) == [], noise
    assert keys("интернета нету") == keys("нет интернета") and "broken" in keys("интернета нету")
    assert keys("интернет пен теледидар") == keys("интернет және теледидар")  # "пен"/"бен": "and", no topic


PAUSES = [  # the service paused vs the live broadcast paused (the TV article's "пауза эфира" is not the former)
    ("заморозка интернета", "ru-pause"),
    ("хочу поставить интернет на паузу пока в отъезде", "ru-pause"),
    ("интернетті уақытша тоқтатуға бола ма", "kk-pause"),
    ("пауза эфира есть в пакетах", "ru-tv-packages"),
    ("эфирді кідіртуге бола ма", "kk-tv-packages"),
    ("эфирді тоқтатып қоюға бола ма", "kk-tv-packages"),
]


def test_a_paused_service_and_a_paused_broadcast_reach_their_own_articles() -> None:
    for question, entry in PAUSES:
        assert_answered(question, entry)
    assert "pause" not in keys("пауза эфира") and sorted(keys("поставить интернет на паузу")) == ["internet", "pause"]


def test_a_landmark_is_where_the_centre_is_and_not_who_a_tariff_is_for() -> None:
    """The Astana centre stands by the "Дворец школьников": a caller who names it asks for the centre; a tariff
    for pupils or pensioners (a segment we have no article for) is not answered by the centre's address."""
    for question, entry in (("я возле дворца школьников живу там где то рядом ваш офис", "ru-centre-astana"),
                            ("оқушылар сарайының жанындағы кеңсе", "kk-centre-astana")):
        assert rel(question, entry) >= RELEVANCE_GATE, question
    for question, entry in (("какой у вас тариф для пенсионеров", "ru-centre-astana"),
                            ("тариф для школьников есть", "ru-centre-astana"),
                            ("оқушыларға арналған тариф бар ма", "kk-centre-astana")):
        assert rel(question, entry) < CONFIRM_SHARE * RELEVANCE_GATE, question


OWN_ROUTER = [  # "own" + a router however named (a brand, a phrase, with words between): the rent/buy article
    ("у меня свой тп линк можно его оставить", "ru-router-rent"),
    ("свой кинетик можно подключить или только ваш роутер", "ru-router-rent"),
    ("у меня есть свой нормальный роутер зачем мне ваш брать", "ru-router-rent"),
    ("можно со своим роутером подключиться", "ru-router-rent"),
    ("өзімнің роутерім бар соны қоссам бола ма", "kk-router-rent"),
    ("өз модемім бар соны қолдансам бола ма", "kk-router-rent"),
]


def test_ones_own_router_however_named_is_the_rent_article_and_own_alone_is_nothing() -> None:
    for question, entry in OWN_ROUTER:
        assert_answered(question, entry)
    assert keys("свой тп линк") == keys("свой роутер") == ["own"]
    assert keys("у меня свой") == ["self"] and SCORER.vocabulary.weights["self"] == 0  # alone: no topic
    assert "own" not in keys("роутер мен приставканы өзіммен алып кетемін")  # "with me" (moving): no own router


SPEED_PRICES = [  # a speed with a price asked is a tariff question, the speed said in words or digits
    ("пятьсот мегабит почём", "ru-internet-tariffs"),
    ("а вот на тысячу мегабит цена какая", "ru-internet-tariffs"),
    ("сто мегабит сколько в месяц выйдет", "ru-internet-tariffs"),
    ("жүз мегабит қанша тұрады", "kk-internet-tariffs"),
    ("бес жүз мегабит айына қанша", "kk-internet-tariffs"),
]


def test_a_speed_with_a_price_is_the_tariffs_and_a_slow_speed_is_not() -> None:
    for question, entry in SPEED_PRICES:
        assert_answered(question, entry)
    assert "tariff" in keys("пятьсот мегабит почём") and "speed" not in keys("пятьсот мегабит почём")
    assert "speed" in keys("вайфай медленный пятьсот мегабит а показывает двадцать сколько стоит ремонт")


def test_money_that_arrives_is_credited_and_a_second_time_is_again() -> None:
    for question, entry in (("если через банк заплатить когда деньги придут", "ru-payment-methods"),
                            ("оплатил через банк деньги когда на счёт придут", "ru-payment-methods"),
                            ("сколько стоит второй раз перенести интернет", "ru-moving"),
                            ("снова переезжаем перенос линии платный", "ru-moving")):
        assert_answered(question, entry)
    assert keys("когда мастер придёт") == ["master", "arrive"] and SCORER.vocabulary.weights["arrive"] == 0
    assert "again" in keys("екінші рет көшсек") and "again" not in keys("қайта есептейсіздер ме")
