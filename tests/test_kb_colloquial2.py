"""Callers' words the eighth round of knowledge-base tuning (m2-kb-recall, issue 27 §1) taught the lexicon, one
set per class of the tuning splits' failures: Kazakh discourse words that carry no topic ("мүлде", "сияқты",
"бірдеңе", "яғни", "өзімнің"); the caller's job or shift as a circumstance ("на работе", "ночная смена",
"жұмыстамын"); a contract "in someone's name" (Kazakh "атында", "атынан") and a former owner; a city said in
the locative ("в Костанае"); the optical terminal called "the box from the optics"; the support number said in
words; and Kazakh and Russian synonyms no article uses ("есепшот", "қаржы", "парақша", "топтама", "қоныс аудару",
"кіргізу", "өліп жатыр", "шегеру", "әрең", "набор каналов", "рассчитаться", "вычесть", "сотка", "вместо", "повысить
скорость", "эйч ди эм ай"); then discourse phrases and living somewhere ("до сих пор", "никого не будет",
"живём", "тұрамыз", "лежит"), "old" as a former thing, TV catch-up (archive, "досмотреть"), a reason for going
away (a voyage, the army, a shift camp), and "наличка", "комбинация", "өшік", "балам", "видео"; then which
channel shows something (a TV schedule, not ours), money that "comes" after paying (Kazakh), the wire and the air
("по проводу", "по воздуху"), an external or fixed address (a static IP), taking the internet along ("утащить")
and a dormitory; then the people and places around the caller (a neighbour, a grandson, a dad, the parents, a
village), "қанша қалды" (what is left), "на нём" (no "немой") and "прицепить". Questions written as an ASR returns them (not taken from the labelled lines); the
same words about something that is not ours still get no answer."""

from __future__ import annotations

from tests.test_kb_relevance import keys, phrasing_tests

ANSWERED = [
    # Kazakh discourse words
    ("бөлмеде вайфай мүлде жоқ сияқты не істеймін", "kk-wifi-slow"),
    ("роутерге кіру паролі бірдеңе болды яғни ұмыттым қалай ауыстырамын", "kk-router-setup"),
    ("өзімнің вайфай паролімді ауыстырғым келеді", "kk-router-setup"),
    # the caller's job or shift
    ("я на работе до семи во сколько закрывается сервисный центр в субботу", "ru-support-hours"),
    ("я сейчас на работе скажите какой у меня баланс", "ru-balance"),
    ("у меня ночная смена как подключить интернет", "ru-internet-connect"),
    ("на смене сижу скажите до скольки работает сервисный центр", "ru-support-hours"),
    ("жұмыстамын кешке дейін интернетке қалай төлеймін", "kk-payment-methods"),
    # a contract in someone's name, a former owner
    ("договор на прежнего хозяина квартиры как на себя переоформить", "ru-contract-reissue"),
    # the optical terminal called a box; the support number said in words
    ("коробка от оптики мигает красным что делать", "ru-no-internet"),
    ("шестнадцать шестнадцать круглосуточно отвечает", "ru-support-hours"),
    # synonyms no article uses
    ("есепшотымда қанша ақша қалды", "kk-balance"),
    ("балансымда қаржы қанша", "kk-balance"),
    ("жеке парақшаға қалай кіремін", "kk-personal-account"),
    ("арналар топтамасы қандай бар", "kk-tv-packages"),
    ("жаңа мекенжайға қоныс аударамыз интернет ше", "kk-moving"),
    ("пәтерге интернет кіргізу керек", "kk-internet-connect"),
    ("роутер өліп жатыр интернет жоқ", "kk-no-internet"),
    ("вайфай әрең ұстайды бөлмеде баяу", "kk-wifi-slow"),
    ("какие наборы каналов у вас есть", "ru-tv-packages"),
    ("как рассчитаться за интернет картой", "ru-payment-methods"),
    ("интернета не было три дня можете вычесть из абонентки", "ru-outage-compensation"),
    ("не могу попасть в личный кабинет", "ru-personal-account"),
    ("у меня сотка хочу тариф побыстрее перейти", "ru-change-tariff"),
    ("хочу повысить скорость интернета на другой тариф", "ru-change-tariff"),
    ("хочу триста мегабит вместо сотки", "ru-change-tariff"),
    ("приставкаға эйч ди эм ай кабелін қалай жалғаймын", "kk-tv-setup"),
    # discourse phrases, living somewhere, "old", TV catch-up, going away, more words
    ("оплатила через банк а деньги до сих пор не пришли", "ru-payment-methods"),
    ("интернета до сих пор нет хотя вчера оплатил после блокировки", "ru-debt-block"),
    ("карту старую заблокировали как автоплатеж перенастроить", "ru-payment-due"),
    ("дом купили а договор на старого владельца", "ru-contract-reissue"),
    ("мы в алматы живём какие тарифы на интернет", "ru-internet-tariffs"),
    ("сколько денег у меня лежит на счету", "ru-balance"),
    ("можно посмотреть передачу из архива за прошлую неделю", "ru-tv-packages"),
    ("муж в рейс ухожу с ним можно интернет приостановить", "ru-pause"),
    ("әскерге кетемін интернетті уақытша тоқтатамын", "kk-pause"),
    ("наличкой где можно оплатить интернет", "ru-payment-methods"),
    ("какой комбинацией баланс проверить", "ru-balance"),
    ("ақша салдым интернет әлі өшік тұр", "kk-debt-block"),
    ("балам ойын ойнайды вайфай өте баяу", "kk-wifi-slow"),
    ("видео тормозит по вайфаю", "ru-wifi-slow"),
    ("ана бөлмеде вайфай нашар", "kk-wifi-slow"),
    ("одан да күштірек тариф бар ма", "kk-internet-tariffs"),
    # the wire and the air, a static IP, taking the internet along, money that comes, a dormitory
    ("по воздуху интернет черепашья скорость", "ru-wifi-slow"),
    ("какая скорость на тарифе по проводу и по воздуху разная", "ru-wifi-slow"),
    ("нужен внешний айпи для камер", "ru-static-ip"),
    ("фиксированный адрес можно подключить", "ru-static-ip"),
    ("интернет хотим утащить на новую квартиру", "ru-moving"),
    ("как прекратить пользоваться вашими услугами расторгнуть", "ru-contract"),
    ("төлесем ақша қашан келеді шотқа", "kk-payment-methods"),
    ("қосымша арқылы төледім ақша бірден келе ме", "kk-payment-methods"),
    ("жатақханада тұрамын вайфай баяу", "kk-wifi-slow"),
    # people and places around the caller, what is left, "на нём", attaching
    ("шотымда қанша қалды айтыңызшы", "kk-balance"),
    ("внук приехал вайфай слабый в комнате", "ru-wifi-slow"),
    ("ауылға интернет тарттыруға бола ма", "kk-internet-connect"),
    ("в селе интернет можно провести", "ru-internet-connect"),
    ("договор на папе был он умер как переоформить", "ru-contract-reissue"),
    ("переезжаем к родителям интернет можно перенести", "ru-moving"),
    ("за долг отключили а звонки на домашний на нем будут", "ru-debt-block"),
    ("приставку как к телевизору прицепить", "ru-tv-setup"),
]

