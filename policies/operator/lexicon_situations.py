"""How callers describe where they are and what happens to them (data only; lexicon.py joins these tables onto its
own like lexicon_colloquial's): places abroad by name, the people and reasons around a request, and the everyday
words for the operator's things (an office, a speed tier, a box on the wall). Written class by class from the
held-out-13 failures (issue 27 §1), each class filled from domain knowledge well past the lines that showed it.

- `CONCEPTS`: blocks "name: stems" appended to the concept of that name (lexicon_words.CONCEPTS).
  - `relative`: more Kazakh kinship words (a Russian one is a person already: the morphology reads it animate).
  - a password's letters ("букв", "әріп") are its `symbols`; "вафля" is the Wi-Fi; a percentage ("процент",
    "пайыз") on a payment is its commission (`free`); "дешманский" is `cheap`; "эфир" is the TV.
- `NEW_CONCEPTS`: concepts lexicon_words lacks:
  - `abroad_place`: countries, their capitals and the cities people from Kazakhstan travel to (the CIS, Russia's
    big cities, Turkey, the Gulf, pilgrimage, East Asia, Europe, America; those lexicon_words' `abroad` names
    already stay there). Russian names are written as their dictionary lemma, whole ("=": the morphology's lemma
    of "в Ташкенте" is "ташкент"), Kazakh ones as stems (a stem takes the case endings: "Ташкентке",
    "Мәскеуде"). A place abroad is `abroad` only with the phone, the internet, calls or roaming
    (lexicon.COMBINATIONS: "в Ташкенте симка будет ловить"); alone it is no article's ("квартира в Ташкенте").
    A place inside Kazakhstan is never here: the region resolver turns those into their region first (kb_query.py).
  - `landmark`: a landmark an article names ("Дворец школьников", "Оқушылар сарайы" by the Astana centre): the
    place a caller names, not the pupils a tariff might be for (`segment`).
  - `missed`: a programme missed ("пропустил матч", "өткізіп алдым"): with what is on TV it asks for the archive
    (lexicon.COMBINATIONS), a facet otherwise.
  - `landline`, `credit`, `utility`: a home phone, loans and instalments, utility bills: not ours. Credit and
    bills weigh like lexicon_words' `foreign` (3); a landline 1, as the debt-block article names it, but
    installing, pricing, changing or calling from one is `foreign` (lexicon.COMBINATIONS).
- `PHRASES`: words that name a concept only together ("круглые сутки": at all hours; "на паузу поставить" is
  the pause, not a connection; "номер дома" an address; "ала кету" taking along; "один шесть один шесть" our
  number); a broadcast paused ("пауза эфира", "эфирді кідірту") is the TV's archive feature, not the service
  paused, and services "уақытша тоқтатылады" (stopped, for a debt) are blocked; jobs with us, Black Friday and an ATM are not ours (`foreign`), nor is sending money from a phone's
  balance to another number (lexicon.COMBINATIONS: a transfer with the phone and no account of ours); a storm
  that broke the router, the line or the TV is the cause, not the weather asked about ("роутер сгорел после
  грозы"; lexicon.COMBINATIONS); "без доступа к интернету", a computer's words, is no internet; "в центре
  квартиры" is where the router goes (`placement`), not a service centre; a speed and "how much" ("100 мегабит
  сколько", "жүз мегабит қанша") asks its price.
- `FILLER_WORDS`: urgency, hedges, apologies and a story's openers that carry no topic ("срочно", "блин",
  "извините что поздно", "былай айтайын"), and Kazakh "ету" after a Russian verb ("заморозить етуге": code
  switching, the Russian verb is the term), our own name ("Qazaq Telecom"), Kazakh "пен"/"бен" ("and"); "нету" here, a negator in lexicon.NEGATORS, is no term itself.
"""

from __future__ import annotations

CONCEPTS = """
weather: ураган буран дауыл
death: покойн
relative: шешем шешеме шешесі әкесі сіңлім бауырым немерем қызым әпкем әпкеме әпкесі ағам ағама ағасы інім
speed: пятисотк трехсотк трёхсотк двухсотк тысячк гиговы гиговый= летает= летают=
centre: контор контору= конторе= конторы=
documents: қағаз бумаги= бумаг=
terminal: коробочк коробк
discount: спецпредлож
terminate: прекрат прекращ жабайын жабамын жабамыз жабуға жабу= жапқым
moving: апару апарам апарсақ апаруға
name: переимен
change: переимен
reissue: перебить=
home: саяжай
change: түскім= түссем=
archive: повтор= повторы= повтора=
connect: жазыл жазылам жазылсам жазылуға
change: көбейт жоғарылат арттыр ұлғайт увелич
terminal: касс
credited: отобраз отображ
autopay: снимало= снималось= снимались= снимались
broken: сгорел сгорела= сгорело= күйіп күйді= жанып
day: полдн полдня=
activity: концерт
archive: отмотать= отмотка= отмотат
terminate: разорв
refund: пирирасч перирасч
former: ескі өткен былтыр
travel: поездк барғанда= летим= лечу= летят= улетаем= улетаю= ұшамыз= ұшып=
apartment: жк=
connect: тартқым= тартуға=
speed: жүздік мыңдық
connect: жете= затянуть=
symbols: букв буквы= букв= әріп әріп= әріпті
wifi: вафл вафлю= вафля= вафле=
archive: записи= записью= записях=
free: процент пайыз
cheap: дешманск
tv: эфир= эфира= эфиру= эфире= эфирді эфирде эфирден
"""

