"""Knowledge answers from the caller's side, third round (issue 27), on the real knowledge base and PostgreSQL:
the reply reads the sentence that holds the fact asked about (not the article's first sentences), and a
region-specific article is only for its region: a caller who asks about another region's office, outage or
tariff hears no article, even when a national one reaches the gate."""

from __future__ import annotations

import pytest

from ai_operator.conversation import Conversation
from ai_operator.kb.store import KnowledgeBase
from tests.support.policies import operator_route, session


async def conversation(kb: KnowledgeBase, language: str, region: str) -> Conversation:
    conv = Conversation(session(operator_route(), "kb-round3"), knowledge=kb)
    await conv.start()
    await conv.utterance(language)
    out = await conv.utterance(region)
    assert out.reply.fields["state"] == "READY_TO_HELP", out.reply.text
    return conv


RU, KK = "русский", "қазақша"

# (language, region, question as ASR returns it, a sentence of the answer that holds the fact, its entry)
FACTS = [
    (RU, "Астана", "какой у вас самый быстрый тариф и сколько он стоит", "Самый быстрый тариф «Дом 1000»",
     "ru-internet-tariffs"),
    (RU, "Шымкент", "ну а самый скоростной интернет почем", "Самый быстрый тариф «Дом 1000»", "ru-internet-tariffs"),
    (RU, "Павлодар", "эээ гигабитный тариф сколько в месяц", "Самый быстрый тариф «Дом 1000»", "ru-internet-tariffs"),
    (RU, "Астана", "что значит красная лампочка на терминале", "красный индикатор LOS", "ru-no-internet"),
    (RU, "Актобе", "на модеме красный огонек горит это что", "красный индикатор LOS", "ru-no-internet"),
    (RU, "Астана", "лос мигает красным что это значит", "красный индикатор LOS", "ru-no-internet"),
    (RU, "Астана", "сколько стоит повторный перенос линии", "повторный перенос стоит 3 000 тенге", "ru-moving"),
    (RU, "Костанай", "а в субботу сервисные центры до скольки работают", "в субботу с 10:00 до 16:00",
     "ru-support-hours"),  # in Astana its own centre's article answers it (Saturday 10:00-16:00 as well)
    (RU, "Астана", "а звонок в поддержку платный или бесплатный", "Звонок на 1616 бесплатный", "ru-support-hours"),
    (RU, "Костанай", "сколько стоит пакет с детскими и спортивными каналами", "«Расширенный» — 210 каналов",
     "ru-tv-packages"),
    (RU, "Астана", "на приставке написано нет сигнала что делать", "«Нет сигнала»", "ru-tv-setup"),
    (RU, "Астана", "какой пароль должен быть у вайфая сколько символов", "не менее восьми символов",
     "ru-router-setup"),
    (RU, "Астана", "если арендованный роутер сломается замените", "при поломке мы заменяем бесплатно",
     "ru-router-rent"),
    (RU, "Астана", "через сколько дней вернут остаток денег после расторжения", "в течение десяти рабочих дней",
     "ru-contract"),
    (RU, "Астана", "как отключить роуминг командой", "*150#", "ru-mobile-roaming"),
    (RU, "Астана", "сколько стоит добровольная блокировка в месяц", "300 тенге в месяц", "ru-pause"),
    (KK, "Астана", "ең жылдам тариф қанша тұрады", "Ең жылдам «Үй 1000» тарифі", "kk-internet-tariffs"),
    (KK, "Ақтөбе", "терминалда қызыл шам жанып тұр бұл не", "қызыл LOS индикаторы", "kk-no-internet"),
    (KK, "Астана", "роутерде қызыл лампочка жыпылықтайды не істеймін", "қызыл LOS индикаторы", "kk-no-internet"),
    (KK, "Қостанай", "сенбі күні сервис орталықтары нешеге дейін жұмыс істейді", "сенбіде", "kk-support-hours"),
    (KK, "Астана", "ерікті бұғаттау айына қанша тұрады", "300 теңге", "kk-pause"),
    (KK, "Астана", "жалға алынған роутер бұзылса ауыстырасыздар ма", "тегін ауыстырамыз", "kk-router-rent"),
    # a tariff named by its number, in digits or in words; a sentence that only implies the fact is not it
    (RU, "Астана", "тариф дом 500 цена", "«Дом 500» — 500 Мбит/с за 12 990 тенге", "ru-internet-tariffs"),
    (RU, "Павлодар", "а дом триста сколько стоит в месяц", "«Дом 300» — 300 Мбит/с за 9 990 тенге",
     "ru-internet-tariffs"),
    (KK, "Қарағанды", "үй 500 тарифі қанша тұрады", "«Үй 500» — 12 990 теңгеге", "kk-internet-tariffs"),
    (RU, "Уральск", "если перейти на тариф дешевле когда он начнет действовать", "с первого числа следующего месяца",
     "ru-change-tariff"),
    (KK, "Талдықорған", "шебер неше күнде келеді", "Шебер үш жұмыс күні ішінде", "kk-internet-connect"),
    # the day named, with no service named: the sentence that says that day; how long a password must be
    (RU, "Костанай", "в субботу до скольки можно прийти", "в субботу с 10:00 до 16:00", "ru-support-hours"),
    (KK, "Семей", "сенбі күні сағат нешеге дейін ашықсыздар", "сенбіде 10:00", "kk-support-hours"),
    (RU, "Шымкент", "пароль на вайфай минимум сколько знаков", "не менее восьми символов", "ru-router-setup"),
    (RU, "Актобе", "пароль не сохраняется пишет короткий сколько символов надо", "не менее восьми символов",
     "ru-router-setup"),
    (KK, "Атырау", "вайфай құпиясөзі кемінде неше таңба болу керек", "кемінде сегіз таңба", "kk-router-setup"),
]