NOT_OURS = [
    "как перечислить деньги маме на карту",
    "на работе зарплату задерживают куда жаловаться",
    "у мужа ночная смена на заводе как оформить больничный",
    "әкемнің атында машина бар салығын қалай төлеймін",
    "коробка передач стучит где починить",
    "набор в первый класс когда начинается",
    "сервисный центр самсунг в костанае где находится",
    "дома никого не будет кто посылку примет",
    "старый телевизор куда сдать",
    "архив документов где заказать",
    "наличкой за такси можно",
    "муж в рейсе как ему позвонить за границу",
    "до сих пор не пришла посылка с озона",
    "какой канал сегодня покажет бокс",
    "по какому каналу новости смотреть",
    "қай арнада жаңалықтар көрсетіледі",
    "внешний адрес доставки как поменять",
    "по проводу зарядка не работает",
    "фиксированный адрес для посылок",
    "соседи шумят куда жаловаться",
    "в селе газ когда проведут",
    "прицеп к машине где купить",
    "ауылда автобус қашан жүреді",
    "внук приехал на каникулы куда сходить",
]


test_the_callers_words_reach_the_article, test_the_same_words_about_something_not_ours_get_no_answer = phrasing_tests(
    ANSWERED, NOT_OURS
)


def test_the_words_are_what_they_mean() -> None:
    assert keys("мүлде сияқты бірдеңе яғни өзімнің") == ["self"]  # "my own": weightless unless with a router
    assert keys("на работе") == keys("ночная смена") == keys("жұмыстамын") == ["job"]
    assert keys("смена тарифа") == ["change", "tariff"]  # a change of tariff is no shift
    assert keys("коробка от оптики") == ["terminal"] and keys("в костанае") == ["kostanay"]
    # Kazakh has no contract-reissue article (a Russian one answers): the name a contract is in says reissue
    for q in (
        "интернет анамның атында тұр енді өз атыма рәсімдегім келеді",
        "шартты күйеуімнің атынан маған ауыстырып жазу керек",
    ):
        assert {"reissue", "relative"} <= set(keys(q)), q
    assert keys("дома никого не будет") == ["home"]  # nobody at home is no outage
    assert keys("кентауда тұрамыз жаңа үйде")[1:] == ["new", "home"] and keys("старого хозяина") == [
        "former",
        "owner",
    ]
    assert keys("куәлік жеткілікті ме әлде басқа құжат") == [
        "documents"
    ]  # "әлде" is no "алу" (getting an ID)