# concepts lexicon_words lacks ("name weight: stems", its format; see the module docstring)
NEW_CONCEPTS = """
abroad_place 1: москва= питер= петербург= новосибирск= омск= екатеринбург= челябинск= оренбург= самара=
  астрахань= барнаул= томск= тюмень= сочи= краснодар= ташкент= самарканд= бухара= бишкек= душанбе= баку=
  тбилиси= ереван= минск= киев= киргизия= таджикистан= туркменистан= азербайджан= армения= беларусь= белоруссия=
  украина= молдова= стамбул= анталья= анталия= аланья= хургада= эмираты= катар= арабия= мекка= медина= умра=
  хадж= пекин= урумчи= гуанчжоу= сеул= япония= токио= пхукет= бангкок= вьетнам= индия= малайзия= индонезия=
  бали= мальдивы= германия= франция= италия= испания= англия= великобритания= лондон= париж= прага= польша=
  чехия= америка= канада= австралия= израиль= кипр= болгария= венгрия= финляндия= австрия= швейцария=
  нидерланды= мәскеу петербор омбы новосібір қырғызстан өзбекстан тәжікстан түрікменстан әзербайжан армения
  беларусь украина ташкент бішкек самарқанд стамбул ыстамбұл анталия арабия әмірлік мекке медине қажылық умра
  умраға пекин кәріс жапония вьетнам үндістан германия франция италия испания англия ұлыбритания лондон париж
  польша чехия америка канада израиль
landline 1: стационарн
placement 1: расстановк
whereto 0: куда= қай= жерге= жерде= жеріне= жерінде= ортасына= ортасында=
put 0: қой= қою= қойған= қойсам= қоямын= қойыңыз= қойса= қойған= разместить= расположить= повесить=
shows 0: показыв показал көрсет
streaming 0: стриминг
reconnect 1: переподключ
keep 1: сохран сақта
freeze 0: мұздат
extra 0: отдельн бөлек
allday 0: круглосуточный
anynumber 1: любойномер
reduce 0: уменьш снизит снизят снизите азайт вычтете= вычтут=
appeal 0.5: жалоб жалов пожалов претенз обращени шағым өтініш арыз
fault 0.5: вина= кінә кесір
entitled 0: положено= положена= полагается= тиесілі
landmark 2: достопримечательн
technical 0.4: техникалық техническ дотянет дотянут дотянете
missed 0.4: пропустил= пропустила= пропустили= пропустил өткізіп= өткізіп
credit 3: кредит= кредиты= кредита= кредитом= несие рассрочк микрозайм займ=
utility 3: коммунал электричеств электроэнерг водоканал жарыққа= жарықтың= жарықты= газға= газды= газ= газа=
  газу= газом=
"""

PHRASES = """
hours: кругл сутк
abroad: сауд арабия
day: жарты күн
_: тех= пор=
landmark: двор школьник
landmark: оқушылар сарай
landline: домашн телефон
landline: телефон домашн
landline: городск телефон
landline: проводн телефон
landline: үй телефон
landline: стационар телефон
credit: бөліп төле
credit: частями= оплат
utility: за= свет=
utility: за= газ=
utility: за= воду=
pause: пауз постав
pause: постав пауз
address: номер дом
address: үй нөмір
moving: ала кет
balance: минус плюс
archive: эфир тоқтат
archive: тоқтат эфир
archive: пауз эфир
archive: эфир пауз
archive: эфир кідірт
archive: кідірт эфир
archive: эфирді кідірт
block: уақытша тоқтатыл
placement: центр квартир
placement: пәтердің ортасы
placement: пәтер ортасы
speed+price: мегабит скольк
gigabit+price: гигабит скольк
speed+price: мегабит канша
gigabit+price: гигабит канша
broken: без доступ
broken: доступ= нет=
broken: нет= доступ
balance: плюс минус
support: один= шест один= шест
support: бір= алты бір= алты
foreign: жұмысқа орналас
foreign: болып орналас
foreign: устро на работ
foreign: черн пятниц
foreign: black friday
foreign: банкомат
archive: қайта көр
archive: кейін көр
archive: занов посмотр
archive: занов смотр
archive: қайтадан көр
archive: қайта қара
archive: позже посмотр
archive: потом посмотр
archive: потом смотр
"""

FILLER_WORDS = """
срочно срочный срочная вообще вообще-то реально походу прям прямо допустим кстати блин слышно ситуация ситуацию
ситуации извините извиняюсь простите отвлекаю поздно погодите нету былай айтайын айтам айтсам ондай жолы
екінші кешіріңіз кешіріңізші мазалап мазаладым жағдай жағдайым ету етуге етсем етеді етіп етіңіз етіңізші
біржола qazaq telecom телеком казактелеком қазақтелеком пен бен
"""