@pytest.mark.parametrize(("language", "region", "question", "fact", "entry"), FACTS)
async def test_the_answer_holds_the_fact_asked_about(kb: KnowledgeBase, language: str, region: str, question: str,
                                                     fact: str, entry: str) -> None:
    conv = await conversation(kb, language, region)
    out = await conv.utterance(question)
    assert out.reply.fields["answer"] in ("kb", "kb_fallback"), out.reply.text
    assert out.reply.fields["citations"][0]["id"] == entry, out.reply.fields["citations"]
    assert fact in out.reply.text, out.reply.text


async def test_a_general_question_still_reads_the_first_sentences(kb: KnowledgeBase) -> None:
    conv = await conversation(kb, RU, "Астана")
    out = await conv.utterance("ну сколько у вас стоит домашний интернет в месяц")
    assert "предлагает четыре тарифа" in out.reply.text and out.reply.fields["citations"][0]["id"] == \
        "ru-internet-tariffs"


# (language, the caller's region, a question about another region's article)
OTHER_REGION = [
    (RU, "Астана", "в павлодаре где ваш сервисный центр"),
    (RU, "Астана", "адрес офиса в экибастузе подскажите"),
    (RU, "Шымкент", "ну а в павлодаре офис до скольки работает"),
    (RU, "Астана", "в караганде ночью будут работы на сети"),
    (RU, "Павлодар", "в темиртау будут отключения четырнадцатого марта"),
    (RU, "Актобе", "плановые работы в карагандинской области когда"),
    (RU, "Астана", "тариф алматы гига можно подключить"),
    (RU, "Караганда", "эээ сколько стоит алматы гига"),
    (RU, "Павлодар", "где сервисный центр в астане"),
    (RU, "Павлодар", "в столице ваш офис где находится"),
    (RU, "Караганда", "в нурсултане офис по какому адресу"),
    (KK, "Астана", "павлодардағы кеңсеңіз қайда"),
    (KK, "Астана", "екібастұзда сервис орталығы бар ма"),
    (KK, "Астана", "қарағандыда түнде жоспарлы жұмыстар бола ма"),
    (KK, "Павлодар", "теміртауда интернет өшеді ме"),
    (KK, "Ақтөбе", "алматы гига тарифі қанша тұрады"),
    (KK, "Павлодар", "астанадағы сервис орталығы қайда"),
    (KK, "Қарағанды", "елордадағы кеңсенің мекенжайы қандай"),
    (KK, "Шымкент", "павлодарда роутерді қайда тапсырамын"),
    (KK, "Ақтөбе", "қарағанды облысында жөндеу жұмыстары қашан"),
]


@pytest.mark.parametrize(("language", "region", "question"), OTHER_REGION)
async def test_another_regions_article_is_not_read(kb: KnowledgeBase, language: str, region: str,
                                                  question: str) -> None:
    conv = await conversation(kb, language, region)
    out = await conv.utterance(question)
    assert out.reply.fields["answer"] == "no_answer", out.reply.text
    assert "citations" not in out.reply.fields


@pytest.mark.parametrize(("language", "region", "question", "entry"), [
    (RU, "Павлодар", "в павлодаре где ваш сервисный центр", "ru-centre-pavlodar"),
    (RU, "Караганда", "в темиртау будут отключения четырнадцатого марта", "ru-outage-karaganda"),
    (RU, "Алматы город", "эээ сколько стоит алматы гига", "ru-tariff-almaty-giga"),
    (KK, "Астана", "елордадағы кеңсенің мекенжайы қандай", "kk-centre-astana"),
])
async def test_in_its_own_region_the_same_question_is_answered(kb: KnowledgeBase, language: str, region: str,
                                                               question: str, entry: str) -> None:
    conv = await conversation(kb, language, region)
    out = await conv.utterance(question)
    assert out.reply.fields["citations"][0]["id"] == entry, out.reply.text


# (language, a question the caller corrects or narrows as they speak, the entry of what they settled on)
SETTLED = [
    (RU, "не не про тариф а про баланс как его проверить", "ru-balance"),
    (RU, "сколько стоит ой нет подождите как вайфай пароль поменять", "ru-router-setup"),
    (RU, "не про оплату а про роутер его можно в аренду взять", "ru-router-rent"),
    (RU, "хочу тариф сменить вернее переехать хочу как перенести интернет", "ru-moving"),
    (RU, "интернет пропал а роутер мигает красным", "ru-no-internet"),  # a negated verb is no correction
    (KK, "тариф емес теңгерімді қалай білемін", "kk-balance"),
    (KK, "роуминг емес ұялы байланыс тарифтері қандай", "kk-mobile-tariffs"),
    (KK, "төлем туралы жоқ кешіріңіз роутерді қалай баптаймын", "kk-router-setup"),
]


@pytest.mark.parametrize(("language", "question", "entry"), SETTLED)
async def test_the_later_clause_is_what_is_answered(kb: KnowledgeBase, language: str, question: str,
                                                    entry: str) -> None:
    conv = await conversation(kb, language, "Астана")
    out = await conv.utterance(question)
    assert out.reply.fields["answer"] in ("kb", "kb_fallback"), out.reply.text
    assert out.reply.fields["citations"][0]["id"] == entry, out.reply.fields["citations"]
